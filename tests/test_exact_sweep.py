"""PyTorch-exactness outside the fuzzer's reach (grad modes, .grad assignment, autograd.Function extras, module
hooks, optimizers and schedulers): each scenario runs under framework and torch and must end the same way (a
value, or an error's class and first sentence)."""
from __future__ import annotations

import warnings

import pytest

import framework
from scenario import outcome

torch = pytest.importorskip("torch")


def _same(fn):
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
    return ours


def _warnings(fn, m) -> list:
    """The first lines of the warnings fn(m) raises (torch's C++ suffix "(Triggered internally ...)" cut off)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(m)
    return [str(w.message).split(" (Triggered internally")[0].replace("torch.", "framework.") for w in caught]


# ---- grad modes -------------------------------------------------------------------------------------------------

def test_set_grad_enabled_as_decorator_leaves_the_mode_as_it_was():
    def fn(m):
        @m.set_grad_enabled(False)
        def f(x):
            return x * 2
        after_def = m.is_grad_enabled()
        out = f(m.ones(2, requires_grad=True))
        return after_def, out.requires_grad, m.is_grad_enabled()
    try:
        assert _same(fn) == ("ok", (True, False, True))
    finally:
        framework.set_grad_enabled(True)


@pytest.mark.parametrize("outer", ["inference_mode", "no_grad", "none"])
def test_inference_mode_false_turns_grad_mode_on_and_inference_off(outer):
    def fn(m):
        ctx = {"inference_mode": m.inference_mode, "no_grad": m.no_grad}.get(outer)
        with ctx() if ctx else m.enable_grad():
            with m.inference_mode(False):
                x = m.ones(2)
                inner = (m.is_grad_enabled(), m.is_inference_mode_enabled(), x.is_inference())
            return inner, m.is_grad_enabled(), m.is_inference_mode_enabled()
    _same(fn)


# ---- autograd.Function extras -----------------------------------------------------------------------------------

def _mul_fn(m, backward):
    class Mul(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            return backward(ctx, g)
    return Mul


def test_function_backward_returning_a_number_is_torchs_error():
    def fn(m):
        a, b = m.ones(3, requires_grad=True), m.ones(3, requires_grad=True)
        _mul_fn(m, lambda ctx, g: (g, 3)).apply(a, b).sum().backward()
    assert _same(fn)[:3] == ("error", "RuntimeError", "expected Variable or None (got int)")


def test_function_apply_passes_keyword_arguments_to_forward():
    def fn(m):
        a = m.ones(3, requires_grad=True)
        out = _mul_fn(m, lambda ctx, g: (g, g)).apply(a, y=m.full((3,), 2.0))
        out.sum().backward()
        return a.grad.tolist(), type(out.grad_fn).__name__
    _same(fn)


def test_function_non_tensor_outputs_come_back_as_they_are():
    def fn(m):
        seen = []

        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 5, None, x * 3

            @staticmethod
            def backward(ctx, g, g_int, g_none, g3):
                seen.append((g_int, g_none, g3.tolist()))
                return g * 2

        a = m.ones(3, requires_grad=True)
        y, k, n, _ = F.apply(a)
        y.sum().backward()
        return k, n, a.grad.tolist(), seen
    assert _same(fn)[0] == "ok"


def test_function_with_setup_context():
    def fn(m):
        class Scale(m.autograd.Function):
            @staticmethod
            def forward(x, k=3.0):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.k = inputs[1]
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, g):
                ctx.saved_tensors
                return g * ctx.k, None

        a = m.ones(2, requires_grad=True)
        Scale.apply(a).sum().backward()
        Scale.apply(a, k=2.0).sum().backward()
        return a.grad.tolist()
    assert _same(fn) == ("ok", [5.0, 5.0])


def test_function_save_for_backward_refuses_non_tensors():
    def fn(m):
        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 3

            @staticmethod
            def backward(ctx, g):
                return g
        F.apply(m.ones(2, requires_grad=True))
    assert _same(fn)[:2] == ("error", "TypeError")


@pytest.mark.parametrize("method", ["forward", "backward"])
def test_function_without_forward_or_backward_says_so(method):
    def fn(m):
        class F(m.autograd.Function):
            if method == "backward":
                @staticmethod
                def forward(ctx, x):
                    return x * 2
            else:
                @staticmethod
                def backward(ctx, g):
                    return g
        F.apply(m.ones(2, requires_grad=True)).sum().backward()
    assert _same(fn)[:2] == ("error", "NotImplementedError")


def test_function_mark_dirty_on_a_leaf_that_requires_grad():
    def fn(m):
        class Double(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2
        Double.apply(m.ones(3, requires_grad=True))
    assert _same(fn)[:2] == ("error", "RuntimeError")


def test_once_differentiable():
    def fn(m):
        class Square(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2

            @staticmethod
            @m.autograd.function.once_differentiable
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g

        a = m.full((2,), 3.0, requires_grad=True)
        g0, = m.autograd.grad(Square.apply(a).sum(), a, create_graph=True)  # ones: the result needs no grad
        g, = m.autograd.grad(Square.apply(a), a, grad_outputs=m.ones(2, requires_grad=True), create_graph=True)
        seen = (g0.requires_grad, g0.tolist(), g.requires_grad, g.is_leaf, g.grad_fn.name(), g.tolist())
        try:
            g.sum().backward()
        except RuntimeError as e:
            return seen, str(e).split("\n")[0]
    assert _same(fn)[1][1] == "trying to differentiate twice a function that was marked with @once_differentiable"


@pytest.mark.parametrize("anomaly", [False, True])
def test_inplace_error_hint_is_torchs(anomaly):
    """the whole first line, hint included (torch 2.13's names check_nan=False; under anomaly mode another)."""
    def first_line(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with m.autograd.set_detect_anomaly(anomaly):
                a = m.ones(2, requires_grad=True)
                b = a * 1
                loss = (b * b).sum()
                b.add_(1)
                with pytest.raises(RuntimeError) as info:
                    loss.backward()
        return str(info.value).split("\n")[0].replace("torch.", "framework.")
    assert first_line(framework) == first_line(torch)


def test_function_apply_keyword_arguments_are_inputs_in_forwards_order():
    def fn(m):
        seen = []

        class Mul(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y=None, k=2.0):
                seen.append(ctx.needs_input_grad)
                return x * y * k

            @staticmethod
            def backward(ctx, g):
                return g, g * 2, None

        a, y = m.ones(3, requires_grad=True), m.full((3,), 2.0, requires_grad=True)
        Mul.apply(a, k=1.0, y=y).sum().backward()
        return seen, a.grad.tolist(), y.grad.tolist()
    assert _same(fn)[0] == "ok"
