"""The (n_out, n_in) weight matrix of each interpolation mode along one spatial dim, as ATen's CPU kernels.

Every F.interpolate mode is separable: the output is the input mapped by one such matrix per spatial dim, so
resample.py's SeparableMap serves all of them (the gradient is the transposed map).  The matrices are built on
the host in float64 with torch's own arithmetic (its float32 scales where ATen uses ``float``), then cast."""
from __future__ import annotations

import numpy as np


def _float_scale(n_in: int, n_out: int, scale: float | None) -> np.float32:
    """ATen's compute_scales_value<float>: 1 / scale_factor when one was given, else n_in / n_out, in float32."""
    if scale is not None and scale > 0:
        return np.float32(1.0 / scale)
    return np.float32(n_in) / np.float32(n_out)


def _area_scale(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> float:
    """ATen's area_pixel_compute_scale<double>: the source step per output pixel."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def _source_index(n_out: int, n_in: int, scale: float | None, align_corners: bool, cubic: bool) -> np.ndarray:
    """ATen's area_pixel_compute_source_index: the (fractional) source position of each output pixel."""
    step = _area_scale(n_in, n_out, align_corners, scale)
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        return step * dst
    src = step * (dst + 0.5) - 0.5
    return src if cubic else np.maximum(src, 0.0)


def selection(src: np.ndarray, n_in: int) -> np.ndarray:
    """The matrix whose row i is one 1 at column src[i]."""
    m = np.zeros((len(src), n_in))
    m[np.arange(len(src)), src] = 1.0
    return m


def _f32(v) -> np.ndarray:
    """Round to float32 (ATen's floorf takes a float), kept as float64 for the host math."""
    return np.asarray(v, dtype=np.float64).astype(np.float32).astype(np.float64)


def nearest_source(n_out: int, n_in: int, scale: float | None, exact: bool, double: bool) -> np.ndarray:
    """The input pixel each output pixel copies in torch's nearest forward kernel: floor(i s) for 'nearest',
    floor((i + 0.5) s) for 'nearest-exact' (clamped), with s and the products in the input's opmath type."""
    dst = np.arange(n_out, dtype=np.float64)
    if double:
        s = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
        src = s * dst if not exact else np.maximum(s * (dst + 0.5) - 0.5, 0.0) + 0.5
    else:  # float opmath: the scale and scale * i are floats; the exact mode's +-0.5 are doubles
        s = np.float64(_float_scale(n_in, n_out, scale))
        src = _f32(_f32(dst) * s) if not exact else np.maximum(_f32(s * (dst + 0.5) - 0.5), 0.0) + 0.5
    return np.minimum(np.floor(_f32(src)).astype(np.int64), n_in - 1)


def nearest_grad_source(n_out: int, n_in: int, scale: float | None, exact: bool) -> np.ndarray:
    """The input pixel each output pixel's gradient goes to in torch's nearest backward kernel (nearest_idx /
    nearest_exact_idx): float32 scale and products whatever the dtype, so a few sizes differ from the forward."""
    dst = np.arange(n_out, dtype=np.float64)
    if not exact and n_out == n_in:
        return dst.astype(np.int64)
    if not exact and n_out == 2 * n_in:
        return dst.astype(np.int64) // 2
    s = np.float64(_float_scale(n_in, n_out, scale))
    src = _f32(_f32(dst) * s) if not exact else _f32((dst + 0.5) * s)
    return np.minimum(np.floor(src).astype(np.int64), n_in - 1)


def linear_matrix(n_out: int, n_in: int, scale: float | None, align_corners: bool) -> np.ndarray:
    """Two taps per row, floor(x) and floor(x) + 1 (clamped), weighted 1 - t and t."""
    src = _source_index(n_out, n_in, scale, align_corners, cubic=False)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    w1 = src - i0
    m = np.zeros((len(src), n_in))
    rows = np.arange(len(src))
    np.add.at(m, (rows, i0), 1.0 - w1)
    np.add.at(m, (rows, i1), w1)
    return m


def _cubic1(x, a: float):
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cubic2(x, a: float):
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def cubic_matrix(n_out: int, n_in: int, scale: float | None, align_corners: bool) -> np.ndarray:
    """Four taps per row, floor(x) - 1 .. floor(x) + 2 clamped to the border, with the cubic convolution
    weights of A = -0.75 at t = x - floor(x) (ATen's get_cubic_upsample_coefficients)."""
    src = _source_index(n_out, n_in, scale, align_corners, cubic=True)
    # ATen's guard_index_and_lambda: floorf (on float32), clamped to the last pixel, t clamped to [0, 1]
    idx = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), n_in - 1)
    t = np.clip(src - idx, 0.0, 1.0)
    a = -0.75
    coeffs = (_cubic2(t + 1.0, a), _cubic1(t, a), _cubic1(1.0 - t, a), _cubic2(2.0 - t, a))
    m = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    for j, w in enumerate(coeffs):
        np.add.at(m, (rows, np.clip(idx - 1 + j, 0, n_in - 1)), w)
    return m


def _triangle(x: float) -> float:
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _pil_cubic(x: float) -> float:
    """The antialiasing cubic filter: A = -0.5 (Pillow's), not the -0.75 of plain bicubic."""
    x = abs(x)
    if x < 1.0:
        return _cubic1(x, -0.5)
    return _cubic2(x, -0.5) if x < 2.0 else 0.0


def _lanczos3(x: float) -> float:
    """sinc(x) sinc(x / 3) on |x| < 3."""
    x = abs(x)
    return float(np.sinc(x) * np.sinc(x / 3.0)) if x < 3.0 else 0.0


# filter and half its support (ATen's interp_size / 2) per antialiased mode
_AA_FILTERS = {"bilinear": (_triangle, 1.0), "bicubic": (_pil_cubic, 2.0), "lanczos": (_lanczos3, 3.0)}


def antialias_matrix(n_out: int, n_in: int, scale: float | None, align_corners: bool, mode: str) -> np.ndarray:
    """ATen's _compute_weights_aa: the mode's filter (triangle, cubic or Lanczos-3), stretched by the scale when
    downsampling, sampled at the input pixels within its support around each output centre, normalised to sum 1."""
    step = _area_scale(n_in, n_out, align_corners, scale)
    filt, half = _AA_FILTERS[mode]
    support = half * step if step >= 1.0 else half
    max_size = int(np.ceil(support)) * 2 + 1
    invscale = 1.0 / step if step >= 1.0 else 1.0
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        center = step * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)  # int() truncates toward zero, as the C++ cast
        size = min(max(min(int(center + support + 0.5), n_in) - lo, 0), max_size)
        w = np.array([filt((j + lo - center + 0.5) * invscale) for j in range(size)])
        total = w.sum()
        m[i, lo:lo + size] = w / total if total != 0.0 else w
    return m
