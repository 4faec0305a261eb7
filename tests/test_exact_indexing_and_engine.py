"""PyTorch-exactness of indexing and of the backward engine (issue 33), torch as the oracle: the grad_fn chain of
basic indexes (torch's applySlicing order and alias rule), index_put_'s aliasing rule in both directions, which
leaf gradients a backward that stops midway has accumulated, and gradients' ``_version``."""
from __future__ import annotations

import itertools
import random
import warnings

import numpy as np
import pytest

import framework

torch = pytest.importorskip("torch")


def _chain(fn) -> list:
    """The grad_fn graph below ``fn`` as nested (name, children) lists, down to the leaves' AccumulateGrad."""
    if fn is None:
        return []
    name = type(fn).__name__
    return [name, [_chain(n) for n, _ in fn.next_functions]]


def _slices(length: int):
    """Slices around a dim's bounds: from 0 or not, to its end or past it, step 1 or not, written or left out."""
    starts = [None, 0, 1, -length, -1] if length else [None, 0]
    stops = [None, length, length + 2, length - 1, -1] if length else [None, 0, 2]
    return [slice(a, b, c) for a in starts for b in stops for c in (None, 1, 2)]


def _keys(shape: tuple, rng: random.Random, count: int) -> list:
    """Basic index keys for ``shape``: ints, slices, None, Ellipsis and bools, in tuples and bare."""
    keys = []
    for _ in range(count):
        parts, dims = [], list(shape)
        used_ellipsis = False
        for _ in range(rng.randint(0, len(shape) + 1)):
            kind = rng.choice(["int", "slice", "slice", "none", "ellipsis", "bool"])
            if kind in ("int", "slice") and not dims:
                continue
            if kind == "int":
                n = dims.pop(0)
                parts.append(rng.randint(-n, n - 1) if n else 0)
                if not n:
                    parts.pop()
                    dims.insert(0, n)
            elif kind == "slice":
                parts.append(rng.choice(_slices(dims.pop(0))))
            elif kind == "none":
                parts.append(None)
            elif kind == "bool":
                parts.append(rng.choice([True, False]))
            elif not used_ellipsis:
                used_ellipsis = True
                parts.append(Ellipsis)
                dims = []
        keys.append(tuple(parts) if len(parts) != 1 or rng.random() < 0.5 else parts[0])
    return keys


SHAPES = [(3,), (1,), (3, 2), (1, 2, 3), (3, 1), (2, 1, 1), (0, 2)]


@pytest.mark.parametrize("shape", SHAPES)
def test_basic_index_graph_matches_torch(shape):
    rng = random.Random(sum(shape) * 31 + len(shape))
    data = np.arange(float(np.prod(shape))).reshape(shape)
    checked = 0
    for key in _keys(shape, rng, 120) + [tuple(slice(0, n) for n in shape), (Ellipsis,), ()]:
        results = []
        for m in (torch, framework):
            x = m.tensor(data, requires_grad=True)
            try:
                out = x[key]
                results.append((_chain(out.grad_fn), tuple(out.shape), out.detach().cpu().numpy().tolist()))
            except Exception as e:  # noqa: BLE001 - the error is compared
                results.append((type(e).__name__, str(e).split("\n")[0]))
        assert results[1] == results[0], f"x{list(shape)}[{key!r}]"
        checked += isinstance(results[0][0], list)
    assert checked > 40


def test_named_examples():
    t = framework.ones(1, 2, 3, requires_grad=True)
    assert type(t[0:1, :, :].grad_fn).__name__ == "AliasBackward0"
    v = framework.ones(3, 1, requires_grad=True)
    assert type(v[-1, 0:1].grad_fn).__name__ == "SelectBackward0"
    assert tuple(v[True].shape) == (1, 3, 1) and tuple(v[False].shape) == (0, 3, 1)
    assert type(v[framework.tensor(1)].grad_fn).__name__ == "SelectBackward0"


