"""nn.utils.rnn (PackedSequence, pack/pad helpers) and the recurrent layers on packed input, against torch: the
packed layout, lengths and orders, errors, and an RNN/LSTM/GRU's outputs, final states and gradients for sequences
of different lengths (padding must not reach the states)."""
import numpy as np
import pytest

import framework

torch = pytest.importorskip("torch")
from torch.nn.utils import rnn as trnn  # noqa: E402

from framework.nn.utils import rnn as frnn  # noqa: E402


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("lengths,enforce", [([4, 3, 2], True), ([4, 2, 3], False), ([1, 4, 4], False)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_pad_round_trip_as_torch(lengths, enforce, batch_first):
    x = np.random.default_rng(0).standard_normal((3, 4, 2) if batch_first else (4, 3, 2))
    outs = []
    for m, R in ((framework, frnn), (torch, trnn)):
        xt = m.tensor(x, requires_grad=True)
        packed = R.pack_padded_sequence(xt, lengths, batch_first=batch_first, enforce_sorted=enforce)
        padded, lens = R.pad_packed_sequence(packed, batch_first=batch_first, padding_value=-1.0, total_length=5)
        (padded * padded).sum().backward()
        outs.append((_np(packed.data), packed.batch_sizes.tolist(),
                     None if packed.sorted_indices is None else packed.sorted_indices.tolist(),
                     None if packed.unsorted_indices is None else packed.unsorted_indices.tolist(),
                     _np(padded), lens.tolist(), str(lens.dtype).split(".")[-1], _np(xt.grad)))
    for o, t in zip(outs[0], outs[1]):
        if isinstance(o, np.ndarray):
            np.testing.assert_array_equal(o, t)
        else:
            assert o == t


def test_pad_pack_unpad_unpack_sequences_as_torch():
    seqs = [np.arange(3.0), np.arange(5.0), np.arange(2.0) + 10]
    for m, R in ((framework, frnn), (torch, trnn)):
        ts = [m.tensor(s) for s in seqs]
        right = R.pad_sequence(ts, batch_first=True, padding_value=-1)
        left = R.pad_sequence(ts, padding_side="left")
        packed = R.pack_sequence(ts, enforce_sorted=False)
        back = [t.tolist() for t in R.unpack_sequence(packed)]
        unpadded = [t.tolist() for t in R.unpad_sequence(right, m.tensor([3, 5, 2]), batch_first=True)]
        result = (right.tolist(), left.tolist(), packed.batch_sizes.tolist(), back, unpadded)
        if m is framework:
            ours = result
    assert ours == result
    assert ours[3] == [s.tolist() for s in seqs]


def test_packing_errors_match_torch():
    cases = [lambda m, R: R.pack_padded_sequence(m.zeros(4, 3, 2), [2, 4, 3]),
             lambda m, R: R.pack_padded_sequence(m.zeros(4, 3, 2), [4, 0, 3], enforce_sorted=False),
             lambda m, R: R.pad_packed_sequence(R.pack_padded_sequence(m.zeros(4, 2, 1), [4, 3]), total_length=2),
             lambda m, R: R.pad_sequence([m.zeros(2)], padding_side="middle")]
    for fn in cases:
        errors = []
        for m, R in ((framework, frnn), (torch, trnn)):
            with pytest.raises((RuntimeError, ValueError)) as e:
                fn(m, R)
            errors.append((type(e.value).__name__, str(e.value)))
        assert errors[0] == errors[1]


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("with_hx", [False, True])
def test_recurrent_layers_on_packed_sequences_match_torch(cls, bidirectional, with_hx):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 3, 2))
    lengths = [5, 2, 4]
    directions = 2 if bidirectional else 1
    h0 = rng.standard_normal((2 * directions, 3, 3))
    torch.manual_seed(0)
    tnet = getattr(torch.nn, cls)(2, 3, num_layers=2, bidirectional=bidirectional).double()
    fnet = getattr(framework.nn, cls)(2, 3, num_layers=2, bidirectional=bidirectional).double()
    fnet.load_state_dict({k: framework.tensor(_np(v)) for k, v in tnet.state_dict().items()})
    outs = []
    for m, R, net in ((framework, frnn, fnet), (torch, trnn, tnet)):
        xt = m.tensor(x, requires_grad=True)
        hx = None
        if with_hx:
            h = m.tensor(h0, requires_grad=True)
            hx = (h, h * 0.5) if cls == "LSTM" else h
        out, state = net(R.pack_padded_sequence(xt, lengths, enforce_sorted=False), hx)
        padded, _ = R.pad_packed_sequence(out)
        h_n = state[0] if cls == "LSTM" else state
        (padded.sum() + (h_n * h_n).sum()).backward()
        outs.append((type(out).__name__, out.batch_sizes.tolist(), _np(padded), _np(h_n), _np(xt.grad),
                     None if not with_hx else _np(h.grad)))
    assert outs[0][:2] == outs[1][:2]
    for o, t in zip(outs[0][2:], outs[1][2:]):
        if t is not None:
            np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)
