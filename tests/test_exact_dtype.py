"""PyTorch-exactness of dtypes, gradients' dtypes, leaves, 0-d reductions and error texts (issue 15), torch the oracle."""
import numpy as np
import pytest

import framework

torch = pytest.importorskip("torch")

MODULES = (framework, torch)


def _outcome(fn, m):
    """fn(m)'s result, or (exception class name, first line of its message)."""
    try:
        return fn(m)
    except Exception as e:  # noqa: BLE001 - the outcome itself is compared
        return type(e).__name__, str(e).split("\n")[0]


def _same(fn):
    ours, theirs = (_outcome(fn, m) for m in MODULES)
    assert ours == theirs


def _dt(t) -> str:
    return str(t.dtype).split(".")[-1]


# ---- 1. 0-d tensors take part in type promotion like Python scalars of their category ----------------

ZERO_D = [(np.array(2.5), np.arange(3, dtype=np.float32).reshape(1, 3)),
          (np.arange(3, dtype=np.float32).reshape(1, 3), np.array(2.5)),
          (np.array(3), np.arange(3, dtype=np.int32)),
          (np.array(1.5, dtype=np.float32), np.arange(3, dtype=np.int32)),
          (np.arange(3, dtype=np.int32), np.array(2.5))]


@pytest.mark.parametrize("op", ["minimum", "maximum", "add", "mul", "sub", "div", "eq", "lt", "ge", "pow"])
@pytest.mark.parametrize("k", range(len(ZERO_D)))
def test_zero_dim_promotion(op, k):
    x, y = ZERO_D[k]
    _same(lambda m: _dt(getattr(m, op)(m.tensor(x), m.tensor(y))))


def test_zero_dim_where_and_maximum_backward_dtypes():
    def run(m):
        a = m.tensor(0.25, dtype=m.float64, requires_grad=True)
        b = m.tensor([[0.5, -1.0, 0.25]], requires_grad=True)
        out = m.minimum(a, b) + m.where(b > 0, a, b)
        out.sum().backward()
        return _dt(out), _dt(a.grad), _dt(b.grad), out.tolist(), a.grad.item(), b.grad.tolist()

    _same(run)


def test_binary_ops_compute_in_the_promoted_dtype():
    """float32 tensor op 0-d float64 tensor: torch rounds the 0-d operand to float32 first (last bits differ)."""
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)

    def run(m):
        a, s = m.tensor(x), m.tensor(0.1, dtype=m.float64)
        return [(a * s).tolist(), (a + s).tolist(), (s / a).tolist(), (a == m.tensor(x[3], dtype=m.float64)).tolist(),
                m.maximum(a, s).tolist(), (m.tensor([0.1]) == m.tensor(0.1, dtype=m.float64)).item(),
                (m.tensor([16777217.0]) == m.tensor(16777217)).item()]

    _same(run)


# ---- 2. a gradient always has its tensor's dtype ------------------------------------------------------

def test_gradient_has_its_inputs_dtype():
    def run(m):
        t4 = m.tensor([0.2, -0.5, 1.0], requires_grad=True)
        t5 = t4 * 2
        t5.retain_grad()
        t7 = m.tensor([0.3, 0.1], dtype=m.float64, requires_grad=True)
        m.log_softmax(m.cat([t5, t7]), -1).sum().backward()
        seen = []
        s = m.stack([t4[:1].exp(), m.tensor([2.0], dtype=m.float64)])
        s.register_hook(lambda g: seen.append(_dt(g)))
        (s * 3).sum().backward()
        return _dt(t4.grad), _dt(t5.grad), _dt(t7.grad), seen

    _same(run)


