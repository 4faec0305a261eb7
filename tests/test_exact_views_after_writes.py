"""PyTorch-exactness of views after in-place writes (issue 15, second round): a view's regenerated grad_fn is
torch's AsStridedBackward0, writes into expand()ed tensors follow torch's overlap rules, setitem with a 0-d tensor
is fill_, and gradients never lose their storage. Each scenario runs under framework and torch and what a user
observes (values, grad_fn names, gradients, the error's class and first sentence) must be the same."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from scenario import outcome

torch = pytest.importorskip("torch")


def _same(fn):
    """fn(m) under both libraries: the same outcome (a value, or an error's class and first sentence)."""
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
    return ours


def _name(fn) -> str | None:
    return None if fn is None else type(fn).__name__


def _graph(t, depth: int = 3) -> tuple:
    """grad_fn names along the first edge, ``depth`` nodes deep."""
    names, fn = [], t.grad_fn
    for _ in range(depth):
        if fn is None:
            break
        names.append(_name(fn))
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return tuple(names)


def _data(m, shape=(2, 3)):
    return m.tensor(np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape) / 4, dtype=m.float64, requires_grad=True)


# ---- 1. AsStridedBackward0: every view kind, after a write to the view, its base, or another view -------------

VIEWS = {
    "t": lambda b: b.t(),
    "transpose": lambda b: b.transpose(0, 1),
    "permute": lambda b: b.permute(1, 0),
    "view": lambda b: b.view(6),
    "reshape": lambda b: b.reshape(3, 2),
    "flatten": lambda b: b.flatten(),
    "unsqueeze": lambda b: b.unsqueeze(1),
    "squeeze": lambda b: b[:1].squeeze(0),
    "select": lambda b: b[1],
    "slice": lambda b: b[:, 1:],
    "narrow": lambda b: b.narrow(1, 0, 2),
    "step": lambda b: b[:, ::2],
    "mixed": lambda b: b[None, 1, 0:2],
    "alias": lambda b: b[...],
    "expand": lambda b: b[0:1].expand(4, 3),
    "view_of_view": lambda b: b.t()[1:].unsqueeze(0),
}
WRITES = {
    "view": lambda b, v, x: v.mul_(x.sum()),
    "base": lambda b, v, x: b.add_(x),
    "other_view": lambda b, v, x: b[0].mul_(2.0),
    "no_grad_base": lambda b, v, x: _no_grad(b, lambda: b.mul_(3.0)),
}


def _no_grad(t, fn):
    with (torch.no_grad() if isinstance(t, torch.Tensor) else framework.no_grad()):
        fn()


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("view", list(VIEWS))
def test_view_after_inplace_is_as_strided_with_torch_gradients(view, write):
    def run(m):
        x = _data(m)
        b = x * 1
        v = VIEWS[view](b)
        if view == "expand" and write == "view":
            w = b[1:]  # an expand repeats memory: write the base through another view instead
            w.mul_(x.sum())
        else:
            WRITES[write](b, v, x)
        weights = m.tensor(np.arange(v.numel(), dtype=np.float64).reshape(tuple(v.shape)) - 2)
        loss = (v * v * weights).sum()
        g, = m.autograd.grad(loss, x, create_graph=True)
        gg, = m.autograd.grad((g * g).sum(), x)
        return _graph(v), _name(g.grad_fn), g.tolist(), gg.tolist()

    out = _same(run)
    assert out[0] == "ok" and out[1][0][0] == "AsStridedBackward0"


def test_view_of_a_leaf_after_no_grad_write_is_as_strided():
    def run(m):
        x = _data(m)
        v = x.t()
        with (torch.no_grad() if m is torch else framework.no_grad()):
            v.mul_(2.0)
        (v * v).sum().backward()
        return _graph(v), x.grad.tolist()

    assert _same(run)[1][0] == ("AsStridedBackward0", "AccumulateGrad")


def test_view_of_a_non_contiguous_base():
    def run(m):
        x = _data(m, (3, 4))
        b = x.t() * 2  # a non-view whose layout is transposed (both libraries keep the input's)
        v = b[1:, ::2]
        b[0].add_(1.0)
        (v * m.arange(6.0, dtype=m.float64).reshape(3, 2)).sum().backward()
        return _graph(v), x.grad.tolist()

    _same(run)


