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


# ---- nn.Module hooks --------------------------------------------------------------------------------------------

def _linear(m):
    lin = m.nn.Linear(2, 2)
    with m.no_grad():
        lin.weight.copy_(m.tensor([[1.0, 2.0], [3.0, 4.0]]))
        lin.bias.copy_(m.tensor([0.5, -0.5]))
    return lin


def _sh(t):
    """What a hook saw, comparable across libraries: shapes, dtypes and values, None as None."""
    if t is None:
        return None
    if isinstance(t, (tuple, list)):
        return type(t).__name__, [_sh(x) for x in t]
    return tuple(t.shape), str(t.dtype).split(".")[-1], [round(float(v), 5) for v in t.detach().reshape(-1).tolist()]


def _two_inputs(m):
    class Mul(m.nn.Module):
        def forward(self, a, b=None):
            return a * b
    return Mul()


@pytest.mark.parametrize("scenario", ["linear", "input_needs_no_grad", "two_inputs_one_needs_grad", "keyword_input",
                                      "non_tensor_input"])
def test_full_backward_hook_sees_torchs_grad_input_and_grad_output(scenario):
    def fn(m):
        seen = []

        def register(mod):
            mod.register_full_backward_pre_hook(lambda mm, go: seen.append(("pre", _sh(go))))
            mod.register_full_backward_hook(lambda mm, gi, go: seen.append(("hook", _sh(gi), _sh(go))))
            return mod
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if scenario in ("linear", "input_needs_no_grad"):
                out = register(_linear(m))(m.ones(1, 2, requires_grad=scenario == "linear"))
            else:
                mod = register(_two_inputs(m))
                a = m.ones(2, requires_grad=True)
                out = {"two_inputs_one_needs_grad": lambda: mod(a, m.full((2,), 3.0)),
                       "keyword_input": lambda: mod(a, b=m.full((2,), 3.0, requires_grad=True)),
                       "non_tensor_input": lambda: mod(a, 3.0)}[scenario]()
            name = out.grad_fn.name()
            out.sum().backward()
        return seen, name, [str(w.message).replace("torch.", "framework.") for w in caught]
    assert _same(fn)[0] == "ok"


def test_backward_hooks_can_replace_gradients():
    def fn(m):
        lin = _linear(m)
        lin.register_full_backward_pre_hook(lambda mm, go: (go[0] * 3,))
        lin.register_full_backward_hook(lambda mm, gi, go: (gi[0] * 10,))
        mul = _two_inputs(m)
        mul.register_full_backward_hook(lambda mm, gi, go: (gi[0] * 10, None))
        x, a, b = m.ones(1, 2, requires_grad=True), m.ones(2, requires_grad=True), m.full((2,), 3.0, requires_grad=True)
        lin(x).sum().backward()
        mul(a, b).sum().backward()
        return _sh(x.grad), _sh(lin.weight.grad), _sh(a.grad), _sh(b.grad)
    assert _same(fn)[0] == "ok"


def test_backward_hook_on_a_module_with_several_outputs():
    def fn(m):
        class Two(m.nn.Module):
            def forward(self, a):
                return a * 2, a * 3
        seen = []
        mod = Two()
        mod.register_full_backward_hook(lambda mm, gi, go: seen.append((_sh(gi), _sh(go))))
        a = m.ones(2, requires_grad=True)
        first, _ = mod(a)
        first.sum().backward()
        return seen
    assert _same(fn)[0] == "ok"


@pytest.mark.parametrize("case", ["inplace_on_output", "inplace_relu", "wrong_count", "pre_wrong_count", "mixed",
                                  "mixed_other_order", "no_input_grad_returns"])
