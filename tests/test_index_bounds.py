"""Out-of-range indices raise torch's IndexError on every device, checked before the array call (CuPy, and the
strict stand-in, wrap such indices around and would silently read another element)."""
import pytest

import framework
from framework import nn
from framework.nn import functional as F

BAD_INDEXING = [
    ("embedding", lambda m: m.nn.functional.embedding(m.tensor([0, 3]), m.ones(3, 2))),
    ("embedding_negative", lambda m: m.nn.functional.embedding(m.tensor([-1]), m.ones(3, 2))),
    ("index_1d", lambda m: m.ones(3, 4)[m.tensor([5])]),
    ("index_negative", lambda m: m.ones(3, 4)[m.tensor([-4])]),
    ("index_2d", lambda m: m.ones(3, 4)[[0, 1], [2, 9]]),
    ("index_after_slice", lambda m: m.ones(2, 3, 4)[:, :, [9]]),
    ("index_after_ellipsis", lambda m: m.ones(2, 3, 4)[..., [9]]),
    ("index_int_then_list", lambda m: m.ones(2, 3, 4)[0, [5]]),
    ("index_put", lambda m: m.ones(3).__setitem__(m.tensor([7]), 1.0)),
    ("cross_entropy_target", lambda m: m.nn.functional.cross_entropy(m.zeros(2, 3), m.tensor([0, 5]))),
    ("index_select_dim0", lambda m: m.zeros(2, 3).index_select(0, m.tensor([-1]))),
    ("index_select_last_dim", lambda m: m.zeros(2, 3, 4).index_select(2, m.tensor([7]))),
    ("nll_loss_target", lambda m: m.nn.functional.nll_loss(m.zeros(2, 3), m.tensor([-2, 0]))),
]


BAD_GATHERING = [  # torch raises RuntimeError for these
    ("gather", lambda m: m.zeros(2, 3).gather(1, m.tensor([[0, 5], [1, 2]]))),
    ("gather_negative", lambda m: m.zeros(2, 3).gather(1, m.tensor([[0, -1], [1, 2]]))),
    ("scatter", lambda m: m.zeros(2, 3).scatter(1, m.tensor([[0, 5], [1, 2]]), 1.0)),
    ("scatter_add", lambda m: m.zeros(2, 3).scatter_add(0, m.tensor([[0, 2]]), m.ones(1, 2))),
    ("index_select", lambda m: m.zeros(2, 3).index_select(1, m.tensor([4]))),
    ("index_select_3d", lambda m: m.zeros(2, 3, 4).index_select(1, m.tensor([7]))),
]


def _error(fn, m, kind=IndexError):
    with pytest.raises(kind) as info:
        fn(m)
    return str(info.value).split("\n")[0]


@pytest.mark.parametrize("fn", [f for _, f in BAD_GATHERING], ids=[n for n, _ in BAD_GATHERING])
def test_out_of_range_gather_index_raises_torchs_error(fn, device, torch):
    assert _error(fn, framework, RuntimeError) == _error(fn, torch, RuntimeError)


@pytest.mark.parametrize("fn", [f for _, f in BAD_INDEXING], ids=[n for n, _ in BAD_INDEXING])
def test_out_of_range_index_raises_torchs_index_error(fn, device, torch):
    assert framework.ones(1).device == device  # the test device is the default device here
    assert _error(fn, framework) == _error(fn, torch)


def test_out_of_range_messages_without_torch(device):
    with pytest.raises(IndexError, match="^index out of range in self$"):
        nn.Embedding(3, 2)(framework.tensor([[0, 1], [2, 3]]))
    with pytest.raises(IndexError, match="^index 9 is out of bounds for dimension 1 with size 4$"):
        framework.ones(3, 4)[[0, 1], [2, 9]]
    with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
        F.cross_entropy(framework.zeros(2, 3), framework.tensor([0, 5]))


def test_in_range_indices_still_work(device):
    w = framework.arange(6.0).reshape(3, 2)
    assert F.embedding(framework.tensor([2, 0]), w).tolist() == [[4.0, 5.0], [0.0, 1.0]]
    assert framework.arange(4.0)[framework.tensor([-1, 0])].tolist() == [3.0, 0.0]
    ignored = F.cross_entropy(framework.zeros(2, 3), framework.tensor([-100, 2]))  # ignore_index is not a bound
    assert abs(ignored.item() - 1.0986123) < 1e-6
