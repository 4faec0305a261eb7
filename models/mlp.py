"""MLP(sizes, activation, inplace): Linear layers with an activation between them."""
from __future__ import annotations

from framework import nn

_ACTIVATIONS = {"relu": nn.ReLU, "leaky_relu": lambda inplace=False: nn.LeakyReLU(0.2, inplace=inplace),
                "tanh": lambda inplace=False: nn.Tanh(), "gelu": lambda inplace=False: nn.GELU()}


class MLP(nn.Sequential):
    """sizes=[in, h1, ..., out]: Linear -> activation -> ... -> Linear (no activation at the end)."""

    def __init__(self, sizes: list[int], activation: str = "relu", inplace: bool = False) -> None:
        if len(sizes) < 2:
            raise ValueError("MLP needs at least an input and an output size")
        if activation not in _ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; choose from {sorted(_ACTIVATIONS)}")
        layers = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(nn.Linear(a, b))
            if i < len(sizes) - 2:
                make = _ACTIVATIONS[activation]
                layers.append(make(inplace=inplace) if activation in ("relu", "leaky_relu") else make())
        super().__init__(*layers)
