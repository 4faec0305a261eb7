"""torch's top-level forms of losses (ATen's argument order and integer reduction), recurrent cells, the deprecated
frobenius_norm / nuclear_norm and trapz: values, gradients and node names against torch; float64 gradchecks."""
import warnings

import numpy as np
import pytest

import framework
from framework.testing import gradcheck
from scenario import outcome

_rng = np.random.default_rng(0)
_A, _B = _rng.standard_normal((4, 3)), _rng.standard_normal((4, 3))
_T, _S = _rng.uniform(0, 1, (4, 3)), np.sign(_rng.standard_normal(4))

CASES = {
    "bce_logits": lambda m, x, y: m.binary_cross_entropy_with_logits(x, m.tensor(_T, dtype=x.dtype)),
    "bce_logits_weight_mean": lambda m, x, y: m.binary_cross_entropy_with_logits(
        x, m.tensor(_T, dtype=x.dtype), m.tensor([0.5, 2.0, 1.0], dtype=x.dtype), None, 1),
    "bce_logits_pos_weight_sum": lambda m, x, y: m.binary_cross_entropy_with_logits(
        x, m.tensor(_T, dtype=x.dtype), pos_weight=m.tensor([1.0, 2.0, 0.5], dtype=x.dtype), reduction=2),
    "kl_div_sum": lambda m, x, y: m.kl_div(x, m.tensor(_T, dtype=x.dtype), 2),
    "kl_div_log_target": lambda m, x, y: m.kl_div(x, y, 1, log_target=True),
    "kl_div_other_int_is_none": lambda m, x, y: m.kl_div(x, m.tensor(_T, dtype=x.dtype), 5),
    "cosine_embedding": lambda m, x, y: m.cosine_embedding_loss(x, y, m.tensor(_S, dtype=x.dtype)),
    "hinge_embedding_sum": lambda m, x, y: m.hinge_embedding_loss(x, m.tensor(np.sign(_T - 0.5), dtype=x.dtype),
                                                                  0.5, 2),
    "margin_ranking": lambda m, x, y: m.margin_ranking_loss(x[:, 0], y[:, 0], m.tensor(_S, dtype=x.dtype), 0.1),
    "triplet_margin_swap_mean": lambda m, x, y: m.triplet_margin_loss(x, y, y * 2, 1.0, 2, 1e-6, True, 1),
    "poisson_nll_full": lambda m, x, y: m.poisson_nll_loss(x, m.tensor(_T, dtype=x.dtype), True, True, 1e-8, 1),
    "poisson_nll_linear": lambda m, x, y: m.poisson_nll_loss(x.abs() + 0.1, m.tensor(_T, dtype=x.dtype), False,
                                                             False, 1e-8, 0),
    "frobenius_norm": lambda m, x, y: m.frobenius_norm(x, (0, 1)),
    "frobenius_norm_dim_keepdim": lambda m, x, y: m.frobenius_norm(x, (1,), True),
    "nuclear_norm": lambda m, x, y: m.nuclear_norm(x),
    "nuclear_norm_keepdim": lambda m, x, y: m.nuclear_norm(x, True),
    "nuclear_norm_dim": lambda m, x, y: m.nuclear_norm(x.view(1, 4, 3), (1, 2)),
    "pdist": lambda m, x, y: m.pdist(x),
    "pdist_p1": lambda m, x, y: m.pdist(y, 1),
    "pdist_p3_5": lambda m, x, y: m.pdist(x.t() * 1, 3.5),
    "pdist_inf_functional": lambda m, x, y: m.nn.functional.pdist(x, float("inf")),
    "trapz": lambda m, x, y: m.trapz(x),
    "trapz_x": lambda m, x, y: m.trapz(x, y),
    "trapz_dx": lambda m, x, y: m.trapz(x, dx=0.5, dim=0),
    "rnn_tanh_cell": lambda m, x, y: m.rnn_tanh_cell(x[:2], y[:2, :2], y[:2] * 1, y[2:, :2], y[0, :2], None),
    "rnn_relu_cell": lambda m, x, y: m.rnn_relu_cell(x[:2], y[:2, :2], y[:2] * 1, y[2:, :2]),
    "lstm_cell_h": lambda m, x, y: m.lstm_cell(x[:2, :2], [y[:2, :1], y[2:, :1]], x[:, 1:3], y[:, :1], x[:, 0],
                                               y[:, 2])[0],
    "lstm_cell_c": lambda m, x, y: m.lstm_cell(x[:2, :2], (y[:2, :1], y[2:, :1]), x[:, 1:3], y[:, :1])[1],
    "gru_cell": lambda m, x, y: m.gru_cell(x[:1, :2], y[:1, :1], x[:3, 1:3], y[:3, :1], x[:3, 0], y[:3, 2]),
}