@pytest.mark.parametrize("key", ["slice(None)", "slice(0, 3)", "slice(-3, None)", "(slice(-3, None), slice(None))",
                                 "(Ellipsis, slice(-2, None))", "(Ellipsis, slice(0, 5))", "True", "(1, True)",
                                 "(Ellipsis, False)", "(None, True)", "()", "False", "(True,)"])
def test_setitem_graph_and_values_match_torch(key):
    results = []
    for m in (torch, framework):
        for dtype in (m.float64, m.float32):  # float32 values into float64: index_put_ refuses, copy_ casts
            a = m.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True).clone()
            try:
                a[eval(key)] = m.full((2,), -1.0, dtype=dtype, requires_grad=True)
            except Exception as e:  # noqa: BLE001 - the error is compared
                results.append((type(e).__name__, str(e).split("\n")[0]))
                continue
            (a * a).sum().backward()
            results.append((_chain(a.grad_fn), a._version, a.detach().cpu().numpy().tolist()))
    assert results[2:] == results[:2]


ALIASED_PUTS = {
    "int_list_whole": lambda m, t: t.__setitem__([0, 3, 0, 2], t),
    "int_tensor_whole": lambda m, t: t.__setitem__(m.tensor([0, 3, 0, 2]), t),
    "int_list_part": lambda m, t: t.__setitem__([0, 1], t[2:]),
    "int_list_disjoint_view": lambda m, t: t.__setitem__([0, 1], t[2:].clone()),
    "mask_whole": lambda m, t: t.__setitem__(t > 1, t[t > 1] * 0),
    "mask_one_value_view": lambda m, t: t.__setitem__(t > 1, t[0]),
    "mask_one_value_whole": lambda m, t: t[:1].__setitem__(m.tensor([True]), t[:1]),
    "mask_two_values": lambda m, t: t[:2].__setitem__(m.tensor([True, False]), t[2:3].expand(1)),
    "index_put_": lambda m, t: t.index_put_((m.tensor([1, 2]),), t[:2]),
    "index_put_accumulate_one": lambda m, t: t.index_put_((m.tensor([True, False, True, False]),), t[3],
                                                          accumulate=True),
    "index_put_mask_one": lambda m, t: t.index_put_((m.tensor([True, False, True, False]),), t[3]),
    "index_put_disjoint": lambda m, t: t[:2].index_put_((m.tensor([0, 1]),), t[2:]),
}


@pytest.mark.parametrize("name", sorted(ALIASED_PUTS))
def test_index_put_aliasing_matches_torch(name):
    outcomes = []
    for m in (torch, framework):
        t = m.tensor([1.0, 2.0, 3.0, 4.0])
        try:
            with m.no_grad():
                ALIASED_PUTS[name](m, t)
            outcomes.append(("ok", t.cpu().numpy().tolist()))
        except Exception as e:  # noqa: BLE001 - the error is compared
            outcomes.append((type(e).__name__, str(e).split("\n")[0]))
    assert outcomes[1] == outcomes[0]


def test_one_element_mask_put_of_itself_is_allowed():
    t = framework.tensor([2.0])
    t[framework.tensor([True])] = t
    assert t.tolist() == [2.0]
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        with framework.no_grad():
            u = framework.arange(4.0)
            u[[0, 3, 0, 2]] = u


