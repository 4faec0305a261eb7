"""Distance functions of torch.nn.functional: cosine_similarity, pairwise_distance."""
from __future__ import annotations

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ... import ops
from ...ops import pdist  # noqa: F401  (F.pdist is torch.pdist)
from ...ops import scalar_ops as _scalar
from ...ops.linalg.norms import AtenNorm
from ...tensor import Tensor


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps)) along dim, as torch's ATen formula."""
    if _amp.on and autocast_applies("cosine_similarity", x1, x2, dim, eps):
        return autocast_run("cosine_similarity", cosine_similarity, x1, x2, dim, eps)
    shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))  # torch broadcasts before taking norms
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    n1 = x1.norm(dim=dim, keepdim=True).clamp(min=eps)
    n2 = x2.norm(dim=dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim=dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """|x1 - x2 + eps|_p over the last dim, as torch's C++: at::norm (NormBackward1) of the Scalar add
    (AddBackward1)."""
    diff = x1 - x2
    # (an integer difference promotes through the Tensor add, as torch's wrapped eps does)
    shifted = _scalar.AddScalar.apply(diff, eps) if diff.is_floating_point() else diff + eps
    if shifted.dim() == 0:  # torch's norm over dim -1 of a 0-d tensor: the tensor's own
        return ops.norm(shifted, p=p, dim=-1, keepdim=keepdim)
    return AtenNorm.apply(shifted, float(p), (shifted.dim() - 1,), keepdim)