def test_custom_function_gradient_is_cast_to_its_inputs_dtype():
    def run(m):
        class Double(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return (g * 2).double()

        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y.retain_grad()
        z = Double.apply(y)
        z.sum().backward()
        gx, = m.autograd.grad(Double.apply(x * 1).sum(), [x], create_graph=True)
        return _dt(x.grad), _dt(y.grad), x.grad.tolist(), _dt(gx)

    _same(run)


# ---- 4. a leaf whose requires_grad was turned off after the graph was built gets no .grad -------------

@pytest.mark.parametrize("how", ["flag", "requires_grad_", "detach_"])
def test_leaf_turned_off_after_graph_gets_no_grad(how):
    def run(m):
        t0 = m.tensor([1.0, 2.0], requires_grad=True)
        t1 = m.tensor([3.0, 4.0], requires_grad=True)
        t2 = t1 - t0
        seen, post = [], []
        t0.register_hook(lambda g: seen.append(g.tolist()))
        t0.register_post_accumulate_grad_hook(lambda t: post.append(1))
        if how == "flag":
            t0.requires_grad = False
        elif how == "requires_grad_":
            t0.requires_grad_(False)
        else:
            t0.detach_()
        t2.backward(m.tensor([1.0, 1.0]))
        return t0.grad, t1.grad.tolist(), seen, post, t0.requires_grad

    _same(run)


# ---- 5. reductions along dim 0 / -1 of a 0-d tensor work; other dims give torch's IndexError ---------

REDUCE_0D = {
    "sum": lambda m, t, d, k: m.sum(t, dim=d, keepdim=k),
    "mean": lambda m, t, d, k: m.mean(t, d, keepdim=k),
    "prod": lambda m, t, d, k: m.prod(t, d, keepdim=k),
    "max": lambda m, t, d, k: m.max(t, dim=d, keepdim=k)[0],
    "max_indices": lambda m, t, d, k: m.max(t, dim=d, keepdim=k)[1],
    "min": lambda m, t, d, k: t.min(d, keepdim=k).values,
    "amax": lambda m, t, d, k: m.amax(t, d, keepdim=k),
    "amin": lambda m, t, d, k: t.amin(dim=d, keepdim=k),
    "std": lambda m, t, d, k: m.std(t, dim=d, keepdim=k, correction=0),
    "var": lambda m, t, d, k: t.var(d, keepdim=k, correction=0),
    "argmax": lambda m, t, d, k: m.argmax(t, dim=d, keepdim=k),
    "argmin": lambda m, t, d, k: t.argmin(d, keepdim=k),
    "logsumexp": lambda m, t, d, k: m.logsumexp(t, d, keepdim=k),
    "softmax": lambda m, t, d, k: m.softmax(t, d),
    "log_softmax": lambda m, t, d, k: t.log_softmax(d),
    "cumsum": lambda m, t, d, k: m.cumsum(t, d),
    "cumprod": lambda m, t, d, k: t.cumprod(d),
    "all": lambda m, t, d, k: m.all(t > 0, d, keepdim=k),
    "any": lambda m, t, d, k: (t > 0).any(d, keepdim=k),
    "sort": lambda m, t, d, k: m.sort(t, d)[0],
    "topk": lambda m, t, d, k: m.topk(t, 1, d)[0],
}


@pytest.mark.parametrize("dim", [0, -1, 1, -2])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", sorted(REDUCE_0D))
def test_reduction_along_a_dim_of_a_zero_dim_tensor(name, dim, keepdim):
    def run(m):
        t = m.tensor(1.5, dtype=m.float64, requires_grad=True)
        out = REDUCE_0D[name](m, t, dim, keepdim)
        fn = out.grad_fn.name() if out.grad_fn is not None else None
        if out.requires_grad:
            out.backward()
        return out.tolist(), tuple(out.shape), _dt(out), fn, None if t.grad is None else t.grad.item()

    _same(run)


def test_std_gradient_is_zero_where_the_std_is_zero():
    def run(m):
        x = m.tensor([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]], dtype=m.float64, requires_grad=True)
        x.std(1).sum().backward()
        return x.grad.tolist()

    _same(run)


# ---- 6. torch's top-level in-place functions (torch.relu_(x)) ------------------------------------------

def test_every_inplace_tensor_method_torch_has_at_top_level_exists():
    ours = [n for n in dir(framework.Tensor) if n.endswith("_") and not n.startswith("_") and hasattr(torch, n)]
    assert ours and [n for n in ours if not hasattr(framework, n)] == []
    assert hasattr(framework.nn.functional, "leaky_relu_")