def _engine_program(m, seed: int):
    """A random graph over three leaves (some with post-accumulate hooks, tensor hooks that may raise, retained
    grads, outputs changed in place after exp saved them), then one backward: plain, of two roots, or with
    inputs=. Returns the error, the leaves' gradients and the hooks' firing order."""
    r = random.Random(seed)
    leaves = [m.tensor(np.linspace(0.1, 0.9, 3) + i, requires_grad=True) for i in range(3)]
    values, fired = list(leaves), []
    for i, leaf in enumerate(leaves):
        if r.random() < 0.5:
            leaf.register_post_accumulate_grad_hook(lambda t, i=i: fired.append(("post", i)))
    for k in range(r.randint(3, 8)):
        op = r.choice(["exp", "mul", "add", "sin", "sum_mul", "inplace", "hook", "retain", "backward_once"])
        a, b = r.choice(values), r.choice(values)
        if op in ("exp", "mul", "add", "sin", "sum_mul"):
            values.append({"exp": lambda: a.exp(), "mul": lambda: a * b, "add": lambda: a + b,
                           "sin": lambda: (a / 10).sin(), "sum_mul": lambda: a.sum() * b}[op]())
        elif op == "hook":
            def hook(g, k=k):
                fired.append(("hook", k))
                if k % 2:
                    raise RuntimeError("hook fails")
            a.register_hook(hook)
        elif op == "retain" and a.grad_fn is not None:
            a.retain_grad()
        elif op == "backward_once":  # frees a's graph: a later backward through it fails midway
            try:
                (a * 1.0).sum().backward()
            except RuntimeError:
                pass
        elif op == "inplace":
            saved = [v for v in values if v.grad_fn is not None and type(v.grad_fn).__name__ == "ExpBackward0"]
            if saved:
                r.choice(saved).add_(1)
    kind = r.choice(["sum", "two", "inputs"])
    try:
        if kind == "sum" or len(values) < 5:
            sum(v.sum() for v in values[3:] or values[:1]).backward()
        elif kind == "two":
            m.autograd.backward([values[-1].sum(), values[-2].sum()])
        else:
            values[-1].sum().backward(inputs=[leaves[0], leaves[2]])
        error = None
    except RuntimeError as e:
        error = str(e).split("\n")[0][:40]
    grads = [None if leaf.grad is None else (leaf.grad.detach().cpu().numpy(), leaf.grad._version) for leaf in leaves]
    return error, grads, fired


def test_backward_that_stops_midway_matches_torch():
    errors = 0
    for seed in range(300):
        ref, ours = _engine_program(torch, seed), _engine_program(framework, seed)
        assert ours[0] == ref[0] and ours[2] == ref[2], seed
        for o, t in zip(ours[1], ref[1]):
            assert (o is None) == (t is None), seed
            if o is not None:
                np.testing.assert_allclose(o[0], t[0], rtol=1e-6)
                assert o[1] == t[1], seed  # the gradient's _version
        errors += ref[0] is not None
    assert errors > 30  # the programs do stop midway


def test_ready_leaf_accumulates_before_backward_fails_with_inputs():
    for m in (torch, framework):
        fired = []
        x = m.tensor([0.1, 0.5], requires_grad=True)
        z = m.tensor([1.0, 2.0], requires_grad=True)
        z.register_post_accumulate_grad_hook(lambda t: fired.append("z"))
        y = (x * 2).exp()
        y.add_(1)  # exp's saved result changed: its backward fails after z's AccumulateGrad ran
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            (z.sum() + y.sum()).backward(inputs=[x, z])
        assert fired == ["z"] and z.grad.tolist() == [1.0, 1.0] and x.grad is None


