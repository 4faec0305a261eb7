"""framework.utils.data and the built-in data sets (IDX files are written by the tests themselves)."""
import gzip
import struct

import numpy as np
import pytest

import framework
from framework.utils.data import DataLoader, Dataset, Subset, TensorDataset, random_split
from train import datasets


def test_dataloader_batches_shuffle_drop_last():
    ds = TensorDataset(framework.arange(10.0), framework.arange(10))
    batches = list(DataLoader(ds, batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(DataLoader(ds, 4, drop_last=True)) == 2 and len(list(DataLoader(ds, 4, drop_last=True))) == 2
    g1, g2 = framework.Generator(5), framework.Generator(5)
    order1 = [b[1].tolist() for b in DataLoader(ds, 3, shuffle=True, generator=g1)]
    order2 = [b[1].tolist() for b in DataLoader(ds, 3, shuffle=True, generator=g2)]
    assert order1 == order2 and sorted(sum(order1, [])) == list(range(10)) and order1[0] != [0, 1, 2]


def test_dataloader_generic_dataset_and_collate():
    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": framework.tensor([float(i)]), "y": i * i}

    batch = next(iter(DataLoader(Squares(), batch_size=3)))
    assert batch["x"].shape == (3, 1) and batch["y"].tolist() == [0, 1, 4]
    custom = next(iter(DataLoader(Squares(), batch_size=2, collate_fn=lambda items: len(items))))
    assert custom == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        DataLoader(Squares(), batch_size=0)


def test_random_split_and_subset():
    ds = TensorDataset(framework.arange(10))
    a, b = random_split(ds, [7, 3], generator=framework.Generator(0))
    assert len(a) == 7 and len(b) == 3
    assert sorted([a[i][0].item() for i in range(7)] + [b[i][0].item() for i in range(3)]) == list(range(10))
    assert [len(s) for s in random_split(ds, [0.5, 0.5])] == [5, 5]
    assert Subset(ds, [3, 1])[1][0].item() == 1
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(ds, [3, 3])
    with pytest.raises(ValueError, match="Size mismatch"):
        TensorDataset(framework.zeros(3), framework.zeros(4))


def test_mixtures():
    ring = datasets.ring()
    assert ring.centers.shape == (8, 2) and np.allclose(np.linalg.norm(ring.centers, axis=1), 2.0)
    grid = datasets.grid()
    assert grid.centers.shape == (25, 2) and sorted(set(grid.centers[:, 0].tolist())) == [-4, -2, 0, 2, 4]
    x = ring.sample(10000, np.random.default_rng(0))
    nearest = np.linalg.norm(x[:, None] - ring.centers[None], axis=2).min(1)
    assert x.dtype == np.float32 and abs(nearest.mean() - 0.05 * np.sqrt(np.pi / 2)) < 0.005


def test_toy_classification_sets():
    x, y = datasets.moons(200)
    assert x.shape == (200, 2) and set(y.tolist()) == {0, 1}
    x, y = datasets.spirals(300, classes=3)
    assert x.shape == (300, 2) and set(y.tolist()) == {0, 1, 2}


def _write_idx(path, array, gz=False):
    codes = {np.uint8: 0x08, np.int32: 0x0C}
    header = struct.pack(">BBBB", 0, 0, codes[array.dtype.type], array.ndim)
    header += struct.pack(">" + "I" * array.ndim, *array.shape)
    data = header + array.astype(array.dtype.newbyteorder(">")).tobytes()
    with (gzip.open if gz else open)(path, "wb") as f:
        f.write(data)


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_idx_loader(tmp_path, gz):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (5, 28, 28)).astype(np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    suffix = ".gz" if gz else ""
    _write_idx(tmp_path / f"train-images-idx3-ubyte{suffix}", images, gz)
    _write_idx(tmp_path / f"train-labels-idx1-ubyte{suffix}", labels, gz)
    x, y = datasets.mnist(str(tmp_path))
    assert x.shape == (5, 1, 28, 28) and x.dtype == np.float32 and y.tolist() == [3, 1, 4, 1, 5]
    assert np.allclose(x[0, 0] * 255, images[0])


def test_mnist_npz(tmp_path):
    np.savez(tmp_path / "mnist.npz", x_train=np.zeros((2, 28, 28), np.uint8), y_train=np.array([1, 2]),
             x_test=np.zeros((1, 28, 28), np.uint8), y_test=np.array([3]))
    x, y = datasets.mnist(str(tmp_path), "test")
    assert x.shape == (1, 1, 28, 28) and y.tolist() == [3]


def test_mnist_errors_name_path_and_files(tmp_path):
    with pytest.raises(datasets.DataError, match="data directory not found: .*nope.*train-images-idx3-ubyte"):
        datasets.mnist(str(tmp_path / "nope"))
    with pytest.raises(datasets.DataError, match="missing train-images-idx3-ubyte"):
        datasets.mnist(str(tmp_path))
    _write_idx(tmp_path / "train-images-idx3-ubyte", np.zeros((2, 10, 10), np.uint8))
    _write_idx(tmp_path / "train-labels-idx1-ubyte", np.zeros(2, np.uint8))
    with pytest.raises(datasets.DataError, match="expected 28x28 images"):
        datasets.mnist(str(tmp_path))
    (tmp_path / "train-images-idx3-ubyte").write_bytes(b"\x00\x00\x08\x03\x00\x00\x00\x05")
    with pytest.raises(datasets.DataError, match="truncated"):
        datasets.mnist(str(tmp_path))
    (tmp_path / "train-images-idx3-ubyte").write_bytes(b"garbage!")
    with pytest.raises(datasets.DataError, match="not an IDX file"):
        datasets.mnist(str(tmp_path))