@pytest.mark.parametrize("call", ["abs_", "clamp_", "clip_", "cos_", "exp_", "log_", "neg_", "negative_", "relu_",
                                  "sigmoid_", "sin_", "sqrt_", "tanh_", "fill_", "zero_", "detach_", "leaky_relu_"])
def test_top_level_inplace_function(call):
    args = {"clamp_": (0.6, 1.5), "clip_": (0.6,), "fill_": (2.0,), "leaky_relu_": (0.2,)}.get(call, ())

    def run(m):
        x = m.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = x * 1
        fn = getattr(m.nn.functional, call) if call == "leaky_relu_" else getattr(m, call)
        out = fn(y, *args)
        name = out.grad_fn.name() if out.grad_fn is not None else None
        return out is y, [round(v, 5) for v in out.tolist()], name, y._version

    _same(run)


# ---- 7. error texts: refused operands, matmul dtypes, indices ------------------------------------------

def _x(m):
    return m.tensor([1.0, 2.0])


REFUSED = {
    "sub_": lambda m: _x(m).sub_(None), "add_": lambda m: _x(m).add_(None), "mul_": lambda m: _x(m).mul_(None),
    "div_": lambda m: _x(m).div_(None), "copy_": lambda m: _x(m).copy_(None), "pow_": lambda m: _x(m).pow_(None),
    "add_str": lambda m: _x(m).add_("a"), "add_obj": lambda m: _x(m).add_(object()),
    "t/None": lambda m: _x(m) / None, "t+None": lambda m: _x(m) + None, "t-None": lambda m: _x(m) - None,
    "t*None": lambda m: _x(m) * None, "None*t": lambda m: None * _x(m), "None-t": lambda m: None - _x(m),
    "None/t": lambda m: None / _x(m), "t**None": lambda m: _x(m) ** None, "t@None": lambda m: _x(m) @ None,
    "t+str": lambda m: _x(m) + "a", "t<None": lambda m: _x(m) < None, "t==None": lambda m: _x(m) == None,  # noqa: E711
    "t!=None": lambda m: _x(m) != None,  # noqa: E711
    "add(t,None)": lambda m: m.add(_x(m), None), "sub(None,t)": lambda m: m.sub(None, _x(m)),
    "mul(t,None)": lambda m: m.mul(_x(m), None), "div(t,None)": lambda m: m.div(_x(m), None),
    "t.add(None)": lambda m: _x(m).add(None), "t.div(None)": lambda m: _x(m).div(None),
    "maximum(t,None)": lambda m: m.maximum(_x(m), None), "maximum(t,2.0)": lambda m: m.maximum(_x(m), 2.0),
    "t.minimum(None)": lambda m: _x(m).minimum(None),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_operand_messages(name):
    _same(REFUSED[name])


def test_inplace_operators_with_none_raise_pythons_type_error():
    def run(m):
        t, errors = _x(m), []
        for op in ("+=", "-=", "*=", "/="):
            try:
                exec(f"t {op} None")
            except TypeError as e:
                errors.append(str(e))
        return errors

    _same(run)


MATMUL_DTYPES = [((2, 3, 4), (2, 4, 5)), ((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 2)), ((2, 4, 3), (3,)),
                 ((3,), (2, 3, 4)), ((3, 4), (4,)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2))]


@pytest.mark.parametrize("first64", [True, False])
@pytest.mark.parametrize("shapes", MATMUL_DTYPES, ids=str)
def test_matmul_dtype_mismatch_messages(shapes, first64):
    def run(m):
        a = m.ones(*shapes[0], dtype=m.float64 if first64 else m.float32)
        b = m.ones(*shapes[1], dtype=m.float32 if first64 else m.float64)
        fns = [m.matmul] + ([m.bmm] if len(shapes[0]) == len(shapes[1]) == 3 else []) + \
            ([m.mv] if (len(shapes[0]), len(shapes[1])) == (2, 1) else []) + \
            ([m.dot] if (len(shapes[0]), len(shapes[1])) == (1, 1) else []) + \
            ([m.mm] if (len(shapes[0]), len(shapes[1])) == (2, 2) else [])
        return [_outcome(lambda _: f(a, b), m) for f in fns]

    _same(run)