VERSION_PROGRAMS = {
    "mul_scalar_thrice": lambda m, x: [((x * 2).sum().backward(), x.grad._version)[1] for _ in range(3)],
    "expanded_grad": lambda m, x: [(x.sum().backward(), x.grad._version)[1] for _ in range(2)],
    "create_graph": lambda m, x: [((x * x).sum().backward(create_graph=True), x.grad._version)[1] for _ in range(2)],
    "same_grad_twice": lambda m, x: ((x + x).sum().backward(), x.grad._version)[1],
    "three_paths": lambda m, x: ((x * 2 + x * 5 + x * 7).sum().backward(), x.grad._version)[1],
    "three_paths_grad": lambda m, x: m.autograd.grad((x * 2 + x * 5 + x * 7).sum(), x)[0]._version,
    "two_paths_create_graph": lambda m, x: m.autograd.grad((x * x).sum(), x, create_graph=True)[0]._version,
    "user_gradient": lambda m, x: [(x.backward(m.ones(3)), x.grad._version)[1] for _ in range(2)],
    "hook_result": lambda m, x: (x.register_hook(lambda g: g * 2), (x * 3).sum().backward(), x.grad._version)[2],
    "inputs": lambda m, x: ((x * 2 + x * 5).sum().backward(inputs=[x]), x.grad._version)[1],
    "two_roots": lambda m, x: (m.autograd.backward([(x * 2).sum(), (x * 3).sum()]), x.grad._version)[1],
    "exp_times_self_twice": lambda m, x: [((x.exp() * x).sum().backward(), x.grad._version)[1] for _ in range(2)],
    "transposed": lambda m, x: ((x.view(3, 1).t() * 2).sum().backward(), x.grad._version)[1],
    "linear": lambda m, x: ((x @ m.ones(3, 2)).sum().backward(), x.grad._version)[1],
    "retained": lambda m, x: (lambda y: (y.retain_grad(), (y * 2).sum().backward(), y.grad._version)[2])(x * 3),
    "view_regenerated": lambda m, x: (lambda b: (lambda v: (b.neg_(), m.autograd.grad(
        m.where(v > 0, v, v).sum(), [b])[0]._version)[1])(b.reshape(3)))(x * 1),
}


@pytest.mark.parametrize("name", sorted(VERSION_PROGRAMS))
def test_gradient_version_matches_torch(name):
    versions = []
    for m in (torch, framework):
        with __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")  # backward(create_graph=True)'s reference-cycle warning
            versions.append(VERSION_PROGRAMS[name](m, m.tensor([1.0, -2.0, 3.0], requires_grad=True)))
    assert versions[1] == versions[0]


def _outcomes(fn) -> list:
    """fn(m) under torch and framework: ("ok", value) or (error class, first line)."""
    outcomes = []
    for m in (torch, framework):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch warns of index_put_ into an expand
                outcomes.append(("ok", fn(m)))
        except Exception as e:  # noqa: BLE001 - the error is compared
            outcomes.append((type(e).__name__, str(e).split("\n")[0].replace("torch.", "framework.")))
    return outcomes


EXPANDS = [((3, 2, 1), (1, 1, 2)), ((3, 2), (2, 3)), ((2, 3), (-1, 2, 3)), ((2, 3), (-1, 2, 4)),
           ((2, 3), (-1, -1, 3)), ((2, 3), (5, 4, -1)), ((2, 3), (-2, 2, 3)), ((1, 3), (4, -1))]


@pytest.mark.parametrize("shapes", EXPANDS, ids=str)
def test_expand_checks_dims_from_the_last_as_torch(shapes):
    """torch's inferExpandGeometry walks the dims from the last: the last mismatching dim is the one reported, and a
    -1 in a new leading dim is refused (framework read it as the size of a dim counted from the end)."""
    shape, target = shapes
    outcomes = _outcomes(lambda m: list(m.zeros(*shape).expand(*target).shape))
    assert outcomes[1] == outcomes[0]


def test_setitem_of_a_value_that_does_not_expand_reports_the_last_dim_program():
    def program(m):  # the fuzzer's shrunk program (seed 506582)
        t2 = m.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True).movedim((0, 1), (2, 0))
        t2[-1:3, -4::1, -1:4] = t2
    outcomes = _outcomes(program)
    assert outcomes[0][0] == "RuntimeError" and outcomes[1] == outcomes[0]