def _run(m, name):
    x = m.tensor(_A, dtype=m.float64, requires_grad=True)
    y = m.tensor(_B, dtype=m.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = CASES[name](m, x, y)
    (r * r).sum().backward()
    grads = [None if t.grad is None else t.grad.tolist() for t in (x, y)]
    return r.grad_fn.name(), tuple(r.shape), r.tolist(), grads


@pytest.mark.parametrize("name", sorted(CASES))
def test_top_level_form_matches_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(framework, name), _run(torch, name)
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-10, atol=1e-12)
    for g, h in zip(ours[3], theirs[3]):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_top_level_form_gradcheck(name):
    x = framework.tensor(_A, requires_grad=True)
    y = framework.tensor(_B, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda a, b: CASES[name](framework, a, b), [x, y])


def _warnings(fn, m):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(m)
    return [(w.category, str(w.message).split(" (Triggered")[0]) for w in caught]


@pytest.mark.parametrize("which", ["frobenius", "nuclear"])
def test_the_deprecated_norms_warn_once_or_always_as_torch(which):
    torch = pytest.importorskip("torch")
    fn = (lambda m: m.frobenius_norm(m.ones(2, 2), (0, 1))) if which == "frobenius" else \
        (lambda m: m.nuclear_norm(m.ones(2, 2)))
    seen = []
    for m in (framework, torch):
        _warnings(fn, m)  # the once-per-process warning is given by now
        quiet = _warnings(fn, m)
        m.set_warn_always(True)
        try:
            loud = [_warnings(fn, m), _warnings(fn, m)]
        finally:
            m.set_warn_always(False)
        seen.append((quiet, loud))
    assert seen[0] == seen[1]
    assert seen[0][0] == [] and len(seen[0][1][1]) == 1


def test_lstm_cell_returns_a_pair_and_gru_cell_a_tensor_as_torch():
    torch = pytest.importorskip("torch")
    kinds = []
    for m in (framework, torch):
        x, h = m.ones(2, 3), m.zeros(2, 4)
        lstm = m.lstm_cell(x, (h, h), m.ones(16, 3), m.ones(16, 4))
        gru = m.gru_cell(x, h, m.ones(12, 3), m.ones(12, 4))
        kinds.append((type(lstm).__name__, len(lstm), isinstance(gru, m.Tensor)))
    assert kinds[0] == kinds[1]


def test_pdist_of_equal_rows_and_its_second_derivative_as_torch():
    torch = pytest.importorskip("torch")
    a = _A.copy()
    a[3] = a[1]  # a zero distance: torch's gradient there is 0
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, dtype=m.float64, requires_grad=True)
        d = m.pdist(x)
        (g,) = m.autograd.grad((d * m.arange(6.0, dtype=m.float64)).sum(), x, create_graph=True)
        outs.append((np.round(g.tolist(), 10).tolist(), g.grad_fn.name(), outcome(lambda _: g.sum().backward(), m)))
    assert outs[0] == outs[1]


ERRORS = {
    "pdist_3d": lambda m: m.pdist(m.ones(2, 2, 2)),
    "pdist_negative_p": lambda m: m.pdist(m.ones(3, 2), -1),
    "pdist_int": lambda m: m.pdist(m.ones(3, 2, dtype=m.int64)),
    "reduction_str": lambda m: m.kl_div(m.ones(2), m.ones(2), reduction="mean"),
    "bce_reduction_float": lambda m: m.binary_cross_entropy_with_logits(m.ones(2), m.ones(2), reduction=1.0),
    "bce_grad_pos_weight": lambda m: m.binary_cross_entropy_with_logits(m.ones(2), m.ones(2), None,
                                                                        m.ones(2, requires_grad=True)),
    "poisson_missing_args": lambda m: m.poisson_nll_loss(m.ones(2), m.ones(2)),
    "bce_grad_weight": lambda m: m.binary_cross_entropy_with_logits(m.ones(2), m.ones(2),
                                                                    m.ones(2, requires_grad=True)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = outcome(ERRORS[name], framework), outcome(ERRORS[name], torch)
    if name == "poisson_missing_args":  # Python's own message names the function and the missing arguments
        assert ours[:2] == theirs[:2] == ("error", "TypeError")
    else:
        assert ours == theirs
