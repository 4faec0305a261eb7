"""In-place ops on views and bases: shared storage and versions, CopySlices, gradients equal torch's,
and the explanation that follows torch's message (the tensor, the saving op, the in-place op, their lines)."""
import re

import pytest

import framework
from scenario import outcome


def test_views_share_storage_and_version():
    base = framework.zeros(3, 4)
    views = [base.view(12), base.t(), base[1], base[:, 1:3], base.transpose(0, 1), base.unsqueeze(0),
             base.permute(1, 0), base.reshape(2, 6), base.expand(2, 3, 4), base.detach(), base[None].squeeze(0)]
    base.add_(1)
    for v in views:
        assert v._version == 1
        assert v._base is base or v._base is None  # detach() shares the counter but is not a view
    assert base.data._version == 0  # .data: own counter
    views[2].mul_(5)  # writes through to the base
    assert base[1].tolist() == [5.0] * 4 and base._version == 2


def test_inplace_on_view_of_non_leaf_rebases_history():
    a = framework.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    v = b[1:]
    v.mul_(2)
    assert type(b.grad_fn).__name__ == "CopySlices"
    assert b.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    assert v.grad_fn.next_functions[0][0] is b.grad_fn  # the view's history now starts at the new base
    (b * b).sum().backward()
    assert a.grad.tolist() == [2.0, 16.0, 24.0]


def test_inplace_through_view_of_leaf_not_requiring_grad():
    w = framework.tensor([1.0, 2.0], requires_grad=True)
    x = framework.zeros(4)
    x[1:3] = w * 3
    assert x.requires_grad and not x.is_leaf and type(x.grad_fn).__name__ == "CopySlices"
    (x * framework.arange(4.0)).sum().backward()
    assert w.grad.tolist() == [3.0, 6.0]


SCENARIOS = {
    "view_mul": lambda m, a: _then(a.clone(), lambda b: b[1:].mul_(2)),
    "view_setitem_tensor": lambda m, a: _then(a.clone(), lambda b: b.__setitem__((0, slice(1, 3)), a[1, :2] * 5)),
    "view_of_view": lambda m, a: _then(a.clone(), lambda b: b.t()[1].exp_()),
    "base_then_view_used": lambda m, a: _use_view_after_base_change(a),
    "transpose_relu_": lambda m, a: _then(a * 1, lambda b: b.transpose(0, 1).relu_()),
    "adv_setitem": lambda m, a: _then(a * 1, lambda b: b.__setitem__(([0, 1], [2, 0]), a[0, 0] * 7)),
    "masked_fill_": lambda m, a: _then(a * 1, lambda b: b.masked_fill_(b > 0.5, 0.0)),
    "chain_of_inplace": lambda m, a: _then(a * 2, lambda b: b.add_(1).mul_(b.detach()).sigmoid_().sub_(a)),
    "div_pow_clamp": lambda m, a: _then(a * 1, lambda b: b.div_(a + 3).pow_(2).clamp_(0.01, 0.5)),
}


def _then(b, fn):
    fn(b)
    return b


def _use_view_after_base_change(a):
    b = a.clone()
    v = b[0]
    b.mul_(3)
    return v * 2


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_gradients_through_inplace_views_match_torch(name, torch):
    def run(m):
        a = m.tensor([[0.2, 0.9, -0.4], [1.3, -0.7, 0.6]], dtype=m.float64, requires_grad=True)
        out = SCENARIOS[name](m, a)
        (out * out).sum().backward()
        return [round(v, 10) for v in a.grad.flatten().tolist()], [round(v, 10) for v in out.flatten().tolist()]

    assert outcome(run, framework) == outcome(run, torch)


def test_relu_inplace_on_non_leaf_uses_saved_output(torch):
    def run(m):
        x = m.tensor([[-1.0, 2.0], [3.0, -4.0]], requires_grad=True)
        w = m.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
        h = (x @ w)
        h.relu_()
        (h * h).sum().backward()
        return x.grad.tolist(), w.grad.tolist(), type(h.grad_fn).__name__

    assert outcome(run, framework) == outcome(run, torch)