def test_backward_hook_errors(case):
    def fn(m):
        lin = _linear(m)
        x = m.ones(1, 2, requires_grad=True)
        if case == "inplace_on_output":
            lin.register_full_backward_hook(lambda *a: None)
            lin(x).add_(1)
        elif case == "inplace_relu":
            relu = m.nn.ReLU(inplace=True)
            relu.register_full_backward_hook(lambda *a: None)
            relu(x * 1)
        elif case == "wrong_count":
            lin.register_full_backward_hook(lambda mm, gi, go: (gi[0], gi[0]))
            lin(x).sum().backward()
        elif case == "pre_wrong_count":
            lin.register_full_backward_pre_hook(lambda mm, go: (go[0], go[0]))
            lin(x).sum().backward()
        elif case == "mixed":
            lin.register_backward_hook(lambda *a: None)
            lin.register_full_backward_hook(lambda *a: None)
        elif case == "mixed_other_order":
            lin.register_full_backward_hook(lambda *a: None)
            lin.register_backward_hook(lambda *a: None)
        else:
            lin.register_full_backward_hook(lambda mm, gi, go: (m.ones(1, 2),))
            lin(m.ones(1, 2)).sum().backward()
    assert _same(fn)[:2] == ("error", "RuntimeError")


def test_legacy_backward_hook():
    def fn(m):
        seen = []
        lin, relu = _linear(m), m.nn.ReLU()
        for mod in (lin, relu):
            mod.register_backward_hook(lambda mm, gi, go: seen.append((type(mm).__name__, _sh(gi), _sh(go))))
        x = m.ones(1, 2, requires_grad=True)
        return seen, _warnings(lambda m: relu(lin(x)).sum().backward(), m)
    assert _same(fn)[0] == "ok"


def test_forward_hook_options():
    def fn(m):
        order = []

        class Scale(m.nn.Module):
            def forward(self, a, scale=1.0):
                if scale < 0:
                    raise ValueError("negative scale")
                return a * scale
        mod = Scale()
        mod.register_forward_pre_hook(lambda mm, a, k: ((a[0] * 2,), {**k, "scale": 3.0}), with_kwargs=True)
        mod.register_forward_hook(lambda mm, a, k, o: order.append(("kw", sorted(k), _sh(o))), with_kwargs=True)
        mod.register_forward_hook(lambda mm, a, o: order.append("first"), prepend=True)
        out = mod(m.ones(1), scale=1.0)
        failing = Scale()
        failing.register_forward_hook(lambda mm, a, o: order.append(("always", o)), always_call=True)
        failing.register_forward_hook(lambda mm, a, o: order.append("not called"))
        try:
            failing(m.ones(1), scale=-1.0)
        except ValueError:
            order.append("raised")
        with mod.register_forward_hook(lambda mm, a, o: order.append("scoped")):
            mod(m.ones(1))
        mod(m.ones(1))
        return _sh(out), order
    assert _same(fn)[0] == "ok"


def test_forward_pre_hook_with_kwargs_must_return_a_pair():
    def fn(m):
        lin = _linear(m)
        lin.register_forward_pre_hook(lambda mm, a, k: a, with_kwargs=True)
        lin(m.ones(1, 2))
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours[:2] == theirs[:2] == ("error", "RuntimeError")
    head = "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got ("
    assert ours[2].startswith(head) and theirs[2].startswith(head)  # (then the value's repr, which names a device)


def test_state_dict_hooks():
    def fn(m):
        seen = []
        lin = _linear(m)
        lin.register_state_dict_pre_hook(lambda mm, prefix, keep_vars: seen.append(("pre", prefix, keep_vars)))
        lin.register_state_dict_post_hook(lambda mm, sd, prefix, meta: sd.__setitem__(prefix + "extra", m.zeros(1)))
        seq = m.nn.Sequential(lin)
        keys = sorted(seq.state_dict())

        def rename(mm, sd, prefix, *rest):
            seen.append(("load_pre", prefix, sorted(sd)))
            sd[prefix + "weight"] = sd.pop(prefix + "w")

        def drop_extra(mm, keys):
            seen.append(("load_post", type(mm).__name__, list(keys.missing_keys), list(keys.unexpected_keys)))
            if "0.extra" in keys.unexpected_keys:
                keys.unexpected_keys.remove("0.extra")
        lin.register_load_state_dict_pre_hook(rename)
        lin.register_load_state_dict_post_hook(drop_extra)
        seq.register_load_state_dict_post_hook(lambda mm, keys: seen.append(("seq_post", type(mm).__name__)))
        result = seq.load_state_dict({"0.w": m.zeros(2, 2), "0.bias": m.ones(2), "0.extra": m.zeros(1)})
        return keys, seen, repr(result), lin.weight.tolist()
    assert _same(fn)[0] == "ok"


