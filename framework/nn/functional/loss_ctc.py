"""Connectionist temporal classification loss (F.ctc_loss): argument checks as torch's, then the CTC op of framework/ops/loss/ctc.py."""
from __future__ import annotations

from typing import Sequence
from typing import Union

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...ops._util import scalar_type_name
from ...ops.loss import CtcLoss
from ... import backend, creation, ops
from ...tensor import Tensor


Lengths = Union[Tensor, Sequence[int]]


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


_WHERE = "(while checking arguments for ctc_loss_allocate_outputs)"


def _is_int_list(x) -> bool:
    return isinstance(x, (tuple, list)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                for v in x)


def _check_signature(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity) -> None:
    """torch's argument parser: tensors, then both lengths as tensors or both as sequences of ints."""
    lengths_ok = (isinstance(input_lengths, Tensor) and isinstance(target_lengths, Tensor)) or \
        (_is_int_list(input_lengths) and _is_int_list(target_lengths))
    scalars_ok = isinstance(blank, (int, np.integer)) and isinstance(reduction, int) and \
        isinstance(zero_infinity, bool)
    if isinstance(log_probs, Tensor) and isinstance(targets, Tensor) and lengths_ok and scalars_ok:
        return
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__
                    for a in (log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity))
    raise TypeError(f"ctc_loss() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    " * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, "
                    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n"
                    " * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, "
                    "int reduction = at::Reduction::Mean, bool zero_infinity = False)\n\n"
                    "Pass log_probs and targets as tensors and the two lengths either both as integer tensors or both "
                    "as tuples (or lists) of ints.")


def _host_lengths(lengths: Lengths, name: str) -> np.ndarray:
    """The lengths as int64 on the host, as torch reads them (a tensor's values leave the device here: under
    framework.compile that is a graph break, which tuples of ints avoid)."""
    if isinstance(lengths, Tensor):
        if lengths.dtype.is_floating_point or lengths.dtype.np.kind not in "iu":
            raise RuntimeError(f"{name} must be integral\n\nThe lengths count time steps and labels: pass an "
                               f"integer tensor (got {lengths.dtype}) or a tuple of ints.")
        return backend.to_numpy(lengths._array).reshape(-1).astype(np.int64)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def _check_lengths(targets: Tensor, batch: int, in_lens: np.ndarray, tgt_lens: np.ndarray, steps: int) -> None:
    """ctc_loss_allocate_outputs' checks of the lengths against the targets and the input, in its order."""
    if len(in_lens) != batch:
        raise RuntimeError(f"input_lengths must be of size batch_size\n\nlog_probs holds {batch} sequences (dim 1); "
                           f"got {len(in_lens)} input lengths.")
    if len(tgt_lens) != batch:
        raise RuntimeError(f"target_lengths must be of size batch_size\n\nlog_probs holds {batch} sequences (dim 1); "
                           f"got {len(tgt_lens)} target lengths.")
    for v in tgt_lens:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {v} {_WHERE}")
    if targets.ndim == 1 and targets.shape[0] != int(tgt_lens.sum()):
        raise RuntimeError(f"Expected tensor to have size {int(tgt_lens.sum())} at dimension 0, but got size "
                           f"{targets.shape[0]} for argument #2 'targets' {_WHERE}")
    if targets.ndim == 2:
        if targets.shape[0] != batch:
            raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size {targets.shape[0]} "
                               f"for argument #2 'targets' {_WHERE}")
        longest = int(tgt_lens.max(initial=0))
        if targets.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets' {_WHERE}")
    for v in in_lens:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v} {_WHERE}")
        if v > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {v} {_WHERE}")


def _ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Lengths, target_lengths: Lengths, blank: int,
              reduction: int, zero_infinity: bool) -> Tensor:
    """torch.ctc_loss with ATen's integer reduction (0 none, 1 mean, 2 sum)."""
    _check_signature(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
    in_lens, tgt_lens = _host_lengths(input_lengths, "input_lengths"), _host_lengths(target_lengths, "target_lengths")
    batched = log_probs.ndim == 3
    if log_probs.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    lp = log_probs if batched else log_probs.unsqueeze(1)  # unbatched (T, C): a batch of one
    if not lp.dtype.is_floating_point or lp.dtype.np.itemsize < 4:  # aten's kernels: float and double only
        kernel = "ctc_loss_cpu" if lp.device == "cpu" else "ctc_loss_cuda"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(lp.dtype.np)}'\n\n"
                                  "CTC runs in float32 or float64: pass log_probs.float() (or .double()).")
    if lp.numel() == 0:
        raise RuntimeError(f"log_probs tensor must not be empty\n\nGot log_probs of shape {tuple(lp.shape)}: it needs "
                           "at least one time step, one sequence and one class.")
    if lp.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.ndim}-dimensional tensor for argument #1 "
                           f"'log_probs' {_WHERE}")
    if targets.ndim not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional tensor for argument #2 "
                           f"'targets' {_WHERE}")
    if not 0 <= blank < lp.shape[2]:
        raise RuntimeError(f"blank must be in label range\n\nblank is the index of the blank class in log_probs' "
                           f"last dimension, which has {lp.shape[2]} classes; got blank={blank}.")
    _check_lengths(targets, lp.shape[1], in_lens, tgt_lens, lp.shape[0])
    # torch moves the targets to log_probs' device as int64 (float targets are truncated)
    tg = targets if targets.dtype.np == np.int64 else targets.long()
    tg = tg if tg.device == lp.device else tg.to(lp.device)
    res = CtcLoss.apply(lp, tg, in_lens, tgt_lens, int(blank), zero_infinity)
    if zero_infinity:
        res = ops.where(res == float("inf"), creation.zeros((), dtype=res.dtype, device=res.device), res)
    if reduction == 1:
        clamped = creation.tensor(np.maximum(tgt_lens, 1), dtype=res.dtype, device=res.device)
        return (res / clamped).mean()
    if reduction == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Lengths, target_lengths: Lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """torch.nn.functional.ctc_loss: the negative log-likelihood of each target under the alignments of
    log_probs (T, N, C) or (T, C); targets (N, S) padded or 1-D concatenated; lengths as tensors or int tuples.
    'mean' divides each loss by its target length (at least 1), then averages over the batch."""
    if _amp.on and autocast_applies("ctc_loss", log_probs, targets, input_lengths, target_lengths):
        return autocast_run("ctc_loss", ctc_loss, log_probs, targets, input_lengths, target_lengths, blank,
                            reduction, zero_infinity)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _REDUCTIONS[reduction],
                     zero_infinity)