ONE_VALUE_MASK_PUTS = {  # torch's index_put_ becomes masked_fill_(mask, value.item()) (canDispatchToMaskedFill)
    "other_dtype_0d": "t[t > 0] = m.tensor(1.77, dtype=m.float64)",
    "other_dtype_none_true": "t[m.tensor([False, False, False])] = m.tensor([0.4], dtype=m.float64)",
    "float_into_long": "t = t.long(); t[t > 0] = m.tensor(3.7)",
    "value_of_more_dims": "t.index_put_((m.tensor([True, False, True]),), m.tensor([[[3.]]], dtype=m.float64))",
    "zero_dim_mask": "t.index_put_((m.tensor(True),), m.tensor(3., dtype=m.float64))",
    "after_basic_parts": "t[1:, m.tensor([True, False]), None] = m.tensor([5.], dtype=m.float64)",
    "after_ellipsis_int": "t[..., 0, m.tensor([True, False, True])] = m.tensor([5.], dtype=m.float64)",
    "after_int": "t[0, m.tensor([True, False])] = m.tensor([[5.]], dtype=m.float64)",
    "list_mask": "t[[True, False, True]] = m.tensor([2.], dtype=m.float64)",
    "mask_then_slice": "t[m.tensor([True, False, True]), 1:] = m.tensor([2.], dtype=m.float64)",
    "two_dim_mask": "t[m.tensor([[True, False], [True, True], [False, False]])] = m.tensor([2.], dtype=m.float64)",
    "mask_shape": "t[m.tensor([True, False])] = 1.0",
    "mask_shape_after_slice": "t[1:, m.tensor([True, False, True])] = 1.0",
    "mask_shape_after_ellipsis": "t[..., m.tensor([True, False, True])] = m.tensor([5.], dtype=m.float64)",
    "mask_shape_two_dims": "t[m.tensor([[True, False], [True, True]])] = m.tensor([2.])",
    "mask_of_too_many_dims": "t[0].index_put_((m.tensor([[True], [False]]),), m.tensor(1.))",
    "mask_of_too_many_dims_setitem": "t[0][m.tensor([[True], [False]])] = 1.0",
    "byte_mask": "t[m.tensor([1, 0, 1], dtype=m.uint8)] = m.tensor(3.)",
    "byte_mask_index_put_": "t.index_put_((m.tensor([1, 0, 1], dtype=m.uint8),), m.tensor(3.))",
    "accumulate_needs_the_dtype": "t.index_put_((t > 0,), m.tensor([3.], dtype=m.float64), accumulate=True)",
    "two_masks_need_the_dtype": "t.index_put_((m.tensor([True, False, True]), m.tensor([True, False])), "
                                "m.tensor([3.], dtype=m.float64))",
    "two_values_need_the_dtype": "t[t > 0] = m.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=m.float64)",
    "index_put_out_of_place": "t = t.index_put((t > 2,), m.tensor(-1, dtype=m.int32))",
}


@pytest.mark.parametrize("name", sorted(ONE_VALUE_MASK_PUTS))
def test_one_value_mask_put_is_torchs_masked_fill(name):
    def program(m):
        t = m.tensor(np.arange(6.0).reshape(3, 2), dtype=m.float32)
        g = {"m": m, "t": t}
        exec(ONE_VALUE_MASK_PUTS[name], g)
        return g["t"].cpu().numpy().tolist()
    outcomes = _outcomes(program)
    assert outcomes[1] == outcomes[0]


def test_one_value_mask_put_program_and_its_gradient():
    def program(m):  # the fuzzer's shrunk program (seed 500740), then the same with the graph recorded
        t1 = m.tensor([0.76], requires_grad=True)
        with m.no_grad():
            t1[t1 > 0] = m.tensor(1.77, dtype=m.float64)
        t = m.zeros(3, 2, requires_grad=True).clone()
        v = m.tensor(2.0, dtype=m.float64, requires_grad=True)
        t[t.detach() == 0] = v
        (t * 3).sum().backward()
        return t1.tolist(), type(t.grad_fn).__name__, v.grad.item(), str(v.grad.dtype).split(".")[1]
    outcomes = _outcomes(program)
    assert outcomes[0][0] == "ok" and outcomes[1] == outcomes[0]