def test_retain_grad_moves_to_the_regenerated_node():
    def run(m):
        x = _data(m)
        b = x * 1
        v = b[0]
        v.retain_grad()
        b[1].mul_(3.0)
        (v * 5).sum().backward()
        return _graph(v), v.grad.tolist(), x.grad.tolist()

    _same(run)


@pytest.mark.parametrize("how", ["unbind", "split", "chunk"])
def test_multi_output_views_refuse_a_history_after_a_write(how):
    def run(m):
        b = _data(m) * 1
        parts = {"unbind": lambda: b.unbind(0), "split": lambda: b.split(1, 0), "chunk": lambda: b.chunk(2, 0)}[how]()
        b.mul_(2.0)
        return _name(parts[0].grad_fn)

    assert _same(run)[0] == "error"


def test_version_error_names_the_regenerated_view_node():
    def run(m):
        x = _data(m, (2,))
        a = x * 1
        v = a[0:1]
        z = v * v
        v.add_(1.0)
        z.sum().backward()

    out = _same(run)
    assert out[0] == "error"
    for m in (torch, framework):
        with pytest.raises(RuntimeError, match="which is output 0 of AsStrided, is at version 1"):
            run(m)


def test_as_strided_gradient_ops_gradcheck():
    from framework.ops.shape import AsStridedGather, AsStridedScatter
    from framework.testing import gradcheck
    index = np.array([[0, 2], [2, 5]])  # element 2 repeats: its gradients accumulate
    g = framework.tensor(np.linspace(-1, 1, 4).reshape(2, 2), dtype=framework.float64, requires_grad=True)
    assert gradcheck(lambda t: AsStridedScatter.apply(t, index, (2, 3)), [g])
    a = framework.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=framework.float64, requires_grad=True)
    assert gradcheck(lambda t: AsStridedGather.apply(t, index), [a])


# ---- 2. gradients keep their storage: a view of a 0-d gradient writes into it -------------------------------

def test_view_of_a_summed_zero_dim_gradient_writes_through():
    def run(m):
        x = m.tensor(-1.7, dtype=m.float32, requires_grad=True)
        s = m.softmax(x, dim=-1)
        d = s - m.tensor(-1.79, dtype=m.float64)
        _, gs = m.autograd.grad(m.nn.functional.mse_loss(d, d), [x, s])
        view = gs.unsqueeze(0)
        view -= -1.0
        return gs.tolist(), view.tolist()

    assert _same(run)[1][0] == 1.0


# ---- 3. setitem with a 0-d tensor is fill_ (FillBackward3); fill_(tensor) passes the gradient on -----------

@pytest.mark.explicit_device  # torch's copy_to fills only from a 0-d *CPU* value (on a GPU: copy_, CopyBackwards)
def test_setitem_zero_dim_tensor_is_fill():
    def run(m):
        x = m.tensor(-1.87, dtype=m.float64, requires_grad=True, device="cpu")
        t = m.tensor([1.74, 2.0], dtype=m.float32, device="cpu")
        t[...] = x
        (t * m.tensor([2.0, 3.0], device="cpu")).sum().backward()
        return _name(t.grad_fn), x.grad.tolist()

    assert _same(run)[1] == ("FillBackward3", 5.0)


def test_fill_with_a_tensor():
    def run(m):
        x = m.tensor(3.0, dtype=m.float64, requires_grad=True)
        a = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True) * 1
        a.fill_(x)
        b = m.tensor([1.0, 2.0, 3.0])
        b.fill_(b[1])  # the value is read before the write: no overlap error
        (a * a).sum().backward()
        return _name(a.grad_fn), x.grad.tolist(), b.tolist()

    _same(run)


# ---- 4. writes into expand()ed tensors: torch refuses where elements repeat, except in its fill kernels ------

EXPAND_WRITES = {
    "zero_": lambda m, t: t.zero_(), "fill_": lambda m, t: t.fill_(2.0),
    "fill_tensor": lambda m, t: t.fill_(m.tensor(2.0)),
    "masked_fill_": lambda m, t: t.masked_fill_(m.tensor([True, False]), 3.0),
    "masked_fill_tensor": lambda m, t: t.masked_fill_(m.tensor([True, False]), m.tensor(3.0)),
    "copy_": lambda m, t: t.copy_(m.tensor([1.0, 2.0])), "add_": lambda m, t: t.add_(1),
    "exp_": lambda m, t: t.exp_(), "uniform_": lambda m, t: t.uniform_(),
    "setitem_slice_number": lambda m, t: t.__setitem__(slice(0, 1), 1.5),
    "setitem_all_number": lambda m, t: t.__setitem__(Ellipsis, 1.5),
    "setitem_all_tensor": lambda m, t: t.__setitem__(Ellipsis, m.tensor(1.5)),
    "setitem_advanced": lambda m, t: t.__setitem__(m.tensor([0]), 1.5),
    "setitem_mask": lambda m, t: t.__setitem__(m.tensor([True, False]), 2.0),
    "select_add_": lambda m, t: t[1].add_(1.0),
    "strided_sub_": lambda m, t: t[None, -2].sub_(m.tensor(0.25)),
}


