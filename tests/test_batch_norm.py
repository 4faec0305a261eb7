"""Batch norm as one NativeBatchNormBackward0 node (ops/normalization.py), against torch and by gradcheck."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from framework.testing import gradcheck

SHAPES = [(8, 3), (4, 3, 5), (2, 3, 4, 4)]


def _host(t) -> np.ndarray:
    """A copy on the host, read now (a buffer's .numpy() would follow later in-place updates on the CPU)."""
    return np.array(t.detach().cpu().numpy(), copy=True)


def _bn(m, shape, affine: bool, train: bool, momentum=0.1):
    cls = m.nn.BatchNorm2d if len(shape) == 4 else m.nn.BatchNorm1d
    bn = cls(3, affine=affine, momentum=momentum).double()
    if affine:
        with m.no_grad():
            bn.weight.copy_(m.tensor([1.5, -0.5, 2.0], dtype=m.float64))
            bn.bias.copy_(m.tensor([0.1, 0.2, -0.3], dtype=m.float64))
    if not train:
        with m.no_grad():
            bn.running_mean.copy_(m.tensor([0.3, -0.2, 0.1], dtype=m.float64))
            bn.running_var.copy_(m.tensor([1.5, 0.5, 2.0], dtype=m.float64))
    return bn.train(train)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_matches_torch_values_grads_stats_node_and_double_backward(shape, train, affine):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape) + 2 * train + 4 * affine)
    x0, g0 = rng.standard_normal(shape), rng.standard_normal(shape)
    got = []
    for m in (framework, torch):
        bn = _bn(m, shape, affine, train)
        x = m.tensor(x0, requires_grad=True)
        y = bn(x)
        y.backward(m.tensor(g0))
        row = {"out": _host(y), "grad": _host(x.grad), "mean": _host(bn.running_mean), "var": _host(bn.running_var), "node": type(y.grad_fn).__name__,
               "edges": [None if f is None else type(f).__name__ for f, _ in y.grad_fn.next_functions],
               "versions": (bn.running_mean._version, bn.running_var._version, bn.num_batches_tracked._version)}
        if affine:
            row["gw"], row["gb"] = _host(bn.weight.grad), _host(bn.bias.grad)
        x2 = m.tensor(x0, requires_grad=True)
        gx, = m.autograd.grad((bn(x2) ** 3).sum(), [x2], create_graph=True)
        row["double"] = _host(m.autograd.grad((gx ** 2).sum(), [x2])[0])
        got.append(row)
    ours, theirs = got
    assert ours.keys() == theirs.keys()
    for k in ours:
        if isinstance(ours[k], np.ndarray):
            np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-9, atol=1e-11, err_msg=k)
        elif k != "versions":
            assert ours[k] == theirs[k], k
    # the running stats are updated by the kernel without a version bump, as torch's (num_batches_tracked is
    # not compared: torch's reset_running_stats writes it once more at construction)
    assert ours["versions"][:2] == theirs["versions"][:2]


def test_batch_norm_float32_matches_torch():
    torch = pytest.importorskip("torch")
    x0 = np.random.default_rng(5).standard_normal((64, 16)).astype(np.float32) * 3 + 1
    got = []
    for m in (framework, torch):
        bn = m.nn.BatchNorm1d(16)
        x = m.tensor(x0, requires_grad=True)
        y = bn(x)
        (y * y).sum().backward()
        got.append((y.detach().cpu().numpy(), x.grad.cpu().numpy(), bn.weight.grad.cpu().numpy(), bn.running_var.cpu().numpy()))
    for a, b in zip(*got):
        assert a.dtype == b.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


def test_cumulative_running_average_with_momentum_none_as_torch():
    torch = pytest.importorskip("torch")
    xs = [np.random.default_rng(i).standard_normal((6, 3)) for i in range(4)]
    stats = []
    for m in (framework, torch):
        bn = m.nn.BatchNorm1d(3, momentum=None).double()
        for x in xs:
            bn(m.tensor(x))
        stats.append((bn.running_mean.cpu().numpy(), bn.running_var.cpu().numpy()))
    for a, b in zip(*stats):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_input_modified_in_place_after_batch_norm_raises_the_version_error_as_torch():
    torch = pytest.importorskip("torch")
    texts = []
    for m in (framework, torch):
        h = m.randn(4, 3, requires_grad=True) * 2
        y = m.nn.BatchNorm1d(3)(h)
        with m.no_grad():
            h.add_(1)
        with pytest.raises(RuntimeError) as err:
            y.sum().backward()
        texts.append(str(err.value).split(" Hint")[0].replace("torch.", "framework."))
    assert texts[0].startswith(texts[1].split(" is at version")[0])


def test_eval_mode_without_running_stats_is_refused_with_torchs_text():
    torch = pytest.importorskip("torch")
    texts = []
    for m in (framework, torch):
        with pytest.raises(RuntimeError) as err:
            m.nn.functional.batch_norm(m.randn(4, 3), None, None, training=False)
        texts.append(str(err.value).split("\n")[0])
    assert texts[0] == texts[1] == "running_mean must be defined in evaluation mode"


@pytest.mark.parametrize("train", [True, False])
def test_batch_norm_gradcheck_float64(train):
    rng = np.random.default_rng(3)
    x = framework.tensor(rng.standard_normal((5, 2, 3)), requires_grad=True)
    w = framework.tensor([1.3, -0.7], dtype=framework.float64, requires_grad=True)
    b = framework.tensor([0.2, -0.1], dtype=framework.float64, requires_grad=True)
    rm, rv = framework.tensor([0.1, -0.2], dtype=framework.float64), framework.tensor([0.8, 1.7], dtype=framework.float64)

    def fn(x, w, b):
        return framework.nn.functional.batch_norm(x, rm.clone(), rv.clone(), w, b, training=train)

    assert gradcheck(fn, [x, w, b])

    def grads(x, w, b):  # second derivatives, through the Tensor backward that create_graph records
        out = fn(x, w, b)
        return framework.autograd.grad((out ** 3).sum(), [x, w], create_graph=True)

    assert gradcheck(grads, [x, w, b])
