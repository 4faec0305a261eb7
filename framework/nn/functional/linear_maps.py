"""F.bilinear: a bilinear map of two inputs (F.linear itself is the op in framework/ops/linalg)."""
from __future__ import annotations

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...ops._util import c_type_name
from ...ops.linalg.products import Trilinear
from ...tensor import Tensor


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] (+ bias[o])."""
    if _amp.on and autocast_applies("bilinear", input1, input2, weight, bias):
        return autocast_run("bilinear", bilinear, input1, input2, weight, bias)
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + ([("bias", bias)] if bias is not None
                                                                          else [])
    if len({t._array.dtype for _, t in named}) > 1:  # torch checks the dtypes first, naming them as C++ does
        got = ", ".join(f"{n}: {c_type_name(t._array.dtype)}" for n, t in named)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    o, i, j = weight.shape
    batch = tuple(input1.shape[:-1])
    x1, x2 = input1.reshape(-1, i), input2.reshape(-1, j)
    # torch's one _trilinear node: x1 (N, i) and x2 (N, j) against weight (o, i, j), summed over i and j
    out = Trilinear.apply(x1, weight, x2, (1, 3), (0,), (1, 2), (2, 3)).reshape(batch + (o,))
    return out + bias if bias is not None else out