def test_version_counts_every_inplace_op():
    x = framework.zeros(3)
    for i, op in enumerate([lambda: x.add_(1), lambda: x.mul_(2), lambda: x.__setitem__(0, 5.0),
                            lambda: x.zero_(), lambda: x.fill_(2), lambda: x.uniform_(), lambda: x.normal_(),
                            lambda: x.copy_(framework.ones(3)), lambda: x.clamp_(0, 1), lambda: x.exp_()], 1):
        op()
        assert x._version == i
    with framework.no_grad():
        x.sub_(1)
    assert x._version == 11
    with framework.inference_mode():
        y = framework.ones(2)
        y.add_(1)
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        y._version


def test_explanation_names_tensor_ops_and_lines():
    a = framework.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    loss = (b * b).mean()  # LINE-SAVE
    b[0] = 1000.0  # LINE-MODIFY
    with pytest.raises(RuntimeError) as info:
        loss.backward()
    text = framework.autograd.explain(info.value)
    assert text == str(info.value)
    assert "shape (2,), framework.float32" in text
    assert re.search(r"saved by:\s+MulBackward0 .*test_inplace_views.py:\d+ .*LINE-SAVE", text)
    assert re.search(r"changed by: `fill_` at .*test_inplace_views.py:\d+ .*LINE-MODIFY", text)
    assert "(version 0 -> 1)" in text and "clone()" in text


def test_explanation_names_parameter_and_optimizer_context():
    from framework import nn

    D = nn.Linear(2, 2)
    x = framework.ones(1, 2, requires_grad=True)  # so D's forward saves D.weight for x's gradient
    d = D(x)
    with framework.no_grad(), framework.autograd.bump_context("Adam.step()"):
        D.weight.add_(1)  # LINE-STEP
    with pytest.raises(RuntimeError) as info:
        d.sum().backward()
    text = str(info.value)
    assert "the parameter `D.weight`" in text
    assert re.search(r"changed by: `add_` inside Adam.step\(\) at .*LINE-STEP", text)


