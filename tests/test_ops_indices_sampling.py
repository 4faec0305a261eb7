"""Ops added for real PyTorch scripts, beyond the op table: einsum vs torch, indices, sampling, errors."""
import numpy as np
import pytest

import framework
from framework.testing import assert_close
from op_table import EINSUM_OPS

torch = pytest.importorskip("torch")


def _run(m, case, arrays):
    xs = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
    out = case.fn(m, *xs)
    out.backward(m.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape))))
    return out, [x.grad for x in xs]


@pytest.mark.parametrize("case", EINSUM_OPS, ids=[c.name for c in EINSUM_OPS])
def test_einsum_values_and_grads_match_torch(case):
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-2, 2, size=s) for s in case.shapes]
    out, grads = _run(framework, case, arrays)
    t_out, t_grads = _run(torch, case, arrays)
    assert_close(out.detach(), t_out.detach().cpu().numpy(), rtol=1e-10, atol=1e-10)
    for g, tg in zip(grads, t_grads):
        assert_close(g, tg.cpu().numpy(), rtol=1e-10, atol=1e-10)


def test_embedding_padding_row_gets_no_gradient_like_torch():
    w = np.random.default_rng(0).standard_normal((5, 3))
    idx = [[0, 4, 1], [4, 4, 2]]
    grads = []
    for m in (framework, torch):
        wt = m.tensor(w, requires_grad=True)
        out = m.nn.functional.embedding(m.tensor(idx), wt, padding_idx=-1)
        (out * out).sum().backward()
        grads.append(wt.grad.cpu().numpy())
    assert_close(framework.tensor(grads[0]), grads[1])
    assert (grads[0][4] == 0).all() and (grads[0][0] != 0).all()


def test_nn_embedding_padding_idx_zero_row_and_grad():
    emb = framework.nn.Embedding(4, 2, padding_idx=1)
    assert (emb.weight.detach().cpu().numpy()[1] == 0).all()
    emb(framework.tensor([1, 1, 3])).sum().backward()
    assert (emb.weight.grad.cpu().numpy()[1] == 0).all() and (emb.weight.grad.cpu().numpy()[3] == 1).all()


def test_sort_argsort_topk_indices_match_torch():
    a = np.random.default_rng(0).standard_normal((4, 6))
    for kw in ({}, {"descending": True}, {"dim": 0}):
        assert (framework.tensor(a).sort(**kw).indices.cpu().numpy()
                == torch.tensor(a).sort(**kw).indices.cpu().numpy()).all()
        assert (framework.argsort(framework.tensor(a), **kw).cpu().numpy() ==
                torch.argsort(torch.tensor(a), **kw).cpu().numpy()).all()
    for kw in ({"k": 3}, {"k": 2, "dim": 0, "largest": False}):
        assert (framework.tensor(a).topk(**kw).indices.cpu().numpy()
                == torch.tensor(a).topk(**kw).indices.cpu().numpy()).all()
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        framework.tensor(a).topk(7)


def test_tril_triu_of_ones_build_the_causal_mask():
    for k in (-1, 0, 2):
        assert (framework.tril(framework.ones(3, 5), k).cpu().numpy()
                == torch.tril(torch.ones(3, 5), k).cpu().numpy()).all()
        assert (framework.ones(4, 3).triu(k).cpu().numpy() == torch.ones(4, 3).triu(k).cpu().numpy()).all()
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        framework.tril(framework.ones(3))


def test_one_hot_matches_torch_and_rejects_bad_classes():
    idx = [[0, 3], [2, 1]]
    F, tF = framework.nn.functional, torch.nn.functional
    assert (F.one_hot(framework.tensor(idx)).cpu().numpy() == tF.one_hot(torch.tensor(idx)).cpu().numpy()).all()
    assert F.one_hot(framework.tensor(idx), 6).shape == (2, 2, 6)
    assert F.one_hot(framework.tensor(idx)).dtype == framework.int64
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(framework.tensor(idx), 3)


def test_scatter_and_gather_match_torch_values():
    a = np.arange(12.0).reshape(3, 4)
    idx = [[0, 1], [2, 3], [1, 0]]
    src = np.ones((3, 2)) * 7
    f = framework.tensor(a).scatter(1, framework.tensor(idx), framework.tensor(src))
    t = torch.tensor(a).scatter(1, torch.tensor(idx), torch.tensor(src))
    assert (f.cpu().numpy() == t.cpu().numpy()).all()
    f = framework.zeros(3, 4).scatter_add_(1, framework.tensor([[0, 0], [1, 1], [3, 3]]), framework.ones(3, 2))
    assert f.cpu().numpy().tolist() == [[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 2]]


def test_cumsum_of_ints_is_long_like_torch():
    assert framework.tensor([1, 2, 3]).cumsum(0).dtype == framework.int64
    assert framework.tensor([1, 2, 3]).cumsum(0).cpu().numpy().tolist() == [1, 3, 6]


def test_multinomial_with_replacement_follows_the_weights():
    g = framework.Generator(0)
    weights = framework.tensor([1.0, 0.0, 3.0, 4.0])
    draws = framework.multinomial(weights, 40000, replacement=True, generator=g).cpu().numpy()
    freq = np.bincount(draws, minlength=4) / len(draws)
    assert abs(freq - np.array([1, 0, 3, 4]) / 8).max() < 0.01
    assert freq[1] == 0


def test_multinomial_without_replacement_first_draw_and_distinctness():
    framework.manual_seed(0)
    probs = framework.tensor([[0.1, 0.2, 0.7]] * 20000)
    draws = probs.multinomial(3).cpu().numpy()
    assert all(sorted(row) == [0, 1, 2] for row in draws[:100])
    first = np.bincount(draws[:, 0], minlength=3) / len(draws)
    assert abs(first - np.array([0.1, 0.2, 0.7])).max() < 0.015
    # second draw given first = 2: P(1) = 0.2 / 0.3
    second = draws[draws[:, 0] == 2, 1]
    assert abs((second == 1).mean() - 2 / 3) < 0.02
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        probs.multinomial(4)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        framework.tensor([0.5, -0.1]).multinomial(1)


def test_pad_and_interpolate_errors_name_the_problem():
    F = framework.nn.functional
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(framework.ones(2, 3), (1,))
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding input dimension"):
        F.pad(framework.ones(1, 2, 3), (3, 0), mode="reflect")
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        F.interpolate(framework.ones(1, 1, 2, 2), size=3, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):  # torch's text for neither
        F.interpolate(framework.ones(1, 1, 2, 2))


def test_new_factories_take_dtype_and_device_from_self():
    x = framework.ones(2, dtype=framework.float64)
    assert x.new_zeros(3, 4).dtype == framework.float64 and x.new_zeros(3, 4).shape == (3, 4)
    assert x.new_ones((2,)).cpu().numpy().tolist() == [1.0, 1.0]
    assert x.new_full((2,), 5).cpu().numpy().tolist() == [5.0, 5.0]
    assert x.new_tensor([1, 2]).dtype == framework.float64


def test_einsum_errors_and_scalar_output():
    a = framework.tensor([1.0, 2.0, 3.0])
    assert framework.einsum("i,i->", a, a).item() == 14.0
    with pytest.raises(RuntimeError, match="einsum\\(\\): output subscript k does not appear in the equation"):
        framework.einsum("i->k", a)
    with pytest.raises(RuntimeError, match="einsum\\(\\): more operands were provided than specified"):
        framework.einsum("i->i", a, a)
    with pytest.raises(NotImplementedError, match="repeated subscripts"):
        framework.einsum("ii->i", framework.ones(2, 2))