def test_public_state_dict_post_hook_must_return_none():
    def fn(m):
        lin = _linear(m)
        lin.register_state_dict_post_hook(lambda mm, sd, prefix, meta: sd)
        lin.state_dict()
    assert _same(fn)[:2] == ("error", "RuntimeError")


@pytest.mark.parametrize("case", ["tensor_as_parameter", "number_as_parameter", "tensor_as_module", "register_tensor",
                                  "register_non_leaf", "add_non_module", "dotted_name"])
def test_module_assignment_checks(case):
    def fn(m):
        lin, seq = _linear(m), m.nn.Sequential(m.nn.Linear(1, 1))
        if case == "tensor_as_parameter":
            lin.weight = m.zeros(2, 2)
        elif case == "number_as_parameter":
            lin.bias = 3
        elif case == "tensor_as_module":
            seq.__setattr__("0", m.zeros(1))
        elif case == "register_tensor":
            lin.register_parameter("p", m.zeros(1))
        elif case == "register_non_leaf":
            lin.register_parameter("p", m.nn.Parameter(m.ones(1)) * 2)
        elif case == "add_non_module":
            seq.add_module("x", 3)
        else:
            lin.register_parameter("a.b", m.nn.Parameter(m.ones(1)))
        return sorted(n for n, _ in lin.named_parameters())
    _same(fn)


def test_assigning_parameters_modules_and_plain_values_moves_between_stores():
    def fn(m):
        lin = _linear(m)
        lin.bias = None
        lin.extra = 3
        lin.extra = m.nn.ReLU()  # a module takes the name from the plain attribute
        lin.extra = None  # and keeps it: None empties the slot
        lin.register_buffer("buf", m.ones(1))
        lin.buf = m.zeros(1)
        lin.buf = m.nn.Parameter(m.ones(1))  # a parameter takes the name from the buffer
        return (sorted(n for n, _ in lin.named_parameters()), sorted(n for n, _ in lin.named_buffers()),
                [n for n, _ in lin.named_children()], lin.bias)
    _same(fn)


@pytest.mark.parametrize("target", ["0.foo", "0.0.weight.x", "0.0.bias", "0.0.nothing", "0", "", "x.weight"])
@pytest.mark.parametrize("getter", ["get_submodule", "get_parameter", "get_buffer"])
def test_get_submodule_parameter_buffer(getter, target):
    def fn(m):
        seq = m.nn.Sequential(m.nn.Sequential(m.nn.Linear(1, 1)))
        seq[0].register_buffer("b", m.zeros(1))
        found = getattr(seq, getter)(target)
        return type(found).__name__, tuple(found.shape) if isinstance(found, m.Tensor) else None
    _same(fn)


def test_named_parameters_and_buffers_remove_duplicate():
    def fn(m):
        seq = m.nn.Sequential(m.nn.Linear(1, 1), m.nn.BatchNorm1d(1))
        seq.add_module("dup", seq[0])
        return ([n for n, _ in seq.named_parameters()], [n for n, _ in seq.named_parameters(remove_duplicate=False)],
                [n for n, _ in seq.named_buffers(remove_duplicate=False)], [n for n, _ in seq.named_parameters(recurse=False)])
    _same(fn)


