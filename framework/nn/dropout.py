"""Channel-wise dropout modules: Dropout1d (N, C, L) and Dropout2d (N, C, H, W)."""
from __future__ import annotations

from .activation import Dropout
from ..ops.dropout import dropout1d, dropout2d


class Dropout1d(Dropout):
    """Zero whole channels of (N, C, L) / (C, L) inputs with probability p in training."""

    def forward(self, input):
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zero whole channels of (N, C, H, W) / (C, H, W) inputs with probability p in training."""

    def forward(self, input):
        return dropout2d(input, self.p, self.training, self.inplace)
