"""framework.autograd.graph against torch.autograd.graph: saved-tensor hooks (which saves go through them, in which
order, what unpack gives back, the errors), save_on_cpu, Node, GradientEdge, register_multi_grad_hook,
increment_version."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from framework.autograd.graph import saved_tensors_hooks
from scenario import error_of

torch = pytest.importorskip("torch")


def _leaves(m):
    a = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
    b = m.tensor([1.5, 0.25, -0.75], dtype=m.float64, requires_grad=True)
    return a, b


def _logged(m, log):
    """Hooks that log what they see: the tensor's grad_fn name, requires_grad and shape; unpack logs too."""
    def pack(t):
        log.append(("pack", t.grad_fn.name() if t.grad_fn is not None else None, t.requires_grad, tuple(t.shape)))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t
    return m.autograd.graph.saved_tensors_hooks(pack, unpack)


# ops whose saved tensors are the same as torch's (exp saves its result, sin its input, mul both inputs)
SCENARIOS = {
    "exp": lambda m, a, b: a.exp(),
    "sin_of_nonleaf": lambda m, a, b: (a * 2).sin(),
    "tanh_then_sin": lambda m, a, b: a.tanh().sin(),
    "mul_both_require_grad": lambda m, a, b: a * b,
    "matmul": lambda m, a, b: a.unsqueeze(0) @ b.unsqueeze(1),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_pack_and_unpack_calls_match_torch(name):
    results = []
    for m in (framework, torch):
        a, b = _leaves(m)
        log = []
        with _logged(m, log):
            y = SCENARIOS[name](m, a, b)
        packs = list(log)
        y.sum().backward(retain_graph=True)
        first = log[len(packs):]
        y.sum().backward()  # a second backward unpacks again (retain_graph kept the packed values)
        second = log[len(packs) + len(first):]
        results.append((sorted(packs, key=str), first, second, a.grad.tolist(), y.grad_fn.name()))
    ours, theirs = results
    assert ours[0] == theirs[0]  # what was packed (as a multiset: the order of mul's two saves differs)
    assert len(ours[1]) == len(theirs[1]) and len(ours[2]) == len(theirs[2])
    assert ours[3:] == theirs[3:]


def test_pack_receives_the_tensors_themselves_and_unpack_gives_their_history():
    for m in (framework, torch):
        a, b = _leaves(m)
        packed = []
        with m.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t.detach(), lambda t: t):
            y = a.exp()
            z = (a * 2).sin()
        assert packed[0] is y  # an output: the output tensor itself
        assert packed[1].grad_fn.name() == "MulBackward0"  # an input: the tensor itself, with its history
        unpacked = []
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: unpacked.append(t) or t):
            w = a.sin()
        w.sum().backward()
        assert len(unpacked) == 1 and unpacked[0] is not a
        assert z.grad_fn.name() == "SinBackward0"


def test_pack_runs_under_no_grad_and_not_at_all_when_nothing_is_recorded():
    for m in (framework, torch):
        a, _ = _leaves(m)
        modes = []
        with m.autograd.graph.saved_tensors_hooks(lambda t: modes.append(m.is_grad_enabled()) or t, lambda t: t):
            a.exp()
            with m.no_grad():
                a.exp()
            m.ones(3).exp()  # nothing requires grad: nothing saved
        assert modes == [False]


def test_only_the_innermost_pair_applies():
    for m in (framework, torch):
        a, _ = _leaves(m)
        seen = []
        with m.autograd.graph.saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t):
            with m.autograd.graph.saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t):
                a.exp()
            a.exp()
        assert seen == ["inner", "outer"]


