"""PyTorch-exactness of views, in-place writes, saved versions and the engine (issue 15): each scenario runs under
framework and torch, and what a user observes (values, requires_grad, grad_fn, the error's class and first
sentence) must be the same."""
from __future__ import annotations

import warnings

import pytest

import framework
from scenario import outcome

torch = pytest.importorskip("torch")


def _same(fn):
    """fn(m) under both libraries: the same outcome (a value, or an error's class and first sentence)."""
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
    return ours


def _first_line(fn, m) -> str:
    with pytest.raises(RuntimeError) as info:
        fn(m)
    return str(info.value).split("\n")[0]


# ---- 1. views created under no_grad / inference_mode, multi-output views, custom Function views --------------

VIEWS = {
    "view": lambda t: t.view(6),
    "reshape": lambda t: t.reshape(3, 2),
    "expand": lambda t: t[0:1].expand(4, 3),
    "flatten": lambda t: t.flatten(),
    "unsqueeze": lambda t: t.unsqueeze(0),
    "narrow": lambda t: t.narrow(1, 0, 2),
    "permute": lambda t: t.permute(1, 0),
    "select": lambda t: t.select(0, 1),
    "squeeze": lambda t: t.unsqueeze(1).squeeze(),
    "t": lambda t: t.t(),
    "T": lambda t: t.T,
    "chunk": lambda t: t.chunk(2, 1)[0],
    "transpose": lambda t: t.transpose(0, 1),
    "index": lambda t: t[1, 1:],
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_no_grad_view_requires_grad_and_refuses_inplace(name):
    view = VIEWS[name]

    def state(m):
        base = m.ones(2, 3, requires_grad=True).clone()
        with m.no_grad():
            v = view(base)
        return v.requires_grad, v.grad_fn is None, v.is_leaf, v._base is base

    assert _same(state) == ("ok", (True, True, True, True))

    def inplace_on_view(m):
        base = m.ones(2, 3, requires_grad=True).clone()
        with m.no_grad():
            v = view(base)
        v.mul_(2)

    _same(inplace_on_view)
    assert _first_line(inplace_on_view, framework).startswith("A view was created in no_grad mode and is being "
                                                              "modified inplace with grad mode enabled.")

    def base_modified(m):
        base = m.ones(2, 3, requires_grad=True).clone()
        with m.no_grad():
            v = view(base)
        base.add_(1)
        return (v * 2).sum().item()

    _same(base_modified)
    assert "its base or another view of its base has been modified inplace" in _first_line(base_modified, framework)


def test_no_grad_view_inplace_inside_no_grad_is_allowed_but_poisons_grad_fn():
    def fn(m):
        a = m.ones(3, requires_grad=True)
        with m.no_grad():
            v = a[:2]
            v.mul_(2)
        return v.grad_fn

    _same(fn)  # torch: the grad_fn getter raises once the version moved


def test_no_grad_view_gets_no_gradient():
    def fn(m):
        a = m.ones(3, requires_grad=True)
        with m.no_grad():
            v = a[:2]
        y = v * 2
        y.sum().backward()
        return a.grad, [e[0] is None for e in y.grad_fn.next_functions]

    assert _same(fn) == ("ok", (None, [True, True]))


def test_view_of_a_no_grad_view_and_inference_view():
    def view_of_view(m):
        d = m.ones(2, 3, requires_grad=True).clone()
        with m.no_grad():
            v = d[0]
        w = v.unsqueeze(0)
        assert w.grad_fn.name() == "UnsqueezeBackward0"
        w.mul_(2)

    assert _same(view_of_view)[2].startswith("Output 0 of Unsqueeze is a view of a view which was created in no_grad")

    def inference(m):
        a = m.ones(3, requires_grad=True)
        with m.inference_mode():
            v = a[:2]
        assert v.requires_grad
        v.mul_(2)

    assert _same(inference)[2].startswith("A view was created in inference mode and is being modified inplace")


@pytest.mark.parametrize("split", ["unbind", "split", "split_sizes", "chunk"])
def test_multi_output_views_are_one_node_and_refuse_inplace(split):
    make = {"unbind": lambda t: t.unbind(0), "split": lambda t: t.split(1), "split_sizes": lambda t: t.split([1, 2]),
            "chunk": lambda t: t.chunk(3)}[split]

    def names(m):
        outs = make(m.ones(3, 2, requires_grad=True).clone())
        return [o.grad_fn.name() for o in outs], [o.output_nr for o in outs]

    _same(names)

    def inplace(m):
        make(m.ones(3, 2, requires_grad=True).clone())[1].mul_(2)

    assert "This view is the output of a function that returns multiple views." in _same(inplace)[2]

    def base_modified(m):
        d = m.ones(3, 2, requires_grad=True).clone()
        outs = make(d)
        d.mul_(2)
        return outs[0] * 2

    _same(base_modified)

    def under_no_grad(m):
        d = m.ones(3, 2, requires_grad=True).clone()
        with m.no_grad():
            outs = make(d)
            outs[0].mul_(2)  # allowed inside no_grad
        return d.tolist()

    assert _same(under_no_grad)[0] == "ok"


def test_multi_output_gradients():
    def fn(m):
        a = m.arange(6.0).reshape(3, 2).requires_grad_()
        u = a.unbind(1)
        s = a.split([2, 1])
        (u[0] * 3 + s[1].sum()).sum().backward()  # unused outputs get zero gradients
        return a.grad.tolist()

    _same(fn)


def test_custom_function_views_refuse_inplace():
    def fn(m, as_is):
        class Id(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x if as_is else x.view_as(x)

            @staticmethod
            def backward(ctx, g):
                return g

        a = m.ones(3, requires_grad=True).clone()
        out = Id.apply(a)
        out.mul_(2)

    for as_is in (False, True):
        assert "This view was created inside a custom Function" in _same(lambda m: fn(m, as_is))[2]


# ---- 4. a custom Function that saves its output, then the output is modified in place -----------------------

def test_custom_function_saved_output_modified_in_place():
    def fn(m):
        class Exp(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                y, = ctx.saved_tensors
                return g * y

        x = m.ones(3, requires_grad=True)
        y = Exp.apply(x)
        y.mul_(2)
        y.sum().backward()

    kind, cls, head, versions = _same(fn)
    assert (kind, cls, versions) == ("error", "RuntimeError", ("1", "0"))


# ---- 2. in-place ops whose input overlaps the written-to memory ----------------------------------------------

OVERLAPS = {
    "t_add": lambda a: a.t().add_(a),
    "self_add": lambda a: a.add_(a),
    "detach": lambda a: a.add_(a.detach()),
    "same_view_twice": lambda a: a.view(9).add_(a.view(9)),
    "shift_copy": lambda a: a.view(9)[1:].copy_(a.view(9)[:-1]),
    "shift_mul": lambda a: a.view(9)[1:].mul_(a.view(9)[:-1]),
    "disjoint": lambda a: a[0].add_(a[1]),
    "row_broadcast": lambda a: a.add_(a[0]),
    "copy_t": lambda a: a.copy_(a.t()),
    "sub_t": lambda a: a.sub_(a.t()),
    "clamp_t": lambda a: a.clamp_(min=a.t()),
    "addcmul_t": lambda a: a.t().addcmul_(a, a),
    "addcmul_self": lambda a: a.addcmul_(a, a),
    "lerp_t": lambda a: a.t().lerp_(a, 0.5),
    "setitem": lambda a: a.__setitem__(slice(1, 3), a[0:2]),
    "reshape_div": lambda a: a.reshape(-1).div_(a),
}


@pytest.mark.parametrize("name", list(OVERLAPS))
def test_inplace_memory_overlap(name):
    def fn(m):
        a = m.arange(9.0).reshape(3, 3)
        OVERLAPS[name](a)
        return a.tolist()

    _same(fn)


def test_inplace_memory_overlap_under_no_grad_with_grad_tensors():
    def fn(m):
        p = m.ones(2, 2, requires_grad=True)
        with m.no_grad():
            t1 = p.reshape(-1)
            t1.div_(p)

    assert _same(fn)[2].startswith("unsupported operation: some elements of the input tensor and the written-to "
                                   "tensor refer to a single memory location.")


# torch's get_overlap_status: a write onto the very memory of its source is allowed ("full") only when the two
# have the same strides, those of size-1 dims included; so views keep torch's strides there (unsqueeze, view)
SIZE1_OVERLAPS = {
    "seed_1907769": lambda t: t[None, 1:2:2].__setitem__((None, ...), t[None, 1:2:2]),  # strides differ: refused
    "none_of_all": lambda t: t.__setitem__((None, ...), t),  # expand of the source gives the target's strides
    "none_of_a_row": lambda t: t[1].__setitem__((None, ...), t[1]),
    "unsqueezed_row_copy": lambda t: t[1].copy_(t[1][None]),
    "view_of_all": lambda t: t.__setitem__(Ellipsis, t.view(1, 3, 4)),
    "flatten_of_a_column": lambda t: t[:, 1:2].flatten(0, 1)[None].copy_(t[:, 1:2].view(1, 3)),
    "unflatten_of_a_column": lambda t: t[:, 1:2].unflatten(0, (1, 3)).copy_(t[:, 1:2].view(1, 3, 1)),
    "one_element_bool_index": lambda t: t[0, :1].__setitem__(torch_or_framework(t).tensor([True]), t[0, :1]),
    "one_element_none": lambda t: t[0, :1].__setitem__(None, t[0, :1]),
}


def torch_or_framework(t):
    return torch if isinstance(t, torch.Tensor) else framework


@pytest.mark.parametrize("name", sorted(SIZE1_OVERLAPS))
def test_a_write_onto_its_own_memory_compares_size1_strides_as_torch(name):
    def fn(m):
        t = m.tensor([[-0.71, -0.33, 0.11, 0.07], [0.75, 0.32, -0.42, -0.56], [0.46, -0.1, -0.19, -0.55]])
        SIZE1_OVERLAPS[name](t)
        return t.tolist()

    result = _same(fn)
    if name == "seed_1907769":
        assert result[2].startswith("unsupported operation: some elements of the input tensor and the written-to")


def test_views_keep_torchs_strides_in_size1_dims():
    def fn(m):
        t = m.arange(12.0).reshape(3, 4)
        col = t[:, 1:2]
        return [v.stride() for v in (t[None, 1:2:2][None], col.view(1, 3), col.flatten(), col.unflatten(0, (1, 3)),
                                     col.t().view(3, 1), t[0:1:2].view(4, 1), t.unsqueeze(0).view(1, 1, 12),
                                     t[1, None].unsqueeze(-1), m.tensor(5.0).view(1, 1))]

    _same(fn)


def test_repr_of_a_view_whose_history_is_invalid():
    def fn(m):
        a = m.ones(3, requires_grad=True)
        with m.no_grad():
            v = a[:2]
            v.mul_(2)
        return repr(v).replace("framework", "torch").replace(", device='cuda:0'", "")  # the strict stand-in's device

    _same(fn)


# ---- 3. the engine: backward(inputs=...), gradients accumulated with create_graph, in-place on gradients ------

def test_backward_with_inputs_frees_the_graph():
    def second_backward(m, first_inputs, then):
        a = m.ones(3, requires_grad=True)
        b = m.full((3,), 2.0, requires_grad=True)
        c = a.exp()
        y = (c * b.exp()).sum()
        y.backward(inputs=first_inputs(a, b, c))
        then(y, a, b, c)

    for first in (lambda a, b, c: [a], lambda a, b, c: [c]):
        for then in (lambda y, a, b, c: y.backward(), lambda y, a, b, c: y.backward(inputs=[b])):
            assert _same(lambda m: second_backward(m, first, then))[2].startswith(
                "Trying to backward through the graph a second time")
    # a non-leaf input's own grad_fn runs (and is freed) too
    assert _same(lambda m: second_backward(m, lambda a, b, c: [c], lambda y, a, b, c: c.sum().backward()))[0] \
        == "error"


def test_backward_with_non_leaf_input_retains_its_grad():
    def fn(m):
        a = m.ones(3, requires_grad=True)
        c = a.exp()
        y = (c * 2).sum()
        y.backward(inputs=[c], retain_graph=True)
        first = (c.retains_grad, c.grad.tolist(), a.grad)
        y.backward(retain_graph=True)
        return first, c.grad.tolist(), a.grad.allclose(2 * c.detach())

    _same(fn)


def test_create_graph_grad_then_plain_backward_accumulates_in_place():
    def fn(m):
        t0 = m.ones(3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0.sum().backward(create_graph=True)
        first = (t0.grad.grad_fn, t0.grad.requires_grad, t0.grad._version, t0.grad.stride())
        t0.backward(m.full((3,), 2.0))
        return first, t0.grad.tolist(), t0.grad._version

    _same(fn)


def test_create_graph_grad_of_a_leaf_is_copy_based():
    def fn(m):
        t1 = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = t1 * 2
        y.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (y * y).sum().backward(create_graph=True)
        name = lambda fn: type(fn).__name__  # noqa: E731 - torch's name() says torch::autograd::CopyBackwards
        first = (name(t1.grad.grad_fn), [e[0] and e[0].name() for e in t1.grad.grad_fn.next_functions],
                 t1.grad.requires_grad, t1.grad._version, y.grad.grad_fn.name(), y.grad._version)
        (y * y).sum().backward(retain_graph=True)  # no graph of backward: the leaf's grad grows in place
        second = (name(t1.grad.grad_fn), t1.grad._version, y.grad.grad_fn, t1.grad.tolist(), y.grad.tolist())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (y * y).sum().backward(create_graph=True)
        return first, second, t1.grad.grad_fn.name(), t1.grad.tolist()

    _same(fn)


@pytest.mark.parametrize("create_graph", [True, False])
@pytest.mark.parametrize("reduce", ["mean", "sum_times_2", "square_sum"])
def test_inplace_on_autograd_grad_results(create_graph, reduce):
    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = {"mean": x.mean(), "sum_times_2": (x * 2).sum(), "square_sum": (x * x).sum()}[reduce]
        gx, = m.autograd.grad(y, [x], create_graph=create_graph)
        gx.mul_(2)
        gx.add_(1)
        return gx.tolist(), gx.requires_grad

    _same(fn)


@pytest.mark.parametrize("how", ["requires_grad_false", "detach_"])
def test_leaf_that_stopped_requiring_grad_gets_no_grad(how):
    def fn(m):
        t0 = m.ones(3, requires_grad=True)
        t1 = m.ones(3, requires_grad=True)
        seen = []
        t0.register_hook(lambda g: seen.append(g.tolist()))
        t2 = t1 - t0
        if how == "detach_":
            t0.detach_()
        else:
            t0.requires_grad = False
        t2.backward(m.ones(3))
        return t0.grad, t1.grad.tolist(), seen

    _same(fn)


# ---- causes found by a differential fuzz of views, in-place ops and grad modes --------------------------------

@pytest.mark.parametrize("op", ["mul", "div", "add", "sub", "addcmul", "addcdiv", "pow", "copy", "mul_view"])
def test_inplace_op_reading_what_it_writes_saves_the_old_version(op):
    """b.mul_(b): MulBackward0 saved b *before* the write, so backward must refuse (torch) rather than use the
    new values (a silently wrong gradient before)."""
    run = {"mul": lambda b: b.mul_(b), "div": lambda b: b.div_(b), "add": lambda b: b.add_(b),
           "sub": lambda b: b.sub_(b), "addcmul": lambda b: b.addcmul_(b, b), "addcdiv": lambda b: b.addcdiv_(b, b),
           "pow": lambda b: b.pow_(2), "copy": lambda b: b.copy_(b), "mul_view": lambda b: b.mul_(b.view(3))}[op]

    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = x.clone()
        run(b)
        b.sum().backward()
        return x.grad.tolist()

    _same(fn)


def test_inplace_op_takes_its_edges_before_writing():
    """An operand that is a view made under inference_mode of the written tensor: torch reads its (valid) history
    before the write bumps the shared version."""
    def fn(m):
        b = m.ones(3, 3, requires_grad=True).clone()
        with m.inference_mode():
            v = b.flatten()
        d = v.detach()
        d.add_(b.view(9) * 0 + v)
        return d.requires_grad, d.grad_fn.name(), d._version

    _same(fn)


def test_inplace_under_inference_mode_bumps_a_normal_tensors_version():
    def fn(m):
        b = m.ones(3, requires_grad=True).clone()
        with m.inference_mode():
            b.relu_()
            b[0] = 2.0
        return b._version

    assert _same(fn) == ("ok", 2)


def test_addcmul_addcdiv_are_nodes_with_torchs_names():
    def fn(m):
        a = m.tensor([1.0, 2.0, 3.0], requires_grad=True).clone()
        t1 = m.tensor([0.5, 1.0, 2.0], requires_grad=True)
        t2 = m.tensor([2.0, 4.0, 8.0], requires_grad=True)
        a.addcmul_(t1, t2, value=0.5)
        name1 = a.grad_fn.name()
        a.addcdiv_(t1, t2, value=2.0)
        a.sum().backward()
        return name1, a.grad_fn.name(), t1.grad.tolist(), t2.grad.tolist()

    _same(fn)

    def refused(m):  # the leaf/view check comes before the overlap check, as in torch
        a = m.ones(3, 3, requires_grad=True)
        with m.no_grad():
            v = a.t()
        v.addcmul_(a, a)

    assert _same(refused)[2].startswith("A view was created in no_grad mode")


@pytest.mark.parametrize("shapes", [((3, 3), (1, 3, 3)), ((9,), (3, 3)), ((3, 3), (9,)), ((3, 3), (2, 3)),
                                    ((2, 3), (4, 2, 3))])
def test_inplace_shape_errors(shapes):
    out, other = shapes
    _same(lambda m: m.ones(*out).copy_(m.ones(*other)))
    _same(lambda m: m.ones(*out).addcmul_(m.ones(*other), m.ones(*other)))


def test_permute_without_dims():
    _same(lambda m: m.ones(3).permute())
    _same(lambda m: m.ones(()).permute())
    _same(lambda m: m.permute(m.ones(3), ()))


def test_lerp_is_a_node_with_torchs_name():
    def fn(m):
        a = m.tensor([1.0, 2.0, 3.0], requires_grad=True).clone()
        end = m.tensor([0.0, 4.0, 8.0], requires_grad=True)
        a.lerp_(end, 0.25)
        a.sum().backward()
        return a.grad_fn.name(), a.tolist(), end.grad.tolist()

    _same(fn)


def test_inplace_on_view_of_leaf_that_stopped_requiring_grad():
    def fn(m):
        t2 = m.ones(3, 4, requires_grad=True)
        t3 = t2[1:, ::2]
        t2.requires_grad = False
        t3.fill_(0.5)

    assert _same(fn)[2] == "a view of a leaf Variable that requires grad is being used in an in-place operation."

    def allowed(m):  # a view of a leaf that never required grad takes a tensor that does
        x = m.zeros(4)
        v = x[1:3]
        v.copy_(m.ones(2, requires_grad=True) * 3)
        return x.tolist(), x.requires_grad, x.is_leaf

    _same(allowed)


@pytest.mark.parametrize("call", ["backward", "grad"])
def test_a_no_grad_view_cannot_be_a_backward_root(call):
    """Found by the fuzzer: such a view requires grad but has neither a grad_fn nor (being a view) a grad
    accumulator, so torch refuses it as the root of backward / autograd.grad."""
    def fn(m):
        t1 = m.tensor([1.0, 2.0], requires_grad=True)
        with m.no_grad():
            t2 = t1.select(0, 0)
        if call == "backward":
            t2.backward()
        else:
            m.autograd.grad(t2, [t1])
        return t1.grad

    _same(fn)
