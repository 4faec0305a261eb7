"""Dropout layers (torch.nn.modules.dropout): Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout."""
from __future__ import annotations

from ...ops.dropout import dropout1d, dropout2d
from ...ops import dropout as D
from ...tensor import Tensor
from .. import functional as F
from .module import Module


class Dropout(Module):
    """Zero each element with probability p in training (scaling the rest by 1/(1-p)); identity in eval."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    """Zero whole channels of (N, C, L) / (C, L) inputs with probability p in training."""

    def forward(self, input):
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zero whole channels of (N, C, H, W) / (C, H, W) inputs with probability p in training."""

    def forward(self, input):
        return dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zero whole channels of (N, C, D, H, W) / (C, D, H, W) inputs with probability p in training."""

    def forward(self, input: Tensor) -> Tensor:
        return D.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Alpha dropout (for SELU networks): keeps the input's mean and variance."""

    def forward(self, input: Tensor) -> Tensor:
        return D.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels."""

    def forward(self, input: Tensor) -> Tensor:
        return D.feature_alpha_dropout(input, self.p, self.training)


__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]