def test_hooked_saved_tensors_skip_the_version_check_as_torch():
    grads = []
    for m in (framework, torch):
        a, _ = _leaves(m)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            x = a.clone()
            y = x.exp()
        y.mul_(2)  # would be a version error without hooks: the hooks own the saved value
        y.sum().backward()
        grads.append(a.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_unpacked_leaf_keeps_its_grad_accumulator_for_double_backward():
    grads = []
    for m in (framework, torch):
        a, _ = _leaves(m)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = (a * a * a).sum()
        g, = m.autograd.grad(y, a, create_graph=True)
        g.sum().backward()
        grads.append(a.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_custom_function_save_for_backward_goes_through_the_hooks():
    results = []
    for m in (framework, torch):
        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                out = x * y
                ctx.save_for_backward(x, out, None)
                return out

            @staticmethod
            def backward(ctx, g):
                x, out, none = ctx.saved_tensors
                seen.append((x is a, out.grad_fn.name(), none))
                return g * 2, g * 3
        a, b = _leaves(m)
        log, seen = [], []
        with _logged(m, log):
            o = F.apply(a, b)
        o.sum().backward()
        results.append((log, seen))
    assert results[0] == results[1]


def test_errors_match_torch():
    def unpack_not_a_tensor(m):
        a, _ = _leaves(m)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = a.exp()
        y.sum().backward()

    def pack_modifies_input(m):
        a, _ = _leaves(m)
        x = a.detach().clone().requires_grad_()

        def bad(t):
            t.add_(1)
            return t
        with m.autograd.graph.saved_tensors_hooks(bad, lambda t: t):
            (x * 2).exp()

    def backward_twice(m):
        a, _ = _leaves(m)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = a.exp()
        y.sum().backward()
        y.sum().backward()

    def disabled(m):
        with m.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass

    def disable_while_active(m):
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with m.autograd.graph.disable_saved_tensors_hooks("not while hooks are on"):
                pass

    def nested_disable_restores_the_outer_message(m):
        with m.autograd.graph.disable_saved_tensors_hooks("outer"):
            with m.autograd.graph.disable_saved_tensors_hooks("inner"):
                pass
            with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass

    def enabled_again_after(m):
        with m.autograd.graph.disable_saved_tensors_hooks("x"):
            pass
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass

    for fn in (unpack_not_a_tensor, pack_modifies_input, backward_twice, disabled, disable_while_active,
               nested_disable_restores_the_outer_message, enabled_again_after):
        ours, theirs = error_of(lambda: fn(framework)), error_of(lambda: fn(torch))
        assert ours == theirs, fn.__name__


def test_save_on_cpu_round_trips_and_gives_torchs_gradients():
    grads = []
    for m in (framework, torch):
        a, b = _leaves(m)
        prod_1 = a * b
        with m.autograd.graph.save_on_cpu():
            prod_2 = prod_1 * b.tanh()
        y = (prod_2 * a).sin().sum()
        y.backward()
        grads.append((a.grad.tolist(), b.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_save_on_cpu_keeps_saved_arrays_on_the_host():
    a = framework.randn(4, requires_grad=True)
    with framework.autograd.graph.save_on_cpu(pin_memory=True):
        y = (a * 3).exp()
    packed = y.grad_fn._saved[0].packed
    assert str(packed[1].device) == "cpu"  # (under FRAMEWORK_TEST_DEVICE=strict, `a` is on the device)
    assert str(packed[0]) == str(a.device)
    y.sum().backward()
    assert str(a.grad.device) == str(a.device)
    np.testing.assert_allclose(a.grad.cpu().numpy(), 3 * np.exp(3 * a.detach().cpu().numpy()), rtol=1e-5)


def test_hooks_are_thread_local():
    import threading
    seen = []
    with saved_tensors_hooks(lambda t: seen.append("main") or t, lambda t: t):
        def other():
            framework.randn(2, requires_grad=True).exp()
        th = threading.Thread(target=other)
        th.start()
        th.join()
    assert seen == []


def test_nodes_are_graph_nodes():
    for m in (framework, torch):
        a, b = _leaves(m)
        c = a * b
        acc = c.grad_fn.next_functions[0][0]
        assert isinstance(c.grad_fn, m.autograd.graph.Node) and isinstance(acc, m.autograd.graph.Node)
        assert not isinstance(a, m.autograd.graph.Node)
        assert c.grad_fn._sequence_nr() < (c * 2).grad_fn._sequence_nr()


def _multi_hook_log(m):
    a, b = _leaves(m)
    c, d = a * b, a * b
    out = []

    def fn(grads):
        out.append([None if g is None else g.tolist() for g in grads])
    h = m.autograd.graph.register_multi_grad_hook((a, b, c, d), fn)
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    m.autograd.grad(c.sum(), (c,), retain_graph=True)
    (c.sum() + d.sum()).backward(retain_graph=True)
    out.append(error_of(lambda: m.autograd.grad(c.sum(), (a,), retain_graph=True)))
    h.remove()
    c.sum().backward(retain_graph=True)
    h = m.autograd.graph.register_multi_grad_hook((a, b, c), lambda g: out.append(g.tolist()), mode="any")
    (c * 2).sum().backward(retain_graph=True)
    c.sum().backward(retain_graph=True)
    h.remove()
    out.append(error_of(lambda: m.autograd.graph.register_multi_grad_hook((a,), fn, mode="x")))
    return out


def test_register_multi_grad_hook_matches_torch():
    assert _multi_hook_log(framework) == _multi_hook_log(torch)


def _edge_log(m):
    a, b = _leaves(m)
    out = []
    e = m.autograd.graph.get_gradient_edge(a)
    out.append((type(e).__name__, e.output_nr))
    y = (a * b).sin()
    out.append(m.autograd.grad(y.sum(), e, retain_graph=True)[0].tolist())
    mid = a * b
    z = mid.sin()
    ge = m.autograd.graph.get_gradient_edge(mid)
    out.append(m.autograd.grad(z.sum(), ge, retain_graph=True)[0].tolist())
    out.append(m.autograd.grad(ge, a, grad_outputs=m.ones(3, dtype=m.float64))[0].tolist())
    a.grad = None
    z2 = (a * b).sin()
    z2.sum().backward(inputs=[m.autograd.graph.get_gradient_edge(a)])
    out.append((a.grad.tolist(), b.grad))
    out.append(error_of(lambda: m.autograd.graph.get_gradient_edge(m.ones(2))))
    out.append(error_of(lambda: m.autograd.grad((a * 2).sum(), [e, b], materialize_grads=True)))
    return out


def test_gradient_edges_match_torch():
    ours, theirs = _edge_log(framework), _edge_log(torch)
    assert ours[:3] == theirs[:3] and ours[5:] == theirs[5:]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12)
    np.testing.assert_allclose(ours[4][0], theirs[4][0], rtol=1e-12)
    assert ours[4][1] is None and theirs[4][1] is None


def test_increment_version_matches_torch():
    for m in (framework, torch):
        x = m.ones(2)
        v = x._version
        m.autograd.graph.increment_version(x)
        m.autograd.graph.increment_version([x, x])
        assert x._version - v == 3
    a = framework.ones(2, requires_grad=True).clone()
    y = a.exp()
    framework.autograd.graph.increment_version(y)  # a write autograd could not see: backward refuses the value
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def _mutation_log(m):
    graph = m.autograd.graph
    out = []
    with graph.allow_mutation_on_saved_tensors():
        a = m.tensor([[0.5, -1.0, 2.0]], dtype=m.float64, requires_grad=True)
        b = a.clone()
        o = (b ** 2).sum()
        b.sin_()  # b was saved by pow: backward still uses its old values
        o.backward()
        out.append(a.grad.tolist())
        y = (a * 3).exp()
        y.mul_(0.5)
        y.sum().backward()
        out.append(a.grad.tolist())
    with graph.allow_mutation_on_saved_tensors():
        z = (a * 3).sin()
    out.append(error_of(lambda: z.sum().backward()))

    def nested():
        with graph.allow_mutation_on_saved_tensors():
            with graph.allow_mutation_on_saved_tensors():
                pass
    out.append(error_of(nested))
    return out


def test_allow_mutation_on_saved_tensors_matches_torch():
    ours, theirs = _mutation_log(framework), _mutation_log(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert ours[2:] == theirs[2:]
    a = framework.ones(2, requires_grad=True)
    b = a.clone()
    o = (b ** 2).sum()
    b.sin_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):  # outside the context: refused
        o.backward()


def _inplace_and_views(m, hooks):
    a = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
    b = m.tensor([1.5, 0.25, -0.75], dtype=m.float64, requires_grad=True)
    log = []
    ctx = m.autograd.graph.saved_tensors_hooks(lambda t: log.append(tuple(t.shape)) or t.detach(), lambda t: t) \
        if hooks else None
    if ctx is not None:
        ctx.__enter__()
    x = a.clone()
    x.mul_(b)
    x.sin_()
    x.pow_(2)
    y = x[1:]
    y.exp_()  # an in-place op on a view: CopySlices
    z = x.view(3, 1).t().tanh()
    w = x.addcmul(a, b).div_(b.exp())
    if ctx is not None:
        ctx.__exit__(None, None, None)
    g = m.autograd.grad(x.sum() + z.sum() + w.sum(), [a, b], create_graph=True)
    g2 = m.autograd.grad(sum(gi.sum() for gi in g), [a, b], retain_graph=True)
    return [t.tolist() for t in g + g2], sorted(log)


def test_inplace_ops_and_views_under_hooks_match_torch():
    ours, theirs = _inplace_and_views(framework, True), _inplace_and_views(torch, True)
    plain = _inplace_and_views(framework, False)[0]
    assert ours[1] == theirs[1]  # the same tensors packed
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    np.testing.assert_allclose(ours[0], plain, rtol=1e-12)