@pytest.mark.parametrize("write", list(EXPAND_WRITES))
def test_write_into_an_expanded_tensor(write):
    def run(m):
        base = m.tensor([0.5])
        EXPAND_WRITES[write](m, base.expand(2))
        return base._version, (None if write == "uniform_" else base.tolist())  # uniform_: other random streams

    _same(run)


def test_partial_overlap_through_an_expand_has_torchs_message():
    def run(m):
        x = m.tensor(-1.39, dtype=m.float32, requires_grad=True)
        v = x.expand(2)[::2]
        with (torch.no_grad() if m is torch else framework.no_grad()):
            v.add_(x)

    assert _same(run)[2].startswith("unsupported operation: some elements of the input tensor")


@pytest.mark.parametrize("write", ["add_", "copy_"])
def test_stale_no_grad_view_operand_errors_before_the_overlap_check(write):
    # torch reads the operand's grad_fn (its no-grad view error) before the kernel's partial-overlap check
    def run(m):
        x = m.tensor([-0.58, -1.53], dtype=m.float64, requires_grad=True)
        y = m.maximum(x.detach(), x)
        with (torch.no_grad() if m is torch else framework.no_grad()):
            v = y[1:]
        y.sigmoid_()
        getattr(y, write)(v)

    assert "A view was created in no_grad mode" in _same(run)[2]


def test_gradient_slice_of_an_expanded_gradient_can_be_written():
    def run(m):
        x = m.tensor([0.69, 0.64, -1.07], dtype=m.float64, requires_grad=True)
        y = x * 2
        g, = m.autograd.grad(y.sum(), [y])
        g.reshape(3)[0:1].div_(0.5)
        return g.tolist()

    assert _same(run)[1] == [2.0, 2.0, 2.0]


# ---- 5. no_grad views whose base was written: only reading grad_fn refuses, as torch's C++ is_leaf ----------

def _no_grad_view_after_write(m):
    x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with (torch.no_grad() if m is torch else framework.no_grad()):
        v = x.view(-1)
        x.fill_(0.5)
    return x, v


@pytest.mark.parametrize("action", ["requires_grad_false", "requires_grad_", "retain_grad", "backward_nonscalar",
                                    "is_leaf", "backward_scalar"])
def test_no_grad_view_after_base_write(action):
    def run(m):
        x, v = _no_grad_view_after_write(m)
        if action == "requires_grad_false":
            v.requires_grad = False
        elif action == "requires_grad_":
            v.requires_grad_()
        elif action == "retain_grad":
            v.retain_grad()
        elif action == "backward_nonscalar":
            v.backward()
        elif action == "is_leaf":
            return v.is_leaf
        else:
            v.sum().backward()
        return v.requires_grad

    _same(run)


def test_hooks_on_a_stale_no_grad_view_after_the_first_refusal():
    # torch makes the tensor's hook dict before reading grad_fn: the first register_hook raises, later ones don't
    def run(m):
        x, v = _no_grad_view_after_write(m)
        calls = []
        for _ in range(3):
            try:
                v.register_hook(lambda g: g * 2)
                calls.append("ok")
            except RuntimeError as e:
                calls.append(str(e).split(".")[0])
        x.sum().backward()
        return calls, x.grad.tolist()

    calls = _same(run)[1][0]
    assert calls[0].startswith("A view was created in no_grad mode") and calls[1:] == ["ok", "ok"]


# ---- 6. an in-place op's saved original input keeps its history: double backward through it ---------------

INPLACE_NEEDING_THE_OLD_INPUT = {
    "mul_": lambda m, b, y: b.mul_(y), "div_": lambda m, b, y: b.div_(y), "sin_": lambda m, b, y: b.sin_(),
    "pow_": lambda m, b, y: b.pow_(3), "sqrt_": lambda m, b, y: b.sqrt_(),
    "floor_divide_": lambda m, b, y: b.floor_divide_(y), "view_mul_": lambda m, b, y: b.t().mul_(y.sum()),
}