INDEX_ERRORS = {
    "1d": lambda m: m.ones(3)[5], "1d neg": lambda m: m.ones(3)[-4], "0d": lambda m: m.tensor(1.0)[0],
    "0d slice": lambda m: m.tensor(1.0)[:], "0d set": lambda m: m.tensor(1.0).__setitem__(0, 1.0),
    "2d": lambda m: m.ones(2, 3)[2], "2d col": lambda m: m.ones(2, 3)[0, 3], "2d neg": lambda m: m.ones(2, 3)[1, -4],
    "ellipsis": lambda m: m.ones(2, 3, 4)[..., 5], "none": lambda m: m.ones(2, 3, 4)[None, 1, :, 9],
    "ok": lambda m: tuple(m.ones(2, 3, 4)[None, 1, ..., -1].shape), "too many": lambda m: m.ones(2, 3)[0, 0, 0],
    "set oob": lambda m: m.ones(3).__setitem__(3, 1.0), "tensor oob": lambda m: m.ones(3)[m.tensor([5])],
    "select": lambda m: m.ones(3).select(0, 3), "select dim": lambda m: m.ones(3).select(1, 0),
    "select 0d": lambda m: m.tensor(1.0).select(0, 0), "narrow": lambda m: m.ones(3).narrow(0, 2, 2),
    "narrow start": lambda m: m.ones(3).narrow(0, 5, 0), "narrow neg": lambda m: m.ones(3).narrow(0, -4, 1),
    "narrow len": lambda m: m.ones(3).narrow(0, 0, -1), "narrow 0d": lambda m: m.tensor(1.0).narrow(0, 0, 1),
    "narrow neg ok": lambda m: m.ones(3).narrow(0, -2, 2).tolist(), "unbind 0d": lambda m: m.tensor(1.0).unbind(0),
    "unbind dim": lambda m: m.ones(3).unbind(2), "chunk 0d": lambda m: m.tensor(1.0).chunk(1),
    "split 0d": lambda m: m.tensor(1.0).split(1), "split dim": lambda m: m.ones(3).split(1, 2),
}


@pytest.mark.parametrize("name", sorted(INDEX_ERRORS))
def test_index_error_messages(name):
    _same(INDEX_ERRORS[name])


# ---- 8. //, %, floor_divide, remainder, fmod: torch's rounding, signs, dtypes, nodes and errors ---------

def _xy(m):
    x = m.tensor([-3.5, -2.0, 0.5, 4.0, -4.0, -0.5, 0.5], requires_grad=True)
    y = m.tensor([2.0, -1.5, -2.0, 2.0, 2.0, 2.0, -2.0], requires_grad=True)
    return x, y


FLOAT_QUOTIENTS = {
    "x//2": lambda m, x, y: x // 2, "x//y": lambda m, x, y: x // y, "3//x": lambda m, x, y: 3 // x,
    "x%2": lambda m, x, y: x % 2, "x%y": lambda m, x, y: x % y, "3%x": lambda m, x, y: 3 % x,
    "fmod(x,2)": lambda m, x, y: m.fmod(x, 2), "fmod(x,y)": lambda m, x, y: m.fmod(x, y),
    "remainder(x,-2)": lambda m, x, y: m.remainder(x, -2), "floor_divide(x,y)": lambda m, x, y: m.floor_divide(x, y),
    "remainder(3,x)": lambda m, x, y: m.remainder(3, x), "x%0d": lambda m, x, y: x % m.tensor(2.0),
    "x.remainder(y)": lambda m, x, y: x.remainder(y), "x.fmod(-1.5)": lambda m, x, y: x.fmod(-1.5),
    "x.floor_divide(2)": lambda m, x, y: x.floor_divide(2),
    "x//0": lambda m, x, y: x // 0, "x%0.0": lambda m, x, y: x % 0.0, "fmod(x,0)": lambda m, x, y: m.fmod(x, 0),
}


