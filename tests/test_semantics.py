"""Autograd semantics, scenario by scenario, compared with torch (skipped without torch)."""
import pytest

import framework
from conftest import on_device, torch_on_gpu
from scenario import outcome

torch = pytest.importorskip("torch")


def both(fn):
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs, f"\nframework: {ours}\ntorch:     {theirs}"
    return ours


def _names(fn):
    """Walk a grad_fn graph breadth-first and list node names (AccumulateGrad included)."""
    out, frontier, seen = [], [fn], set()
    while frontier:
        node = frontier.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node.name().replace("torch::autograd::", ""))  # torch's C++ nodes carry a namespace
        frontier.extend(n for n, _ in node.next_functions)
    return out


def test_graph_structure_names_and_leafness():
    def run(m):
        x = m.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
        w = m.tensor([0.5, -1.0], requires_grad=True)
        y = (x * w).relu().sum(dim=1).exp().mean()
        return (_names(y.grad_fn), x.is_leaf, y.is_leaf, y.requires_grad, x.grad_fn, y.grad_fn.next_functions[0][1])

    both(run)


def test_accumulation_across_backwards():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        for _ in range(3):
            (x * x).sum().backward()
        return x.grad.tolist()

    assert both(run) == ("ok", [6.0, 12.0])


def test_retain_graph_allows_second_backward():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return [round(v, 4) for v in x.grad.tolist()]

    both(run)


def test_graph_without_saved_tensors_can_backward_twice():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x + 2).sum()
        y.backward()
        y.backward()
        return x.grad.tolist()

    assert both(run) == ("ok", [2.0, 2.0])


def test_second_backward_without_retain_raises():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()

    assert both(run)[0] == "error"


def test_hook_order_replacement_and_retain_grad_sees_hooked_grad():
    def run(m):
        log = []
        x = m.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = a * 3
        a.retain_grad()
        a.register_hook(lambda g: log.append(("a", g.tolist())) or g * 10)
        b.register_hook(lambda g: log.append(("b", g.tolist())))
        x.register_hook(lambda g: log.append(("x", g.tolist())))
        b.sum().backward()
        return log, a.grad.tolist(), x.grad.tolist()

    both(run)


def test_hook_removal():
    def run(m):
        x = m.tensor([1.0], requires_grad=True)
        h = x.register_hook(lambda g: g * 100)
        h.remove()
        (x * 1).sum().backward()
        return x.grad.tolist()

    assert both(run) == ("ok", [1.0])


def test_higher_order_derivatives():
    def run(m):
        x = m.tensor([0.5, 2.0], requires_grad=True)
        y = (x ** 3).sum()
        (g,) = m.autograd.grad(y, x, create_graph=True)
        (g2,) = m.autograd.grad(g.sum(), x, create_graph=True)
        (g3,) = m.autograd.grad(g2.sum(), x)
        return [round(v, 5) for v in g.tolist() + g2.tolist() + g3.tolist()]

    assert both(run) == ("ok", [0.75, 12.0, 3.0, 12.0, 6.0, 6.0])


def test_higher_order_through_nonlinear_ops():
    def run(m):
        x = m.tensor([0.3, -0.7, 1.1], dtype=m.float64, requires_grad=True)
        y = (x.tanh() * x.sigmoid() + x.exp().log() * x.sin()).softmax(0)[0]
        (g,) = m.autograd.grad(y, x, create_graph=True)
        (h,) = m.autograd.grad(g.sum(), x)
        return [round(v, 10) for v in h.tolist()]

    both(run)


def test_backward_with_create_graph_then_grad_of_grad():
    def run(m):
        x = m.tensor(3.0, requires_grad=True)
        y = x ** 2
        y.backward(create_graph=True)
        g = x.grad
        x.grad = None
        g.backward()
        return x.grad.item(), g.requires_grad

    assert both(run) == ("ok", (2.0, True))


def test_autograd_grad_errors():
    def unused(m):
        x = m.tensor([1.0], requires_grad=True)
        z = m.tensor([1.0], requires_grad=True)
        m.autograd.grad((x * 2).sum(), [x, z])

    def unused_ok(m):
        x = m.tensor([1.0], requires_grad=True)
        z = m.tensor([1.0], requires_grad=True)
        return m.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)[1]

    both(unused)
    assert both(unused_ok) == ("ok", None)


def test_grad_does_not_touch_dot_grad():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        (g,) = m.autograd.grad((x * x).sum(), x)
        return g.tolist(), x.grad

    assert both(run) == ("ok", ([2.0, 4.0], None))


def test_backward_inputs_argument():
    def run(m):
        x = m.tensor([1.0], requires_grad=True)
        w = m.tensor([2.0], requires_grad=True)
        h = x * w
        h.retain_grad()
        (h * h).sum().backward(inputs=[w])
        return x.grad, w.grad.tolist()

    both(run)


