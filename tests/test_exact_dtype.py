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
