"""torch.empty_permuted (a memory order of its own) and torch.frombuffer (a tensor over a Python buffer), against
torch."""
import array

import pytest

import framework
from scenario import outcome

PERMUTED = {
    "channels_last": ((2, 3, 5, 7), (0, 2, 3, 1)),
    "transposed": ((2, 3), (1, 0)),
    "identity": ((4, 2, 3), (0, 1, 2)),
    "reversed_3d": ((2, 3, 4), (2, 1, 0)),
}


@pytest.mark.parametrize("name", sorted(PERMUTED))
def test_empty_permuted_strides_match_torch(name):
    torch = pytest.importorskip("torch")
    size, order = PERMUTED[name]
    outs = []
    for m in (framework, torch):
        e = m.empty_permuted(size, order, dtype=m.float64, device="cpu", requires_grad=True)
        outs.append((tuple(e.shape), e.stride(), e._base is None, e.requires_grad, e.is_leaf,
                     str(e.dtype).split(".")[-1]))
    assert outs[0] == outs[1]


def test_frombuffer_shares_the_buffer_as_torch():
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        buf = bytearray(b"\x00\x00\x80?\x00\x00\x00@\x00\x00@@")
        t = m.frombuffer(buf, dtype=m.float32)
        u = m.frombuffer(buf, dtype=m.int16, count=2, offset=2)
        t[0] = 5.0  # the write reaches the buffer
        a = array.array("d", [1.5, 2.5, 3.5])
        w = m.frombuffer(a, dtype=m.float64, offset=8)
        w.mul_(2)
        outs.append((t.tolist(), u.tolist(), bytes(buf[:4]), list(a), str(t.device), t.requires_grad,
                     m.frombuffer(buf, dtype=m.float32, requires_grad=True).requires_grad))
    assert outs[0] == outs[1]


ERRORS = {
    "empty_buffer": lambda m: m.frombuffer(bytearray(), dtype=m.float32),
    "count_zero": lambda m: m.frombuffer(bytearray(8), dtype=m.float32, count=0),
    "offset_past_end": lambda m: m.frombuffer(bytearray(8), dtype=m.float32, offset=9),
    "not_a_multiple": lambda m: m.frombuffer(bytearray(8), dtype=m.float32, offset=1),
    "count_too_big": lambda m: m.frombuffer(bytearray(8), dtype=m.float32, count=3),
    "permuted_duplicate": lambda m: m.empty_permuted((2, 3), (0, 0)),
    "permuted_rank": lambda m: m.empty_permuted((2, 3), (0,)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    assert outcome(ERRORS[name], framework) == outcome(ERRORS[name], torch)


def test_frombuffer_of_bytes_warns_as_torch_and_reads():
    torch = pytest.importorskip("torch")
    import warnings
    framework.creation._WARNED_READ_ONLY.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = framework.frombuffer(b"abcd", dtype=framework.uint8)
        framework.frombuffer(b"efgh", dtype=framework.uint8)  # once per program, as torch's
    assert t.tolist() == torch.frombuffer(bytearray(b"abcd"), dtype=torch.uint8).tolist()
    assert [str(w.message).split(".")[0] for w in caught] == [
        "The given buffer is not writable, and PyTorch does not support non-writable tensors"]
