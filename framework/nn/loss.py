"""Loss modules wrapping nn.functional (reduction='mean'|'sum'|'none')."""
from __future__ import annotations

from . import functional as F
from .losses_more import _legacy_reduction
from .module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        reduction = _legacy_reduction(size_average, reduce, reduction)
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
        self.reduction = reduction


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class BCELoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class NLLLoss(_Loss):
    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)
