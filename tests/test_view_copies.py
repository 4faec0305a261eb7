"""torch's *_copy functions (a view's result as new memory, node ``<view node>_copy``), unsafe_split(_with_sizes)
and concatenate: values, gradients, node names and strides against torch; float64 gradchecks; errors."""
import numpy as np
import pytest

import framework
from framework.testing import gradcheck
from scenario import outcome

ARGS = {
    "view_copy": ((4, 3),), "permute_copy": ((1, 0),), "t_copy": (), "transpose_copy": (0, 1),
    "squeeze_copy": (), "unsqueeze_copy": (1,), "expand_copy": ((2, 3, 4),), "diagonal_copy": (1,),
    "select_copy": (1, 2), "slice_copy": (1, 1, 4, 2), "alias_copy": (), "unbind_copy": (1,),
    "split_copy": (3, 1), "split_with_sizes_copy": ([1, 3], 1), "narrow_copy": (1, 1, 2),
    "as_strided_copy": ((2, 2), (1, 2), 1), "unfold_copy": (1, 2, 1),
}
_A = np.random.default_rng(0).standard_normal((3, 4))


def _run(m, name, base=lambda x: x.t().t() * 1):
    x = m.tensor(_A, dtype=m.float64, requires_grad=True)
    y = base(x)
    r = getattr(m, name)(y, *ARGS[name])
    rs = r if isinstance(r, (tuple, list)) else (r,)
    weights = [m.arange(q.numel(), dtype=q.dtype).view(q.shape) for q in rs]
    sum((q * w).sum() for q, w in zip(rs, weights)).backward()
    return ([q.grad_fn.name() for q in rs], [q.tolist() for q in rs], [q.stride() for q in rs],
            [q._base is None for q in rs], x.grad.tolist(), type(r).__name__)


@pytest.mark.parametrize("name", sorted(ARGS))
def test_view_copy_matches_torch(name):
    torch = pytest.importorskip("torch")
    assert _run(framework, name) == _run(torch, name)


ARGS_T = {"permute_copy": ((1, 0),), "narrow_copy": (0, 1, 2), "diagonal_copy": (0,), "expand_copy": ((2, 4, 3),)}


@pytest.mark.parametrize("name", sorted(ARGS_T))
def test_copy_of_a_transposed_input_is_c_contiguous_as_torch(name):
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        y = m.tensor(_A, requires_grad=True).t()
        r = getattr(m, name)(y, *ARGS_T[name])
        outs.append((r.stride(), r.is_contiguous(), r.tolist()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("name", sorted(ARGS))
def test_view_copy_gradcheck(name):
    x = framework.tensor(_A, requires_grad=True)

    def fn(t):
        r = getattr(framework, name)(t * 1, *ARGS[name])
        return framework.cat([q.reshape(-1) for q in r]) if isinstance(r, tuple) else r

    assert gradcheck(fn, [x])


def test_view_copy_second_derivative_gradcheck():
    x = framework.tensor(_A, requires_grad=True)
    assert framework.autograd.gradgradcheck(lambda t: framework.permute_copy(t * t, (1, 0)), [x])


def test_a_copy_does_not_share_memory_nor_version_with_its_input():
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        base = m.zeros(3, 4)
        c = m.select_copy(base, 0, 1)
        c.add_(1.0)
        parts = m.split_copy(base, 2, 1)
        parts[0].add_(1.0)
        outs.append((base.sum().item(), base._version, c._version, c._base is None))
    assert outs[0] == outs[1] == (0.0, 0, 1, True)


def test_detach_copy_and_int_inputs_as_torch():
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        y = m.tensor(_A, requires_grad=True) * 1
        d = m.detach_copy(y)
        i = m.t_copy(m.arange(6).view(2, 3))
        n = m.view_copy(m.tensor(_A), (12,))
        outs.append((d.grad_fn.name(), d.requires_grad, outcome(lambda _: d.sum().backward(), m),
                     i.tolist(), i.grad_fn is None, n.requires_grad, n.grad_fn is None))
    assert outs[0] == outs[1]


def test_unsafe_split_is_not_a_view_and_names_torchs_nodes():
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        x = m.tensor(_A, requires_grad=True)
        y = x * 1
        a = m.unsafe_split(y, 3, 1)
        b = y.unsafe_split_with_sizes([1, 2], 0)
        c = y.unsafe_split(2)
        (a[0] * 2).sum().backward(retain_graph=True)
        (b[1] * 3).sum().backward(retain_graph=True)
        (c[1] * 5).sum().backward()
        outs.append(([t.grad_fn.name() for t in (a[0], b[0], c[0])], [len(a), len(b), len(c)],
                     [t._base is None for t in a], x.grad.tolist(), type(a).__name__))
    assert outs[0] == outs[1]


def test_concatenate_is_cat_with_axis():
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        y = m.tensor(_A, requires_grad=True) * 1
        outs.append([tuple(m.concatenate([y, y], 1).shape), tuple(m.concatenate([y, y], axis=1).shape),
                     m.concatenate((y, y)).grad_fn.name(), tuple(m.cat([y, y], axis=1).shape)])
    assert outs[0] == outs[1]


ERRORS = {
    "unsafe_split_list": lambda m: m.unsafe_split(m.ones(3, 4), [1, 2]),
    "unsafe_split_zero": lambda m: m.unsafe_split(m.ones(3, 4), 0),
    "unsafe_split_with_sizes_sum": lambda m: m.unsafe_split_with_sizes(m.ones(3, 4), [1, 1]),
    "view_copy_bad_shape": lambda m: m.view_copy(m.ones(3, 4), (5, 3)),
    "select_copy_range": lambda m: m.select_copy(m.ones(3, 4), 0, 5),
    "narrow_copy_range": lambda m: m.narrow_copy(m.ones(3, 4), 1, 2, 5),
    "permute_copy_dims": lambda m: m.permute_copy(m.ones(3, 4), (0,)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_view_copy_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    assert outcome(ERRORS[name], framework) == outcome(ERRORS[name], torch)