@pytest.mark.parametrize("how", ["attribute", "method", "parameter", "factory"])
def test_integer_tensor_requiring_grad_is_torchs_error(how):
    """torch words it three ways: `t.requires_grad = True`, `t.requires_grad_()`, Parameter(t) / a factory."""
    def fn(m):
        t = m.ones(2, dtype=m.int64)
        if how == "attribute":
            t.requires_grad = True
        elif how == "method":
            t.requires_grad_()
        elif how == "parameter":
            m.nn.Parameter(t)
        else:
            m.ones(2, dtype=m.int64, requires_grad=True)
    assert _same(fn)[:2] == ("error", "RuntimeError")


# ---- .grad assignment, backward() and autograd.grad options -----------------------------------------------------

@pytest.mark.parametrize("case", ["shape", "dtype", "int", "half", "shape_and_dtype", "itself", "non_leaf_itself"])
def test_grad_assignment_checks(case):
    def fn(m):
        a = m.ones(2, 3, requires_grad=True)
        value = {"shape": lambda: m.ones(3, 2), "dtype": lambda: m.ones(2, 3, dtype=m.float64),
                 "int": lambda: m.ones(2, 3, dtype=m.int64), "half": lambda: m.ones(2, 3, dtype=m.float16),
                 "shape_and_dtype": lambda: m.ones(3, dtype=m.float64), "itself": lambda: a,
                 "non_leaf_itself": None}[case]
        if value is None:
            b = a * 2
            b.grad = b
        else:
            a.grad = value()
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours[:2] == theirs[:2] == ("error", "RuntimeError")
    assert ours[2].split(". ")[0] == theirs[2].split(". ")[0]  # the first sentence (torch goes on about grad_dtype)


@pytest.mark.parametrize("case", ["grad_empty", "backward_empty", "materialize_not_allowed", "batched_shape"])
def test_autograd_argument_errors(case):
    def fn(m):
        a = m.ones(2, requires_grad=True)
        if case == "grad_empty":
            m.autograd.grad((a * 2).sum(), [])
        elif case == "backward_empty":
            (a * 2).sum().backward(inputs=[])
        elif case == "materialize_not_allowed":
            m.autograd.grad((a * 2).sum(), a, allow_unused=False, materialize_grads=True)
        else:
            m.autograd.grad(a * 2, a, grad_outputs=m.ones(2), is_grads_batched=True)
    ours = _same(fn)
    assert ours[0] == "error"


def test_autograd_grad_options():
    def fn(m):
        a, unused = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
        out = {}
        out["materialize"] = [None if g is None else (g.tolist(), g.requires_grad) for g in
                              m.autograd.grad((a * 2).sum(), [a, unused], materialize_grads=True)]
        out["materialize_graph"] = [g.requires_grad for g in m.autograd.grad(
            (a * a).sum(), [a, unused], materialize_grads=True, create_graph=True)]
        out["batched"] = m.autograd.grad(a * a, a, grad_outputs=m.eye(2), is_grads_batched=True)[0].tolist()
        out["batched_unused"] = [None if g is None else g.tolist() for g in m.autograd.grad(
            a * 3, [a, unused], grad_outputs=m.eye(2), is_grads_batched=True, allow_unused=True)]
        out["dict"] = {k: v.tolist() for k, v in m.autograd.grad((a * 3).sum(), {"x": a}).items()}
        out["only_inputs"] = _warnings(lambda m: m.autograd.grad((a * 2).sum(), a, only_inputs=False), m)
        return out
    _same(fn)


def test_backward_with_create_graph_warns_once_as_torch():
    """torch warns once per process (TORCH_WARN_ONCE), so only our side is checked, against torch's text."""
    framework.autograd._create_graph_warned = False

    def run(m):
        a = m.ones(2, requires_grad=True)
        (a * a).sum().backward(create_graph=True)
        m.autograd.backward((a * a).sum(), create_graph=True)
    caught = _warnings(run, framework)
    assert len(caught) == 1 and caught[0].startswith(
        "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient")


# ---- inference tensors ------------------------------------------------------------------------------------------

