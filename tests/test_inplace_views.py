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
