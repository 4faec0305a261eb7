"""Window functions (torch.hann_window, hamming, blackman, bartlett, kaiser) for signal processing."""
from __future__ import annotations

import math

import numpy as np

from .creation import empty, full, tensor
from .tensor import Tensor
from .type_info import _dtype_of


def _window(n: int, periodic: bool, dtype, device, values) -> Tensor:
    """A window of length n: ``values(x, N)`` on x = arange(N) in the window's dtype, N = n + 1 when periodic
    (then the last value is dropped); torch's formulas, op for op, in that dtype (host constants: a fixed table)."""
    dtype = _dtype_of(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"window functions expect a floating point dtype, got {dtype}")
    if n == 0:
        return empty(0, dtype=dtype, device=device)
    if n == 1:
        return full((1,), 1.0, dtype=dtype, device=device)
    length = n + 1 if periodic else n
    out = values(np.arange(length, dtype=dtype.np), length)[:n]
    return tensor(out, dtype=dtype, device=device)


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                requires_grad: bool = False) -> Tensor:
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    w = _window(window_length, periodic, dtype, device,
                lambda x, n: np.cos(x * (math.pi * 2.0 / (n - 1))) * -beta + alpha)
    return w.requires_grad_(requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    def values(x, n):
        x = x * (math.pi / (n - 1))
        return np.cos(x * 4) * 0.08 - np.cos(x * 2) * 0.5 + 0.42

    return _window(window_length, periodic, dtype, device, values).requires_grad_(requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    def values(x, n):
        x = x * (2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        x[half:] = x[half:] * -1 + 2
        return x

    return _window(window_length, periodic, dtype, device, values).requires_grad_(requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, device=None,
                  requires_grad: bool = False) -> Tensor:
    def values(x, n):
        alpha = x.dtype.type((n - 1) / 2.0)
        return np.i0(beta * np.sqrt(np.abs(1 - ((x - alpha) / alpha) ** 2))) / np.i0(beta)

    return _window(window_length, periodic, dtype, device, values).requires_grad_(requires_grad)