def test_custom_function_mark_dirty():
    class Inc(framework.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    y = framework.ones(2, requires_grad=True) * 1
    z = Inc.apply(y)
    assert z is y and y._version == 2 and type(y.grad_fn).__name__ == "IncBackward"


def test_anomaly_mode_names_forward_line():
    x = framework.tensor([-1.0, 4.0], requires_grad=True)
    with framework.autograd.detect_anomaly():
        y = x.sqrt()  # LINE-NAN
        with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' returned nan values in its 0th output\.") \
                as info:
            y.sum().backward()
    assert "LINE-NAN" in str(info.value)


def test_explain_graph_marks_stale_saved_tensor():
    w1 = framework.tensor(2.0, requires_grad=True)
    l1 = framework.ones(2, 2) * w1
    l2 = l1 + 3
    l4 = l2 * (l1 * 3)
    loss = l4.mean()
    text = framework.autograd.explain(loss)
    for name in ("MeanBackward0", "MulBackward0", "AddBackward0", "AccumulateGrad"):
        assert name in text
    assert "STALE" not in text
    with framework.no_grad():
        l1.add_(1)  # saved by nothing: mul saves l1 only for a scalar that needs no grad
    assert framework.autograd.explain(loss).count("STALE") == 0
    with framework.no_grad():
        l2.add_(1)  # saved by the MulBackward0 that makes l4
    assert framework.autograd.explain(loss).count("STALE") == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_leaky_relu_inplace_saves_output_like_torch(torch):
    def run(m):
        x = m.tensor([[-1.0, 2.0], [3.0, -4.0]], requires_grad=True)
        h = x * 1
        m.nn.functional.leaky_relu(h, 0.1, inplace=True)
        name = type(h.grad_fn).__name__
        (h * h).sum().backward(retain_graph=True)
        grads = x.grad.tolist()
        with m.no_grad():
            h.mul_(1.0)  # the saved output changed: backward must refuse, as torch's does
        try:
            h.sum().backward()
            refused = False
        except RuntimeError:
            refused = True
        return name, grads, refused

    assert outcome(run, framework) == outcome(run, torch)


# ---- in-place view ops (t_, transpose_, squeeze_, unsqueeze_, as_strided_) and resize_ ---------------------------

def _is_view(t):
    return t._is_view() if hasattr(t, "_is_view") else t._base is not None


def _name(node):
    return node.name().rsplit("::", 1)[-1]  # torch's CopySlices is torch::autograd::CopySlices


GEOMETRY_OPS = {
    "t_": (lambda b: b.t_(), (2, 3)),
    "transpose_": (lambda b: b.transpose_(0, -1), (2, 3)),
    "swapdims_": (lambda b: b.swapdims_(1, 0), (2, 3)),
    "swapaxes_": (lambda b: b.swapaxes_(0, 1), (2, 3)),
    "squeeze_": (lambda b: b.squeeze_(), (2, 1, 3)),
    "squeeze_dim": (lambda b: b.squeeze_(1), (2, 1, 3)),
    "squeeze_dim_not_one": (lambda b: b.squeeze_(0), (2, 1, 3)),
    "squeeze_dims": (lambda b: b.squeeze_((1, -1)), (2, 1, 3)),
    "unsqueeze_": (lambda b: b.unsqueeze_(1), (2, 3)),
    "unsqueeze_last": (lambda b: b.unsqueeze_(-1), (2, 3)),
    "as_strided_": (lambda b: b.as_strided_((3, 2), (1, 3)), (2, 3)),
    "as_strided_offset": (lambda b: b.as_strided_((2, 2), (1, 2), 1), (2, 3)),
}


@pytest.mark.parametrize("op", sorted(GEOMETRY_OPS))
@pytest.mark.parametrize("on_view", [False, True])
def test_inplace_view_op_history_version_and_gradient_match_torch(op, on_view, torch):
    fn, shape = GEOMETRY_OPS[op]

    def run(m):
        a = m.arange(6.0, dtype=m.float64).reshape(shape).requires_grad_()
        b = (a * 1).unsqueeze(0)[0] if on_view else a * 1
        before = b._version
        out = fn(b)
        w = m.arange(b.numel(), dtype=m.float64).reshape(b.shape) + 1
        y = (b * b * w).sum()
        g, = m.autograd.grad(y, a, create_graph=True)
        g.sum().backward()
        return (out is b, b.grad_fn.name(), [n.name() for n, _ in b.grad_fn.next_functions], b._version - before,
                tuple(b.shape), b.stride(), _is_view(b), g.tolist(), a.grad.tolist())

    assert outcome(run, framework) == outcome(run, torch)


SITUATIONS = {
    # a view made before its base's geometry changed: its elements, its regenerated grad_fn, a write through it
    "view_then_base_t_": lambda m, a: _view_then(a * 1, lambda c: c.t_(), lambda c: c[0]),
    "view_then_base_transpose_": lambda m, a: _view_then(a * 1, lambda c: c.transpose_(0, 1), lambda c: c[:, 1]),
    "view_then_base_unsqueeze_": lambda m, a: _view_then(a * 1, lambda c: c.unsqueeze_(1), lambda c: c[1, 1:]),
    "view_then_base_three_changes": lambda m, a: _view_then(a * 1, lambda c: c.t_().unsqueeze_(0).transpose_(0, 2),
                                                            lambda c: c.t()[0]),
    "view_between_two_base_changes": lambda m, a: _view_then(_changed(a * 1, lambda c: c.t_()),
                                                             lambda c: c.unsqueeze_(1), lambda c: c[1:, 0]),
    # the tensor is itself a view: it stays one, and an in-place write after it reaches the base
    "view_unsqueeze_then_mul_": lambda m, a: _then_write(a * 1, lambda c: c[0].unsqueeze_(0)),
    "view_t_then_mul_": lambda m, a: _then_write(a * 1, lambda c: c.t().t_()),
    "view_squeeze_then_mul_": lambda m, a: _then_write(a * 1, lambda c: c[:, None].squeeze_(1)),
    "view_as_strided_then_mul_": lambda m, a: _then_write(a * 1, lambda c: c[1].as_strided_((2,), (2,), 3)),
}


def _view_then(c, change, make_view):
    v = make_view(c)
    change(c)
    names = [v.grad_fn.name()] + [_name(n) for n, _ in v.grad_fn.next_functions]
    v.mul_(2)
    return c, (names, _name(c.grad_fn), v.grad_fn.name(), v.tolist(), c._version)


def _changed(c, change):
    change(c)
    return c


def _then_write(c, make):
    v = make(c)
    v.mul_(3)
    return c, (v.grad_fn.name(), _name(c.grad_fn), tuple(v.shape), v.tolist(), _is_view(v), c._version)


@pytest.mark.parametrize("name", sorted(SITUATIONS))
def test_views_and_bases_follow_inplace_view_ops_as_torch(name, torch):
    def run(m):
        a = m.tensor([[0.2, 0.9, -0.4], [1.3, -0.7, 0.6]], dtype=m.float64, requires_grad=True)
        c, seen = SITUATIONS[name](m, a)
        w = m.arange(c.numel(), dtype=m.float64).reshape(c.shape)
        (c * c * w).sum().backward()
        return seen, a.grad.tolist()

    assert outcome(run, framework) == outcome(run, torch)


REFUSED = {
    "leaf_t_": lambda m, leaf: leaf.t_(),
    "leaf_squeeze_": lambda m, leaf: leaf.squeeze_(),
    "leaf_unsqueeze_": lambda m, leaf: leaf.unsqueeze_(0),
    "leaf_as_strided_": lambda m, leaf: leaf.as_strided_((6,), (1,)),
    "view_of_leaf_t_": lambda m, leaf: leaf[0:1].t_(),
    "no_grad_view_t_": lambda m, leaf: _no_grad_view(m, leaf * 1).t_(),
    "unbind_view_unsqueeze_": lambda m, leaf: (leaf * 1).unbind(0)[0].unsqueeze_(0),
    "saved_then_t_": lambda m, leaf: _saved_then_t(leaf),
    "bad_dim": lambda m, leaf: (leaf * 1).transpose_(0, 2),
    "t_3d": lambda m, leaf: (leaf * 1)[None].t_(),
    "unsqueeze_bad_dim": lambda m, leaf: (leaf * 1).unsqueeze_(3),
    "resize_leaf": lambda m, leaf: leaf.resize_(6),
    "resize_non_leaf": lambda m, leaf: (leaf * 1).resize_(6),
    "resize_no_grad": lambda m, leaf: _under_no_grad(m, lambda: leaf.resize_(2)),
    "resize_as_": lambda m, leaf: leaf.resize_as_(m.ones(3)),
    "resize_negative": lambda m, leaf: m.zeros(5).resize_(2, -3),
    "resize_inference_tensor": lambda m, leaf: _inference_tensor(m).resize_(2),
    "t_inference_tensor": lambda m, leaf: _inference_tensor(m).t_(),
}


def _no_grad_view(m, c):
    with m.no_grad():
        return c[0:1]


def _saved_then_t(leaf):
    c = leaf * 1
    y = c * c
    c.t_()
    y.sum().backward()


def _under_no_grad(m, fn):
    with m.no_grad():
        return fn()


def _inference_tensor(m):
    with m.inference_mode():
        return m.ones(2, 3)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_inplace_view_ops_refuse_as_torch(name, torch):
    def run(m):
        leaf = m.ones(2, 3, requires_grad=True)
        REFUSED[name](m, leaf)

    result = outcome(run, framework)
    assert result[0] == "error" and result == outcome(run, torch)


def test_inplace_view_ops_in_no_grad_and_inference_mode_match_torch(torch):
    def run(m):
        a = m.ones(2, 3, requires_grad=True)
        c = a * 1
        with m.no_grad():
            c.t_()  # the history stays (torch's), the geometry and version change
        seen = [c.grad_fn.name(), tuple(c.shape), c._version, c.requires_grad]
        d = m.zeros(2, 3)
        with m.inference_mode():
            d.unsqueeze_(0)
            e = m.zeros(1, 3)
            e.squeeze_()
        seen += [tuple(d.shape), d._version, tuple(e.shape), e.is_inference()]
        x = m.ones(2, 3)
        x.t_()
        return seen + [x.is_leaf, x.grad_fn, x._version]

    assert outcome(run, framework) == outcome(run, torch)


RESIZES = {
    "shrink": lambda m: m.arange(6.0).resize_(2, 2),
    "grow": lambda m: m.arange(6.0).resize_(2, 2).resize_(3, 3)[:2, :2],
    "same_shape": lambda m: m.arange(6.0).reshape(2, 3).t().resize_(3, 2),
    "non_contiguous_other_shape": lambda m: m.arange(6.0).reshape(2, 3).t().resize_(2, 2),
    "view_shrink": lambda m: m.arange(6.0)[2:].resize_(1, 2),
    "view_same_numel": lambda m: m.arange(6.0)[1:5].resize_(2, 2),
    "tuple_arg": lambda m: m.zeros(5).resize_((2, 2)),
    "size_arg": lambda m: m.zeros(5).resize_(m.zeros(1, 2).shape),
    "resize_as_": lambda m: m.arange(6.0).resize_as_(m.ones(2, 2)),
    "expanded": lambda m: m.arange(6.0).expand(2, 6).resize_(2, 2),
    "to_empty": lambda m: m.arange(6.0).resize_(0),
}


@pytest.mark.parametrize("name", sorted(RESIZES))
def test_resize_matches_torch(name, torch):
    def run(m):
        out = RESIZES[name](m)
        base = out._base if hasattr(out, "_base") else None
        return tuple(out.shape), out.stride(), out.tolist(), out._version, base is not None

    assert outcome(run, framework) == outcome(run, torch)


def test_resize_shares_storage_as_torch(torch):
    def run(m):
        x = m.arange(6.0)
        v = x[1:4]
        v.resize_(2, 2)  # fits in the storage: still x's memory
        v.fill_(-1)
        y = m.arange(4.0)
        y.resize_(2)
        y.resize_(2, 2)  # shrinking kept the storage: the old elements come back
        return x.tolist(), x._version, _is_view(v), y.tolist()

    assert outcome(run, framework) == outcome(run, torch)


def test_resize_refuses_to_grow_a_views_storage():
    # torch grows the storage its base shares; our storages are arrays, which cannot grow under their views: we
    # refuse with torch's error for storages that cannot grow (torch's own for a tensor over a NumPy array)
    x = framework.arange(4.0)
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable\n\n"):
        x[1:3].resize_(8)
    assert x._version == 0 and x.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_inplace_view_op_gradcheck():
    a = framework.randn(2, 1, 3, dtype=framework.float64, requires_grad=True)

    def f(x):
        y = x * 1
        y.squeeze_(1).t_().unsqueeze_(0).transpose_(0, 2)
        return y.as_strided_((3, 2), (1, 3)) ** 2

    assert framework.autograd.gradcheck(f, (a,))
    assert framework.autograd.gradgradcheck(f, (a,))


def test_set_matches_torch(torch):
    def run(m):
        s = m.arange(6.0).reshape(2, 3)
        x = m.zeros(3)
        same = x.set_(s) is x
        x.fill_(7)  # writes into s's memory
        seen = [same, tuple(x.shape), x.stride(), x._version, s._version, s.tolist(), x.is_leaf]
        x.as_strided_((2,), (2,), 1)  # the offset is in s's storage
        b = m.ones(3, requires_grad=True) * 2
        b.set_(m.ones(2))
        seen += [x.tolist(), b.grad_fn.name(), b.requires_grad, tuple(m.zeros(3).set_().shape)]
        try:
            b.sum().backward()
        except RuntimeError as e:
            seen.append(str(e).split("\n")[0])
        return seen

    assert outcome(run, framework) == outcome(run, torch)


@pytest.mark.parametrize("case", ["leaf", "dtype"])
def test_set_refuses_as_torch(case, torch):
    def run(m):
        if case == "leaf":
            m.ones(3, requires_grad=True).set_(m.ones(2))
        else:
            m.ones(3).set_(m.ones(2, dtype=m.float64))

    result = outcome(run, framework)
    assert result[0] == "error" and result == outcome(run, torch)


def test_view_made_before_its_base_as_strided_refuses_to_guess():
    # torch regenerates such a view from the storage; ours are replays of view ops on the base, which as_strided_
    # cannot undo: the view's in-place change is refused visibly instead of routing gradients wrongly
    a = framework.ones(2, 3, requires_grad=True)
    c = a * 1
    v = c[0]
    c.as_strided_((3, 2), (1, 3))
    with pytest.raises(NotImplementedError, match="as_strided_"):
        v.mul_(2)
    w = c[0]  # made after it: fine
    w.mul_(2)
    (c * c).sum().backward()
    assert a.grad.tolist() == [[8.0, 2.0, 2.0], [8.0, 2.0, 2.0]]
