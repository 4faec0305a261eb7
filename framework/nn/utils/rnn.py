"""torch.nn.utils.rnn: padding and packing variable-length sequences (PackedSequence, pack_padded_sequence,
pad_packed_sequence, pad_sequence, pack_sequence, unpad_sequence, unpack_sequence).

A PackedSequence holds, time step by time step, only the rows of the sequences still running at that step
(sorted by decreasing length): ``data`` (sum(lengths), *) and ``batch_sizes`` (how many rows each step has).
The recurrent layers accept one (nn/modules/rnn.py): each step updates only its running rows, so padding never reaches
the hidden state. Packing and unpacking are compositions of differentiable ops (index_select, slicing, cat), so
gradients flow through both.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ... import creation, ops
from ...tensor import Tensor

_Packed = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_Packed):
    """(data, batch_sizes, sorted_indices, unsorted_indices), as torch's; build one with pack_padded_sequence."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> "PackedSequence":
        return type(self)(self.data.to(*args, **kwargs), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def _invert(permutation: Tensor) -> Tensor:
    host = permutation.detach().cpu().numpy()
    out = np.empty_like(host)
    out[host] = np.arange(host.size)
    return creation.tensor(out, dtype=permutation.dtype)


def _lengths(lengths) -> np.ndarray:
    """lengths as a host int64 array (torch takes a list or a CPU int64 tensor)."""
    if isinstance(lengths, Tensor):
        return lengths.detach().cpu().numpy().astype(np.int64).reshape(-1)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (T, B, *) (or (B, T, *) with batch_first) whose sequences have ``lengths``."""
    lens = _lengths(lengths)
    if enforce_sorted:
        if np.any(lens[:-1] < lens[1:]):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
        order = np.arange(lens.size)
    else:
        order = np.argsort(-lens, kind="stable")
        sorted_indices = creation.tensor(order)
    if np.any(lens <= 0):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    x = input.transpose(0, 1) if batch_first else input
    if lens.size != x.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lens.size} (batch_size="
                           f"{x.shape[1]})")
    if lens.max() > x.shape[0]:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to the length of the longest "
                           f"sequence, but got {x.shape[0]} and {lens.max()}")
    if sorted_indices is not None:
        x = x.index_select(1, creation.tensor(order).to(x.device))
    sorted_lens = lens[order]
    batch_sizes = np.array([(sorted_lens > t).sum() for t in range(int(sorted_lens[0]))], dtype=np.int64)
    data = ops.cat([x[t, :int(b)] for t, b in enumerate(batch_sizes)], 0)
    return PackedSequence(data, creation.tensor(batch_sizes), sorted_indices,
                          None if sorted_indices is None else _invert(sorted_indices))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None):
    """The padded batch (T, B, *) and the lengths (a CPU int64 tensor) of a PackedSequence, in the original order."""
    data, batch_sizes = sequence.data, sequence.batch_sizes.detach().cpu().numpy()
    steps, batch = len(batch_sizes), int(batch_sizes[0])
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    rows, start = [], 0
    for b in batch_sizes:
        part = data[start:start + int(b)]
        start += int(b)
        if b < batch:  # the finished sequences' rows: padding
            pad = creation.full((batch - int(b),) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                                device=data.device)
            part = ops.cat([part, pad], 0)
        rows.append(part)
    for _ in range(steps - len(batch_sizes)):
        rows.append(creation.full((batch,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                                  device=data.device))
    padded = ops.stack(rows, 0)  # (T, B, *) in the sorted order
    lengths = np.array([(batch_sizes > i).sum() for i in range(batch)], dtype=np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices.to(data.device))
        lengths = lengths[sequence.unsorted_indices.detach().cpu().numpy()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, creation.tensor(lengths)


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack tensors of different lengths (L_i, *) into (L_max, B, *) (or (B, L_max, *)), padding each."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            pad = creation.full((missing,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = ops.cat([s, pad] if padding_side == "right" else [pad, s], 0)
        padded.append(s)
    return ops.stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """pack_padded_sequence of pad_sequence(sequences) with their lengths."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list:
    """The list of sequences (L_i, *) a padded batch holds."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :int(n)] for i, n in enumerate(_lengths(lengths))]


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a PackedSequence holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