@pytest.mark.parametrize("name", list(FLOAT_QUOTIENTS))
def test_float_floor_divide_remainder_fmod(name):
    def run(m):
        x, y = _xy(m)
        r = FLOAT_QUOTIENTS[name](m, x, y)
        signs = [str(v) for v in r.tolist()]  # str keeps the sign of zero: -4.0 % 2 is -0.0 in torch
        out = [signs, _dt(r), r.requires_grad, r.grad_fn.name(), len(r.grad_fn.next_functions)]
        try:
            r.sum().backward()
            out.append([None if g is None else g.tolist() for g in (x.grad, y.grad)])
        except RuntimeError as e:
            out.append(str(e))
        return out

    _same(run)


INT_QUOTIENTS = {
    "i//j": lambda m, i, j: i // j, "i%j": lambda m, i, j: i % j, "fmod(i,j)": lambda m, i, j: m.fmod(i, j),
    "i//2": lambda m, i, j: i // 2, "i%-3": lambda m, i, j: i % -3, "i//0": lambda m, i, j: i // 0,
    "i%0": lambda m, i, j: i % 0, "i//2.5": lambda m, i, j: i // 2.5, "i%2.5": lambda m, i, j: i % 2.5,
    "7//k": lambda m, i, j: 7 // j[:2], "-7%k": lambda m, i, j: -7 % j[:2], "fmod(i,2.5)": lambda m, i, j: m.fmod(i, 2.5),
    "fmod(i,-3)": lambda m, i, j: m.fmod(i, -3), "int32//0d": lambda m, i, j: i.int() // m.tensor(2),
    "int32%0d f64": lambda m, i, j: i.int() % m.tensor(2.5, dtype=m.float64),
    "bool//bool": lambda m, i, j: (i > 0) // (j > 0),
}


@pytest.mark.parametrize("name", list(INT_QUOTIENTS))
def test_integer_floor_divide_remainder_fmod(name):
    def run(m):
        i, j = m.tensor([-7, 7, 0, 5]), m.tensor([2, -3, 3, 1])
        if name in ("i//j", "i%j", "fmod(i,j)"):
            j = m.tensor([2, -2, 3, 0])  # a zero divisor: torch's ZeroDivisionError
        r = INT_QUOTIENTS[name](m, i, j)
        return r.tolist(), _dt(r)

    _same(run)


def test_inplace_floor_divide_remainder_fmod():
    def run(m):
        x, y = _xy(m)
        out = []
        z = x * 1
        z //= 2
        out.append([z.grad_fn.name(), z._version, z.tolist()])
        z = x * 1
        z %= 2
        out.append([z.grad_fn.name(), z._version, [str(v) for v in z.tolist()]])
        for method in ("remainder_", "fmod_", "floor_divide_"):
            z = x * 1
            w = getattr(z, method)(y)
            out.append([w is z, z.grad_fn.name(), z.tolist()])
            try:
                z.sum().backward()
                out.append([x.grad.tolist(), y.grad.tolist()])
            except RuntimeError as e:
                out.append(str(e))
            x.grad = y.grad = None
        i = m.tensor([5, -5])
        i //= 2
        out.append(i.tolist())
        i %= 3
        out.append(i.tolist())
        for f in (lambda: i.__ifloordiv__(2.5), lambda: i.remainder_(2.5), lambda: i.fmod_(1.5),
                  lambda: i.add_(2.5), lambda: i.mul_(m.tensor(1.5))):
            out.append(_outcome(lambda _: f().tolist(), m))
        return out

    _same(run)


def test_copy_gives_the_overwritten_tensor_a_zero_gradient():
    """CopyBackwards: zeros_like(grad) for self (not grad * 0: -0.0 for negative, nan for infinite gradients)."""
    def run(m):
        x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        z = m.tensor([4.0, 5.0, 6.0], dtype=m.float64, requires_grad=True)
        y = x * 1
        y.copy_(z)
        y.backward(m.tensor([-1.0, float("inf"), 2.0], dtype=m.float64))
        return [str(v) for v in x.grad.tolist()], z.grad.tolist()

    _same(run)