def test_no_grad_enable_grad_set_grad_enabled():
    def run(m):
        x = m.tensor([1.0], requires_grad=True)
        with m.no_grad():
            a = x * 2
            with m.enable_grad():
                b = x * 2
            with m.set_grad_enabled(True):
                c = x * 2
        m.set_grad_enabled(False)
        d = x * 2
        m.set_grad_enabled(True)

        @m.no_grad()
        def f(t):
            return t * 2

        e = f(x)
        with m.inference_mode():
            i = x * 2
        return [(t.requires_grad, t.is_leaf) for t in (a, b, c, d, e, i)], m.is_grad_enabled()

    both(run)


def test_no_grad_inplace_still_bumps_version():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        with m.no_grad():
            y.mul_(2)
        assert y._version == 1
        y.sum().backward()

    assert both(run)[0] == "error"


def test_detach_shares_version_data_does_not():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        d = x.detach()
        d.add_(1)
        e = x.data
        e.add_(1)
        return x._version, d._version, e._version, x.tolist(), d.requires_grad

    both(run)


def test_requires_grad_errors():
    def int_tensor(m):
        m.tensor([1, 2], requires_grad=True)

    def int_flag(m):
        m.tensor([1, 2]).requires_grad_()

    def non_leaf_flag(m):
        x = m.tensor([1.0], requires_grad=True)
        (x * 2).requires_grad_(False)

    def no_grad_fn(m):
        m.tensor([1.0]).sum().backward()

    def numpy_of_grad(m):
        m.tensor([1.0], requires_grad=True).numpy()

    for fn in (int_tensor, int_flag, non_leaf_flag, no_grad_fn, numpy_of_grad):
        assert both(fn)[0] == "error"


def test_shape_errors_name_the_shapes():
    def mm(m):
        m.ones(2, 3) @ m.ones(2, 3)

    def broadcast(m):
        m.ones(2, 3) + m.ones(2, 4)

    def view(m):
        m.ones(2, 3).view(5)

    def view_noncontig(m):
        m.ones(2, 3).t().view(6)

    def bad_grad_shape(m):
        x = m.ones(3, requires_grad=True)
        (x * 2).backward(m.ones(2))

    for fn in (mm, broadcast, view, view_noncontig, bad_grad_shape):
        assert both(fn)[0] == "error"


def test_autograd_function_custom_op():
    def run(m):
        class MyExp(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return g * y

        x = m.tensor([0.0, 1.0], requires_grad=True)
        y = MyExp.apply(x)
        y.sum().backward()
        return type(y.grad_fn).__name__, [round(v, 5) for v in x.grad.tolist()], y.requires_grad

    both(run)


def test_autograd_function_needs_input_grad_and_mark_dirty():
    def run(m):
        seen = []

        class AddOneInplace(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, other):
                seen.append(ctx.needs_input_grad)
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g, None

        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        c = AddOneInplace.apply(b, m.tensor([0.0]))
        same = c is b
        c.sum().backward()
        return seen, same, b._version, a.grad.tolist()

    both(run)


def test_repr_matches_torch():
    def run(m):
        return [repr(t).replace("torch.", "framework.") for t in (
            m.tensor([[1.5, 1.5]]), m.tensor([1e-5, 1e5]), m.tensor([1, 2, 3]), m.tensor([1.0, 2.0], dtype=m.float64),
            m.tensor([True, False]), m.tensor(float("nan")), m.tensor([float("inf"), 1.5]), m.tensor([-1.5, 2.0]),
            m.arange(1200).float(), m.ones(2, 3, requires_grad=True), m.tensor([1, 2], dtype=m.int32),
            m.zeros(0), m.zeros(2, 0), m.tensor(123456789.0), m.linspace(-1, 1, 30).view(3, 10))]

    def shown(m):  # torch on the CPU: its reprs as torch prints them on the test device
        return run(m) if m is framework or torch_on_gpu() else [on_device(r) for r in run(m)]

    both(shown)


def test_dtype_promotion():
    def run(m):
        f32 = m.ones(2)
        f64 = m.ones(2, dtype=m.float64)
        i64 = m.ones(2, dtype=m.int64)
        return [str(t.dtype).split(".")[-1] for t in (
            f32 * 2.5, i64 * 2.5, i64 * 2, f32 + f64, f32 + m.tensor(1.0, dtype=m.float64), i64 / i64,
            i64 + f32, f32 * True, i64.sum(), m.tensor([1, 2]) * m.tensor(1.5))]

    both(run)


def test_long_chain_is_iterative():
    x = framework.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.sum().backward()
    assert abs(x.grad.item() - 1.0001 ** 10_000) < 1e-2


def test_custom_function_wrong_gradient_shape():
    def run(m):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g.sum()

        Bad.apply(m.ones(3, requires_grad=True)).sum().backward()

    assert both(run)[0] == "error"


def test_custom_function_broadcast_gradient_is_summed():
    def run(m):
        class Wide(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g.expand(4, 3) * 1.0

        x = m.ones(3, requires_grad=True)
        Wide.apply(x).sum().backward()
        return x.grad.tolist()

    assert both(run) == ("ok", [4.0, 4.0, 4.0])
