"""PyTorch-exactness of errors found by differential programs (issue 33): class and first line equal torch's for
losses on 0-d inputs, a call whose input is no tensor, and masked_fill_ with a mask of the wrong dtype or shape."""
from __future__ import annotations

import pytest

import framework

torch = pytest.importorskip("torch")

CASES = {
    "nll_loss_0d_input": lambda m: m.nn.functional.nll_loss(m.tensor(1.0), m.tensor(0)),
    "nll_loss_0d_input_1d_target": lambda m: m.nn.functional.nll_loss(m.tensor(1.0), m.tensor([0])),
    "nll_loss_0d_input_none": lambda m: m.nn.functional.nll_loss(m.tensor(1.0), m.tensor(0), reduction="none"),
    "nll_loss_1d_target_too_long": lambda m: m.nn.functional.nll_loss(m.ones(3), m.tensor([0, 1])),
    "nll_loss_1d_int32_target": lambda m: m.nn.functional.nll_loss(m.ones(3), m.tensor([0, 1], dtype=m.int32)),
    "cross_entropy_0d_int_target": lambda m: m.nn.functional.cross_entropy(m.tensor(1.0), m.tensor(1)),
    "cross_entropy_0d_float_target": lambda m: m.nn.functional.cross_entropy(m.tensor(1.0), m.tensor(0.5)),
    "cross_entropy_0d_index_target": lambda m: m.nn.functional.cross_entropy(m.tensor(1.0), m.tensor([0])),
    "cross_entropy_int_probabilities": lambda m: m.nn.functional.cross_entropy(m.ones(2, 3),
                                                                               m.ones(2, 3, dtype=m.long)),
    "cross_entropy_probabilities_ignore_index": lambda m: m.nn.functional.cross_entropy(m.ones(2, 3), m.ones(2, 3),
                                                                                        ignore_index=1),
    "max_none_dim": lambda m: m.max(None, 1),
    "max_none": lambda m: m.max(None),
    "min_none_dim_keepdim": lambda m: m.min(None, 1, True),
    "max_float_dim": lambda m: m.max(1.5, 1),
    "sum_none": lambda m: m.sum(None),
    "sum_none_dim": lambda m: m.sum(None, 1),
    "mean_none": lambda m: m.mean(None),
    "prod_list": lambda m: m.prod([1.0, 2.0]),
    "masked_fill__0d_target": lambda m: m.tensor(1.0).masked_fill_(m.tensor([True, False]), 2.0),
    "masked_fill__larger_mask": lambda m: m.ones(3).masked_fill_(m.ones(2, 3, dtype=m.bool), 2.0),
    "masked_fill__larger_mask_tensor_value": lambda m: m.ones(3).masked_fill_(m.ones(2, 3, dtype=m.bool),
                                                                              m.tensor(2.0)),
    "masked_fill__nonleaf_larger_mask": lambda m: m.ones(3, requires_grad=True).clone().masked_fill_(
        m.ones(2, 3, dtype=m.bool), 2.0),
    "masked_fill__mismatch": lambda m: m.ones(3).masked_fill_(m.ones(4, dtype=m.bool), 2.0),
    "masked_fill__float_mask": lambda m: m.ones(3).masked_fill_(m.ones(2, 3), 2.0),
    "masked_fill_long_mask": lambda m: m.ones(3).masked_fill(m.ones(3, dtype=m.long), 2.0),
    "argmin_none_empty": lambda m: m.ones(0, 3).argmin(None),
    "argmax_none_empty": lambda m: m.ones(2, 0).argmax(dim=None, keepdim=True),
    "amax_none_empty": lambda m: m.ones(0, 3).amax(dim=None),
    "index_put_mask_shape": lambda m: m.ones(2, 3).__setitem__(m.ones(2, 3, dtype=m.bool), m.ones(2, 3)),
    "masked_fill__leaf_first": lambda m: m.ones(3, requires_grad=True).masked_fill_(m.ones(2, 3, dtype=m.bool), 2.0),
}


def _error(m, fn):
    try:
        fn(m)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e).split("\n")[0].replace("framework.", "torch.")
    return "no error", ""


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_matches_torch(name):
    expected = _error(torch, CASES[name])
    assert expected[0] != "no error"
    assert _error(framework, CASES[name]) == expected


def test_masked_fill__that_broadcasts_still_writes():
    x = framework.ones(2, 3)
    x.masked_fill_(framework.tensor([True, False, True]), 0.0)
    assert x.sum().item() == 2.0 and x._version == 1