# ---- more dtype rules found by probing: stack, clamp, integer powers, bool subtraction, int wrap-around ----

DTYPE_RULES = {
    "stack int float": lambda m: m.stack([m.tensor([3, -4]), m.tensor([1.5, -2.5])]),
    "stack 0-d": lambda m: m.stack([m.tensor(3), m.tensor(1.5, dtype=m.float64)]),
    "clamp int 0.5": lambda m: m.tensor([3, -4]).clamp(0.5),
    "clamp int 1": lambda m: m.tensor([3, -4]).clamp(1),
    "clamp_ int 0.5": lambda m: m.tensor([3, -4]).clamp_(0.5),
    "pow_ int 0.5": lambda m: m.tensor([3, -4]).pow_(0.5),
    "pow_ float": lambda m: m.tensor([3.0, -4.0]).pow_(2),
    "int ** -1": lambda m: m.tensor([3, -4]) ** -1,
    "2 ** int": lambda m: 2 ** m.tensor([3, -4, 0, -1, -3]),
    "-1 ** int": lambda m: -1 ** m.tensor([3, -4, 0, -1, -3]),
    "1 ** int": lambda m: 1 ** m.tensor([3, -4, 0, -1, -3]),
    "2. ** int": lambda m: 2.0 ** m.tensor([3, -4]),
    "bool - bool": lambda m: m.tensor([True, False]) - m.tensor([True, True]),
    "-bool": lambda m: -m.tensor([True, False]),
    "int - True": lambda m: m.tensor([3, -4]) - True,
    "float.sub_(bool)": lambda m: m.tensor([1.5, 2.0]).sub_(m.tensor([True, False])),
    "True - int": lambda m: True - m.tensor([3, -4]),
    "bool + bool": lambda m: m.tensor([True, False]) + m.tensor([True, True]),
    "int8 + 1000": lambda m: m.tensor([100, -100], dtype=m.int8) + 1000,
    "uint8 * 300": lambda m: m.tensor([2, 3], dtype=m.uint8) * 300,
    "std int": lambda m: m.tensor([3, -4]).std(),
    "var bool": lambda m: m.tensor([True, False]).var(),
    "int.add_(2.5)": lambda m: m.tensor([3, -4]).add_(2.5),
    "int.div_(2)": lambda m: m.tensor([3, -4]).div_(2),
    "bool.add_(1)": lambda m: m.tensor([True, False]).add_(1),
}


@pytest.mark.parametrize("name", list(DTYPE_RULES))
def test_dtype_rules(name):
    _same(lambda m: (lambda r: (_dt(r), r.tolist()))(DTYPE_RULES[name](m)))


ZERO_D_VIEWS = {
    "transpose 0 0": lambda m, t: t.transpose(0, -1), "transpose 1": lambda m, t: m.transpose(t, 0, 1),
    "flatten": lambda m, t: t.flatten(), "flatten 1": lambda m, t: t.flatten(1), "flatten -2": lambda m, t: t.flatten(0, -2),
    "squeeze 0": lambda m, t: t.squeeze(0), "squeeze 1": lambda m, t: t.squeeze(1), "unsqueeze -1": lambda m, t: t.unsqueeze(-1),
    "unsqueeze 2": lambda m, t: t.unsqueeze(2),
}


@pytest.mark.parametrize("name", list(ZERO_D_VIEWS))
def test_dims_of_zero_dim_views(name):
    def run(m):
        t = m.tensor(1.5, dtype=m.float64, requires_grad=True)
        out = ZERO_D_VIEWS[name](m, t)
        (out * 2).sum().backward()
        return out.tolist(), tuple(out.shape), out.grad_fn.name(), t.grad.item()

    _same(run)


