"""Losses (torch.nn.modules.loss): the same objects as framework.nn."""
from ..loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss  # noqa: F401
from ..losses_more import (CosineEmbeddingLoss, HuberLoss, KLDivLoss, MarginRankingLoss,  # noqa: F401
                           SmoothL1Loss, TripletMarginLoss)

from ..losses_misc import (GaussianNLLLoss, HingeEmbeddingLoss, MultiLabelMarginLoss,  # noqa: F401
                          MultiLabelSoftMarginLoss, MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss,
                          TripletMarginWithDistanceLoss)
from ..losses_ctc import CTCLoss  # noqa: F401

__all__ = ["CTCLoss", "BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss", "HuberLoss", "KLDivLoss",
           "L1Loss", "MSELoss", "MarginRankingLoss", "NLLLoss", "SmoothL1Loss", "TripletMarginLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginWithDistanceLoss"]