INFERENCE_SCENARIOS = {
    "saved_by_mul": lambda m, t: m.ones(3, requires_grad=True) * t,
    "saved_by_exp_mul": lambda m, t: (m.ones(3, requires_grad=True).exp() * t).sum().backward(),
    "saved_by_mm": lambda m, t: m.mm(m.ones(1, 3, requires_grad=True), t.view(3, 1)),
    "saved_by_linear": lambda m, t: m.nn.functional.linear(m.ones(1, 3, requires_grad=True), t.view(1, 3)),
    "not_saved_by_add": lambda m, t: (m.ones(3, requires_grad=True) + t).grad_fn.name(),
    "add_": lambda m, t: t.add_(1),
    "add_under_no_grad": lambda m, t: _under(m.no_grad(), lambda: t.add_(1)),
    "setitem": lambda m, t: t.__setitem__(0, 2.0),
    "zero_": lambda m, t: t.zero_(),
    "copy_": lambda m, t: t.copy_(m.zeros(3)),
    "view_add_": lambda m, t: t.view(3).add_(1),
    "relu_inplace": lambda m, t: m.nn.functional.relu(t, inplace=True),
    "inplace_inside": lambda m, t: _under(m.inference_mode(), lambda: t.add_(1).tolist()),
    "requires_grad_": lambda m, t: t.requires_grad_(),
    "requires_grad_false": lambda m, t: t.requires_grad_(False).is_inference(),
    "clone_requires_grad": lambda m, t: t.clone().requires_grad_().is_leaf,
    "views_are_inference": lambda m, t: (t.view(3).is_inference(), t[1:].is_inference(), (t * 2).is_inference()),
    "version": lambda m, t: t[:2]._version,
}


def _under(ctx, fn):
    with ctx:
        return fn()


@pytest.mark.parametrize("scenario", sorted(INFERENCE_SCENARIOS))
def test_inference_tensor_outside_inference_mode(scenario):
    def fn(m):
        with m.inference_mode():
            t = m.ones(3)
        out = INFERENCE_SCENARIOS[scenario](m, t)
        return out if isinstance(out, (bool, int, str, tuple, list)) or out is None else "tensor"
    _same(fn)


# ---- optimizers and LR schedulers -------------------------------------------------------------------------------

def _sgd(m, **kw):
    p = m.nn.Parameter(m.tensor([1.0, 2.0]))
    return p, m.optim.SGD([p], lr=0.1, **kw)


def test_zero_grad_set_to_none_false_zeroes_the_same_tensor():
    def fn(m):
        p, opt = _sgd(m)
        lin = m.nn.Linear(2, 1)
        (p * p).sum().backward()
        lin(m.ones(1, 2)).sum().backward()
        g, w = p.grad, lin.weight.grad
        opt.zero_grad(set_to_none=False)
        lin.zero_grad(set_to_none=False)
        return p.grad is g, lin.weight.grad is w, p.grad.tolist(), w.tolist()
    assert _same(fn) == ("ok", (True, True, [0.0, 0.0], [[0.0, 0.0]]))


@pytest.mark.parametrize("order", ["scheduler_first", "optimizer_first", "get_lr", "epoch_argument"])
def test_scheduler_warnings(order):
    def fn(m):
        p, opt = _sgd(m)
        sched = m.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)

        def run(m):
            if order == "scheduler_first":
                sched.step()
                opt.step()
            elif order == "optimizer_first":
                opt.step()
                sched.step()
            elif order == "get_lr":
                sched.get_lr()
            else:
                opt.step()
                sched.step(3)
        return _warnings(run, m), opt.param_groups[0]["lr"], sched.get_last_lr()
    _same(fn)


def test_scheduler_resumed_without_initial_lr():
    def fn(m):
        _, opt = _sgd(m)
        m.optim.lr_scheduler.StepLR(opt, step_size=1, last_epoch=3)
    assert _same(fn)[:2] == ("error", "KeyError")


