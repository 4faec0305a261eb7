"""Built-in data that needs no download: 2-D GAN benchmarks, toy classification sets, digits, MNIST files.

Every function returns numpy arrays (float32 features, int64 labels); wrap them with
``framework.utils.data.TensorDataset`` to train.
"""
from __future__ import annotations

import gzip
import os
import struct
from dataclasses import dataclass

import numpy as np


class DataError(ValueError):
    """Bad or missing data: the message names the path and what was expected."""


@dataclass
class Mixture2D:
    """A mixture of isotropic 2-D Gaussians (the standard GAN mode-collapse benchmarks)."""

    name: str
    centers: np.ndarray  # (K, 2)
    std: float

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        idx = rng.integers(0, len(self.centers), n)
        return (self.centers[idx] + rng.standard_normal((n, 2)) * self.std).astype(np.float32)


def ring(n_modes: int = 8, radius: float = 2.0, std: float = 0.05) -> Mixture2D:
    """8 Gaussians evenly spaced on a circle of radius 2, std 0.05."""
    angles = 2 * np.pi * np.arange(n_modes) / n_modes
    return Mixture2D("ring", np.stack([radius * np.cos(angles), radius * np.sin(angles)], 1), std)


def grid(side: int = 5, spacing: float = 2.0, std: float = 0.05) -> Mixture2D:
    """25 Gaussians on a 5x5 grid (centres at -4, -2, 0, 2, 4), std 0.05."""
    coords = (np.arange(side) - (side - 1) / 2) * spacing
    xs, ys = np.meshgrid(coords, coords)
    return Mixture2D("grid", np.stack([xs.ravel(), ys.ravel()], 1), std)


def moons(n: int = 1000, noise: float = 0.1, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles (as sklearn.datasets.make_moons)."""
    rng = np.random.default_rng(seed)
    n_out = n // 2
    n_in = n - n_out
    t_out, t_in = np.linspace(0, np.pi, n_out), np.linspace(0, np.pi, n_in)
    x = np.concatenate([np.stack([np.cos(t_out), np.sin(t_out)], 1),
                        np.stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5], 1)])
    y = np.concatenate([np.zeros(n_out, np.int64), np.ones(n_in, np.int64)])
    x = x + rng.standard_normal(x.shape) * noise
    perm = rng.permutation(n)
    return x[perm].astype(np.float32), y[perm]


def spirals(n: int = 1000, classes: int = 3, noise: float = 0.2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Interleaved spiral arms, one class per arm (the CS231n toy problem)."""
    rng = np.random.default_rng(seed)
    per = n // classes
    xs, ys = [], []
    for c in range(classes):
        r = np.linspace(0.0, 1, per)
        t = np.linspace(c * 4, (c + 1) * 4, per) + rng.standard_normal(per) * noise
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], 1))
        ys.append(np.full(per, c, np.int64))
    x, y = np.concatenate(xs), np.concatenate(ys)
    perm = rng.permutation(len(y))
    return x[perm].astype(np.float32), y[perm]


def digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8x8 digits (1797 images) as (N, 1, 8, 8) in [0, 1]; needs scikit-learn."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise DataError("the digits data set comes with scikit-learn: pip install scikit-learn "
                        "(or: pip install -e '.[digits]'); without it use --data moons") from None
    d = load_digits()
    return (d.images / 16.0).astype(np.float32)[:, None], d.target.astype(np.int64)


_MNIST_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def read_idx(path: str) -> np.ndarray:
    """Read one IDX file (the MNIST format), gzipped or not."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise DataError(f"{path}: cannot read IDX file: {e}") from None
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise DataError(f"{path}: not an IDX file (bad magic number)")
    type_code, ndim = data[2], data[3]
    dtypes = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
    if type_code not in dtypes:
        raise DataError(f"{path}: unknown IDX element type 0x{type_code:02x}")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise DataError(f"{path}: truncated IDX header")
    shape = struct.unpack(">" + "I" * ndim, data[4:header])
    dtype = np.dtype(dtypes[type_code])
    expected = int(np.prod(shape)) * dtype.itemsize
    if len(data) - header != expected:
        raise DataError(f"{path}: truncated or corrupted IDX file: expected {expected} bytes of data for shape "
                        f"{shape}, found {len(data) - header}")
    return np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)


def mnist(directory: str, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """MNIST-format images (N, 1, 28, 28) in [0, 1] and labels, from IDX files (.gz or not) or mnist.npz."""
    if not os.path.isdir(directory):
        raise DataError(f"data directory not found: {directory} (expected the MNIST files "
                        f"{', '.join(_MNIST_FILES[split])} (optionally .gz), or mnist.npz)")
    npz = os.path.join(directory, "mnist.npz")
    if os.path.exists(npz):
        with np.load(npz, allow_pickle=False) as d:
            key = "train" if split == "train" else "test"
            x, y = d[f"x_{key}"], d[f"y_{key}"]
    else:
        found = []
        for name in _MNIST_FILES[split]:
            for candidate in (name, name + ".gz"):
                if os.path.exists(os.path.join(directory, candidate)):
                    found.append(os.path.join(directory, candidate))
                    break
            else:
                raise DataError(f"{directory}: missing {name} (or {name}.gz); expected the MNIST {split} files "
                                f"{' and '.join(_MNIST_FILES[split])}, or mnist.npz")
        x, y = read_idx(found[0]), read_idx(found[1])
    if x.ndim != 3 or x.shape[1:] != (28, 28):
        raise DataError(f"{directory}: expected 28x28 images, got shape {tuple(x.shape[1:])}")
    if len(x) != len(y):
        raise DataError(f"{directory}: {len(x)} images but {len(y)} labels")
    return (x.astype(np.float32) / 255.0)[:, None], y.astype(np.int64)
