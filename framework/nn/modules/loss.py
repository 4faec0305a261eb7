"""Losses (torch.nn.modules.loss): the same objects as framework.nn."""
from ..loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss  # noqa: F401
from ..losses_more import (CosineEmbeddingLoss, HuberLoss, KLDivLoss, MarginRankingLoss,  # noqa: F401
                           SmoothL1Loss, TripletMarginLoss)

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss", "HuberLoss", "KLDivLoss",
           "L1Loss", "MSELoss", "MarginRankingLoss", "NLLLoss", "SmoothL1Loss", "TripletMarginLoss"]