def test_leaf_view_check_comes_before_the_index_dtype_check_program():
    def program(m):  # the fuzzer's shrunk program (seed 502137)
        t4 = m.tensor([-0.29], dtype=m.float64, requires_grad=True)
        t9 = t4[:-1].narrow(0, 0, 0)
        t9[m.tensor([])] = 0.5
    outcomes = _outcomes(program)
    assert outcomes[0][0] == "RuntimeError" and outcomes[1] == outcomes[0]
    for m in (torch, framework):  # without the view of a leaf: the index's dtype is refused
        with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
            m.zeros(2)[m.tensor([0.5])] = 1.0
        with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
            m.zeros(2).index_put_((m.tensor([0.5]),), m.tensor(1.0))


@pytest.mark.parametrize("op", ["relu", "nan_to_num"])
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_unary_result_of_an_expand_is_laid_out_as_torchs(op, indexing):
    """relu and nan_to_num wrote an expand()'s result in its memory order (NumPy's zeros_like/copy), torch in
    TensorIterator's: that decides whether a row of the result overlaps the whole in index_put_'s check."""
    def program(m):
        t = m.meshgrid([m.tensor([1.03, 0.63, -1.36]), m.tensor([0.41, 0.15])], indexing=indexing)[0]
        return getattr(m, op)(t).stride()
    outcomes = _outcomes(program)
    assert outcomes[1] == outcomes[0]


def test_index_put_of_a_row_of_a_relu_of_an_expand_into_it_is_refused_program():
    def program(m):  # the fuzzer's shrunk program (seed 602649)
        t2 = m.tensor([1.03, 0.63, -1.36], requires_grad=True)
        t8 = m.relu(m.meshgrid([t2, m.tensor([0.41, 0.15])], indexing="xy")[0])
        t8[m.tensor([-1, 1])] = t8[:1]
    outcomes = _outcomes(program)
    assert outcomes[0][0] == "RuntimeError" and outcomes[1] == outcomes[0]


SERIAL_PUTS = {  # torch's CPU index_put_ with accumulate adds one element at a time, reading the values as it goes
    "expanded_0d_mask": lambda m, t0: t0[:1].squeeze(0).expand(2).index_put_(
        (m.tensor([True, True]),), m.as_tensor(t0[0]), accumulate=True),
    "expanded_rows_own_row": lambda m, t0: t0.expand(3, 4).index_put_(
        (m.tensor([True, False, True]),), t0.expand(3, 4)[1], accumulate=True),
    "expanded_rows_copy": lambda m, t0: t0.expand(3, 4).index_put_((m.tensor([0, 2, 1]),), t0 * 1, accumulate=True),
    "strided_reads_other_strided": lambda m, t0: t0[::2].index_put_((m.tensor([1, 0]),), t0[::2].flip(0),
                                                                    accumulate=True),
}


@pytest.mark.parametrize("name", sorted(SERIAL_PUTS))
def test_accumulating_put_that_reads_what_it_writes_is_serial_as_torchs(name):
    def program(m):
        t0 = m.tensor([1.5, 2.0, 3.0, 4.0], dtype=m.float64)
        SERIAL_PUTS[name](m, t0)
        return t0.tolist()
    outcomes = _outcomes(program)
    assert outcomes[0][0] == "ok" and outcomes[1] == outcomes[0]


def test_accumulating_put_into_an_expand_program():
    def program(m):  # the fuzzer's shrunk program (seed 607822)
        t0 = m.tensor(1.87, dtype=m.float64)
        t1 = t0.expand(2)
        t1.index_put_((t1 > 0,), m.as_tensor(t1[0], dtype=t1.dtype), accumulate=True)
        return t0.item()
    outcomes = _outcomes(program)
    assert outcomes[1] == outcomes[0] == ("ok", pytest.approx(7.48))