@pytest.mark.parametrize("arr", [[[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], [[1.5, 0.0, 3.0], [0.5, 4.0, -1.0]],
                                 [[0.0, 0.0, 3.0], [0.5, 4.0, -1.0]]], ids=["no zero", "one zero", "two zeros"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), (-1, False)])
def test_prod_with_zeros(arr, dim, keepdim):
    def run(m):
        x = m.tensor(arr, dtype=m.float64, requires_grad=True)
        r = x.prod() if dim is None else m.prod(x, dim, keepdim=keepdim)
        r.sum().backward()
        return r.tolist(), r.grad_fn.name(), [[str(v) for v in row] for row in x.grad.tolist()]

    _same(run)


def test_prod_dtypes():
    _same(lambda m: [(_dt(r), r.tolist()) for r in (m.tensor([3, -4]).prod(), m.tensor([True, True]).prod(0),
                                                     m.tensor(2.5).prod(0), m.tensor([2, 3]).prod(dtype=m.float64))])


MORE_ERRORS = {
    "cat 0-d": lambda m: m.cat([m.tensor(1.0), m.tensor(2.0)]),
    "cat 1-d and 0-d": lambda m: m.cat([m.ones(2), m.tensor(2.0)]),
    "cat empty": lambda m: m.cat([]),
    "stack dim": lambda m: m.stack([m.ones(2), m.ones(2)], 3),
    "stack dim -4": lambda m: m.stack([m.ones(2), m.ones(2)], -4),
    "where float condition": lambda m: m.where(m.ones(2), m.ones(2), m.zeros(2)),
    "where shapes": lambda m: m.where(m.ones(2) > 0, m.ones(3), m.zeros(2)),
    "softmax int": lambda m: m.tensor([1, 2]).softmax(0),
    "softmax int dim 0 of 2-d": lambda m: m.ones(2, 2, dtype=m.int64).softmax(0),
    "log_softmax int": lambda m: m.tensor([1, 2]).log_softmax(-1),
    "abs bool": lambda m: m.tensor([True]).abs(),
    "abs_ bool": lambda m: m.tensor([True]).abs_(),
    "relu bool": lambda m: m.tensor([True]).relu(),
    "argmax bool": lambda m: m.tensor([True, False]).argmax(),
    "argmin bool dim": lambda m: m.tensor([True, False]).argmin(0),
    "norm int": lambda m: m.tensor([3, 4]).norm(),
    "mm long float": lambda m: m.tensor([[1, 2]]) @ m.tensor([[3.0], [4.0]]),
    "mm int float": lambda m: m.mm(m.ones(1, 1, dtype=m.int32), m.ones(1, 1)),
    "to non_blocking": lambda m: (lambda t: t.to(m.float32, non_blocking=True) is t)(m.tensor([1.0])),
    "to positional flags": lambda m: (lambda t: t.to(t.device, m.float32, False) is t)(m.tensor([1.0])),
    "to copy positional": lambda m: (lambda t: t.to(t.device, m.float32, False, True) is t)(m.tensor([1.0])),
}


@pytest.mark.parametrize("name", list(MORE_ERRORS))
def test_more_error_messages(name):
    _same(lambda m: (lambda r: (_dt(r), r.tolist()) if hasattr(r, "dtype") else r)(MORE_ERRORS[name](m)))


# ---- 3. conversions that change nothing return the tensor itself (already so: kept as a regression test) ----

@pytest.mark.parametrize("conv", ["double", "float64", "type", "type_str", "cpu", "to_cpu", "to_other", "type_as"])
def test_noop_conversions_return_self(conv):
    def run(m):
        t = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True, device="cpu")  # cpu(): a no-op on the CPU
        out = {"double": lambda: t.double(), "float64": lambda: t.to(m.float64), "type": lambda: t.type(m.float64),
               "type_str": lambda: t.type(t.type()), "cpu": lambda: t.cpu(), "to_cpu": lambda: t.to("cpu"),
               "to_other": lambda: t.to(m.zeros(1, dtype=m.float64, device="cpu")), "type_as": lambda: t.type_as(t * 1)}[conv]()
        return out is t

    _same(run)