@pytest.mark.parametrize("op", list(INPLACE_NEEDING_THE_OLD_INPUT))
def test_inplace_double_backward_through_the_original_input(op):
    def run(m):
        x = m.tensor(np.arange(1.0, 7.0).reshape(2, 3) / 4, dtype=m.float64, requires_grad=True)
        y = m.tensor(np.arange(2.0, 8.0).reshape(2, 3) / 4, dtype=m.float64, requires_grad=True)
        b = x * 1
        INPLACE_NEEDING_THE_OLD_INPUT[op](m, b, y)
        g = m.autograd.grad((b * b).sum(), [x, y], create_graph=True, allow_unused=True)
        total = sum((t * t).sum() for t in g if t is not None and t.requires_grad)
        gg = m.autograd.grad(total, [x, y], allow_unused=True)
        return [None if t is None else np.round(t.detach().cpu().numpy(), 10).tolist() for t in gg]

    _same(run)


# ---- 7. gradients torch returns as views (sum's expand) are views made under no_grad -----------------------

GRAD_VIEW_ACTIONS = {
    "copy_": lambda g, x: g.copy_(x), "sub_": lambda g, x: g.sub_(x), "detach_": lambda g, x: g.detach_(),
    "is_view": lambda g, x: g._base is not None, "zero_": lambda g, x: g.zero_(),
}


@pytest.mark.parametrize("source", ["sum", "sum_0d", "add_then_sum", "reshape_sum", "mul_sum"])
@pytest.mark.parametrize("action", list(GRAD_VIEW_ACTIONS))
def test_gradient_views_from_backward(source, action):
    def run(m):
        x = m.tensor([[1.84, -0.09, 1.89, -0.29]] if source != "sum_0d" else -0.42, dtype=m.float64,
                     requires_grad=True)
        y = {"sum": lambda: x.sum(), "sum_0d": lambda: x.sum(), "add_then_sum": lambda: (x + 1).sum(),
             "reshape_sum": lambda: x.reshape(-1).sum(), "mul_sum": lambda: (x * 2).sum()}[source]()
        g, = m.autograd.grad(y, [x])
        out = GRAD_VIEW_ACTIONS[action](g, x)
        return out if isinstance(out, bool) else g.tolist()

    _same(run)


def test_inplace_write_into_an_empty_broadcast_result():
    def run(m):
        x = m.tensor([[1.02, -1.71], [-1.61, -0.79]], requires_grad=True)
        e = (x[1:] * m.tensor([[[0.62, -1.91]]]))[:-1].std(dim=1, keepdim=False)  # shape (0, 2)
        e.mul_(x[1:])
        return tuple(e.shape)

    _same(run)


def test_a_view_set_to_require_grad_is_a_root_with_its_own_grad():
    def run(m):
        base = m.tensor([-1.35], dtype=m.float64)
        v = base.narrow(0, 0, 1)
        v.flatten().requires_grad_()  # flatten of a 1-D tensor is the tensor itself
        v.backward()
        return v.grad.tolist(), v.is_leaf

    _same(run)


def test_saved_input_detached_in_place_is_refused():
    def run(m):
        a = m.tensor(0.81, requires_grad=True)
        b = m.tensor(1.71, requires_grad=True)
        s = (a.clone() + b).mean(dim=0, keepdim=True)
        out = s.amin(-1, keepdim=True)  # saves s
        s.detach_()
        out.backward(m.tensor(-0.97))

    assert _same(run)[2].startswith("Trying to use a saved tensor that has been detached in-place")


def test_multi_output_view_error_comes_before_scatter_add_dtype_check():
    def run(m):
        x = m.tensor(np.linspace(-1, 1, 15).reshape(3, 5), dtype=m.float64, requires_grad=True)
        part = x.split([1, 4], dim=1)[1]
        with (torch.no_grad() if m is torch else framework.no_grad()):
            x.unsqueeze(-1).copy_(x.unsqueeze(-1))
        m.scatter_add(part, 0, m.tensor([[0, 1, 0, 0], [0, 2, 2, 1]]), m.ones(2, 4, dtype=m.float32))

    assert "is a view and its base or another view of its base has been modified inplace" in _same(run)[2]