SCHEDULERS = {
    "ConstantLR": lambda s, o: s.ConstantLR(o, factor=0.5, total_iters=3),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, total_iters=4, power=2.0),
    "CosineAnnealingWarmRestarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
    "SequentialLR": lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.1, total_iters=3),
                                                    s.ExponentialLR(o, gamma=0.9)], milestones=[3]),
    "SequentialLR_cosine": lambda s, o: s.SequentialLR(o, [s.ConstantLR(o, factor=0.5, total_iters=2),
                                                           s.CosineAnnealingLR(o, T_max=4)], milestones=[2]),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_more_schedulers_follow_torchs_sequence(name):
    def fn(m):
        _, opt = _sgd(m)
        sched = SCHEDULERS[name](m.optim.lr_scheduler, opt)
        lrs = []
        for _ in range(12):
            opt.step()
            sched.step()
            lrs.append(opt.param_groups[0]["lr"])
        state = sched.state_dict()
        return lrs, sched.get_last_lr(), sorted(k for k in state if k != "_get_lr_called_within_step")
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours[0] == theirs[0] == "ok"
    assert ours[1][0] == pytest.approx(theirs[1][0], rel=1e-12, abs=1e-15)
    assert ours[1][1] == pytest.approx(theirs[1][1], rel=1e-12, abs=1e-15) and ours[1][2] == theirs[1][2]


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "LinearLR", "CosineAnnealingLR",
                                  "ConstantLR", "PolynomialLR", "CosineAnnealingWarmRestarts"])
def test_scheduler_step_with_an_epoch_uses_the_closed_form(name):
    def fn(m):
        _, opt = _sgd(m)
        s = m.optim.lr_scheduler
        sched = {"StepLR": lambda: s.StepLR(opt, 2, gamma=0.5), "MultiStepLR": lambda: s.MultiStepLR(opt, [2, 5, 5]),
                 "ExponentialLR": lambda: s.ExponentialLR(opt, 0.9), "LinearLR": lambda: s.LinearLR(opt),
                 "CosineAnnealingLR": lambda: s.CosineAnnealingLR(opt, 10), "ConstantLR": lambda: s.ConstantLR(opt),
                 "PolynomialLR": lambda: s.PolynomialLR(opt),
                 "CosineAnnealingWarmRestarts": lambda: s.CosineAnnealingWarmRestarts(opt, 3, T_mult=2)}[name]()
        lrs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in (4, 1, 7, 7.5 if name == "CosineAnnealingWarmRestarts" else 9):
                opt.step()
                sched.step(epoch)
                lrs.append(opt.param_groups[0]["lr"])
        return lrs
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours[0] == theirs[0] == "ok" and ours[1] == pytest.approx(theirs[1], rel=1e-12)


# ---- tensor hooks, Function misuse, calling a node ----------------------------------------------------------------

@pytest.mark.parametrize("returned", ["other_shape", "other_dtype", "a_number"])
def test_tensor_hook_returning_a_bad_gradient(returned):
    def fn(m):
        a = m.ones(2, requires_grad=True)
        b = a * 2
        b.register_hook({"other_shape": lambda g: m.ones(3), "other_dtype": lambda g: g.double(),
                         "a_number": lambda g: 3}[returned])
        b.sum().backward()
    assert _same(fn)[0] == "error"


