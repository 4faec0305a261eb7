"""Weights and inputs every contender starts from (numpy arrays from one seeded generator)."""
from __future__ import annotations

import numpy as np


def linear_weights(sizes: list[int], seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """(W (out, in), b (out,)) per layer, torch's default init distribution, float32."""
    rng = np.random.default_rng(seed)
    out = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(a)
        out.append((rng.uniform(-bound, bound, (b, a)).astype(np.float32),
                    rng.uniform(-bound, bound, b).astype(np.float32)))
    return out


def load_into(model_linears, weights, to_tensor) -> None:
    """Copy (W, b) pairs into a list of Linear modules (framework or torch)."""
    for lin, (w, b) in zip(model_linears, weights):
        lin.weight.data = to_tensor(w.copy())
        lin.bias.data = to_tensor(b.copy())