def test_instantiating_a_function():
    def fn(m):
        class Double(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f = Double()
        try:
            f(m.ones(1))
        except RuntimeError as e:
            return [(w.category.__name__, str(w.message).split(" should not")[1]) for w in caught], str(e)[:60]
    assert _same(fn)[0] == "ok"


def test_calling_a_grad_fn():
    def fn(m):
        a = m.ones(2, requires_grad=True)
        one_edge, two_edges = a.sum().grad_fn(m.tensor(2.0)), (a * 3).grad_fn(m.ones(2))
        return one_edge.tolist(), type(two_edges).__name__, [None if g is None else g.tolist() for g in two_edges]
    _same(fn)


# ---- autograd.functional, autograd.gradcheck --------------------------------------------------------------------

def _x(m):
    return m.tensor([1.0, 2.0], dtype=m.float64)


def _y(m):
    return m.tensor([3.0, -1.0, 0.5], dtype=m.float64)


def _two_out(x, y):
    return x * y.sum(), x ** 2


def _scalar(x, y):
    return (x ** 2 * y).sum()


FUNCTIONAL = {
    "jacobian": lambda F, m: F.jacobian(lambda x: x ** 2, _x(m)),
    "jacobian_tuple": lambda F, m: F.jacobian(_two_out, (_x(m), _y(m))),
    "jacobian_unused_input": lambda F, m: F.jacobian(lambda x, y: x * 2, (_x(m), _y(m))),
    "jacobian_constant": lambda F, m: F.jacobian(lambda x: m.ones(2, dtype=m.float64), _x(m)),
    "jacobian_list": lambda F, m: F.jacobian(lambda x: x * 2, [_x(m)]),
    "hessian": lambda F, m: F.hessian(lambda x: (x ** 3).sum(), _x(m)),
    "hessian_tuple": lambda F, m: F.hessian(_scalar, (_x(m), _y(m))),
    "vjp": lambda F, m: F.vjp(lambda x: x ** 2, _x(m), m.ones(2, dtype=m.float64)),
    "vjp_tuple": lambda F, m: F.vjp(_two_out, (_x(m), _y(m)), (m.ones(2, dtype=m.float64),) * 2),
    "vjp_needs_v": lambda F, m: F.vjp(lambda x: x * 2, _x(m)),
    "jvp": lambda F, m: F.jvp(lambda x: x ** 2, _x(m), m.ones(2, dtype=m.float64)),
    "jvp_tuple": lambda F, m: F.jvp(_two_out, (_x(m), _y(m)), (m.ones(2, dtype=m.float64), m.ones(3, dtype=m.float64))),
    "hvp": lambda F, m: F.hvp(lambda x: (x ** 3).sum(), _x(m), m.ones(2, dtype=m.float64)),
    "hvp_tuple": lambda F, m: F.hvp(_scalar, (_x(m), _y(m)), (m.ones(2, dtype=m.float64), m.ones(3, dtype=m.float64))),
    "vhp": lambda F, m: F.vhp(lambda x: (x ** 3).sum(), _x(m), m.ones(2, dtype=m.float64)),
}


def _values(r):
    if isinstance(r, (tuple, list)):
        return type(r).__name__, [_values(v) for v in r]
    return tuple(r.shape), r.requires_grad, [round(float(v), 10) for v in r.reshape(-1).tolist()]


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_autograd_functional(name):
    _same(lambda m: _values(FUNCTIONAL[name](m.autograd.functional, m)))


def test_autograd_functional_create_graph():
    def fn(m):
        x = _x(m).requires_grad_()
        j = m.autograd.functional.jacobian(lambda x: x ** 3, x, create_graph=True)
        j.sum().backward()
        plain = m.autograd.functional.jacobian(lambda x: x ** 3, x)
        return _values(j), x.grad.tolist(), plain.requires_grad
    _same(fn)


def test_autograd_gradcheck_and_gradgradcheck_where_torch_has_them():
    def fn(m):
        class WrongSecond(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * 2 * x.detach()  # right first derivative, no second

        x = _x(m).requires_grad_()
        return (m.autograd.gradcheck(lambda t: t.sin() * t, (x,)), m.autograd.gradgradcheck(lambda t: t.sin() * t, (x,)),
                m.autograd.gradcheck(WrongSecond.apply, (x,)),
                m.autograd.gradgradcheck(WrongSecond.apply, (x,), raise_exception=False))
    assert _same(fn) == ("ok", (True, True, True, False))


def test_optimizer_given_a_tensor_instead_of_an_iterable():
    def fn(m):
        m.optim.SGD(m.ones(2, requires_grad=True), lr=0.1)
    assert _same(fn)[:2] == ("error", "TypeError")
