"""framework.func (torch.func): grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call.

Each scenario is written once against a module ``T`` (framework or torch) and run on both: values to 1e-12 in
float64, errors by class and first line. The checks without torch compare with framework.autograd.grad and with
central finite differences.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import framework
from framework.func.pytree import tree_flatten
from scenario import error_of

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 3))
B = RNG.standard_normal(3)
C = RNG.standard_normal((5, 3))


def as_np(t):
    return t.detach().cpu().numpy()


def run_both(scenario):
    """scenario(T) on framework and on torch; assert the leaves of the results agree to 1e-12."""
    torch = pytest.importorskip("torch")
    ours = scenario(framework)
    with warnings.catch_warnings():  # (torch's linearize traces with fx, which warns)
        warnings.simplefilter("ignore")
        theirs = scenario(torch)
    flat_ours, spec_ours = tree_flatten(ours)
    flat_theirs = torch.utils._pytree.tree_flatten(theirs)[0]
    assert len(flat_ours) == len(flat_theirs)
    for a, b in zip(flat_ours, flat_theirs):
        if isinstance(b, torch.Tensor):
            assert tuple(a.shape) == tuple(b.shape)
            assert a.requires_grad == b.requires_grad
            np.testing.assert_allclose(as_np(a), b.detach().numpy(), rtol=1e-12, atol=1e-12)
        else:
            assert a == b
    return ours, theirs


def same_error(scenario):
    torch = pytest.importorskip("torch")
    ours = error_of(lambda: scenario(framework))
    with warnings.catch_warnings():  # (torch's linearize traces with fx, which warns)
        warnings.simplefilter("ignore")
        theirs = error_of(lambda: scenario(torch))
    assert theirs != ("ok",)
    assert ours == theirs
    return ours


def t64(T, a, requires_grad=False):
    return T.tensor(a, dtype=T.float64, requires_grad=requires_grad)


# ---- grad, grad_and_value ------------------------------------------------------------------------------

def test_grad_argnums_and_aux():
    def scenario(T):
        def f(x, y, scale=1.0):
            return (T.sin(x) * y).sum() * scale, {"sq": x * x}
        x, y = t64(T, B), t64(T, A[0])
        g0 = T.func.grad(lambda x, y: f(x, y)[0])(x, y)
        g01, aux = T.func.grad(f, argnums=(0, 1), has_aux=True)(x, y, scale=2.0)
        gneg = T.func.grad(lambda x, y: f(x, y)[0], argnums=-1)(x, y)
        (gv, (value, aux2)) = T.func.grad_and_value(f, has_aux=True)(x, y)
        return g0, g01, aux, gneg, gv, value, aux2
    run_both(scenario)


def test_grad_of_grad_and_closures():
    def scenario(T):
        x = t64(T, 0.7)
        d3 = T.func.grad(T.func.grad(T.func.grad(lambda x: T.sin(x) * x ** 3)))(x)
        # the inner transform differentiates w.r.t. y only: x is a constant to it (no perturbation confusion)
        mixed = T.func.grad(lambda x: T.func.grad(lambda y: x * y ** 2)(x))(x)
        return d3, mixed
    run_both(scenario)


def test_grad_of_pytree_inputs():
    def scenario(T):
        params = {"w": t64(T, A), "b": [t64(T, B), (t64(T, B[:2]),)]}

        def loss(p, x):
            h = T.tanh(x @ p["w"].T) + p["b"][1][0].sum()
            return (h * p["b"][0].sum()).pow(2).mean()
        return T.func.grad(loss)(params, t64(T, C))
    run_both(scenario)


def test_results_require_grad_only_when_torchs_do():
    def scenario(T):
        x = t64(T, B)
        w = t64(T, B, requires_grad=True)
        plain = T.func.grad(lambda x: (x ** 3).sum())(x)
        attached = T.func.grad(lambda x: (x ** 3).sum())(t64(T, B, requires_grad=True))
        closure = T.func.grad(lambda x: (x * w).sum() * (x * x).sum())(x)
        with T.no_grad():
            under_no_grad = T.func.grad(lambda x: (x ** 3).sum())(t64(T, B, requires_grad=True))
        jac = T.func.jacrev(T.sin)(x)
        return plain, attached, closure, under_no_grad, jac
    run_both(scenario)


def test_grad_through_attached_result_matches_torch():
    def scenario(T):
        x = t64(T, B, requires_grad=True)
        g = T.func.grad(lambda x: (x ** 3).sum())(x)
        (outer,) = T.autograd.grad(g.sum(), x)
        return outer
    run_both(scenario)


def test_grad_equals_autograd_grad():  # no torch
    x = framework.tensor(B, dtype=framework.float64, requires_grad=True)
    f = lambda x: (framework.exp(x) * framework.sin(x)).sum()  # noqa: E731
    (expected,) = framework.autograd.grad(f(x), x)
    got = framework.func.grad(f)(x.detach())
    assert not got.requires_grad
    np.testing.assert_allclose(as_np(got), as_np(expected), rtol=1e-14)
    second = framework.func.grad(lambda x: framework.func.grad(f)(x).sum())(x.detach())
    (g1,) = framework.autograd.grad(f(x), x, create_graph=True)
    (expected2,) = framework.autograd.grad(g1.sum(), x)
    np.testing.assert_allclose(as_np(second), as_np(expected2), rtol=1e-14)


@pytest.mark.parametrize("case", [
    lambda T: T.func.grad(lambda x: x)(t64(T, B)),
    lambda T: T.func.grad(lambda x: 1.0)(t64(T, B)),
    lambda T: T.func.grad(lambda x: x.sum(), argnums=2)(t64(T, B)),
    lambda T: T.func.grad(lambda x: x.sum(), argnums=(0, 0))(t64(T, B)),
    lambda T: T.func.grad(lambda x: x.sum(), argnums=())(t64(T, B)),
    lambda T: T.func.grad(lambda x: x.sum(), argnums=1.0)(t64(T, B)),
    lambda T: T.func.grad(lambda x, y: x.sum(), argnums=(0, 1.0))(t64(T, B), t64(T, B)),
    lambda T: T.func.grad(lambda x, y: x.sum())(1.0, t64(T, B)),
    lambda T: T.func.grad(lambda x: x.sum(), has_aux=True)(t64(T, B)),
    lambda T: T.func.grad(lambda x: (x.sum(), 1.0), has_aux=True)(t64(T, B)),
    lambda T: T.func.grad(lambda x: x.sum())(T.arange(3)),
], ids=["non-scalar", "non-tensor", "argnum-range", "argnums-repeat", "argnums-empty", "argnums-float",
        "argnum-float", "non-tensor-input", "aux-not-pair", "aux-non-tensor", "integer-input"])
def test_grad_errors_match_torch(case):
    same_error(case)


def test_non_scalar_error_text():
    with pytest.raises(RuntimeError, match=r"^grad_and_value\(f\)\(\*args\): Expected f\(\*args\) to return a scalar "
                                           r"Tensor, got tensor with 1 dims\. Maybe you wanted"):
        framework.func.grad(lambda x: x * 2)(framework.ones(3))


# ---- vjp, jvp, linearize -------------------------------------------------------------------------------

def test_vjp_pytrees_and_aux():
    def scenario(T):
        x, y = t64(T, B), t64(T, A)
        out, vjp_fn, aux = T.func.vjp(lambda x, y: ((y @ x, {"s": T.sin(x)}), x.sum()), x, y, has_aux=True)
        ct = (t64(T, A[:, 0]), {"s": t64(T, B[::-1].copy())})
        return out, vjp_fn(ct), aux
    run_both(scenario)


def test_jvp_and_linearize():
    def scenario(T):
        x, y = t64(T, B), t64(T, A)
        f = lambda x, y: (T.tanh(y @ x), (x * x).sum(), T.ones(2, dtype=T.float64))  # noqa: E731
        out, tangent_out = T.func.jvp(f, (x, y), (t64(T, B[::-1].copy()), t64(T, A * 0.5)))
        out2, tan2, aux = T.func.jvp(lambda x: (T.exp(x), x.sum()), (x,), (t64(T, B),), has_aux=True)
        lin_out, jvp_fn = T.func.linearize(lambda x: T.sin(x) * x, x)
        return out, tangent_out, out2, tan2, aux, lin_out, jvp_fn(t64(T, B)), jvp_fn(t64(T, B * 2))
    run_both(scenario)


@pytest.mark.parametrize("case", [
    lambda T: T.func.jvp(T.sin, (t64(T, B),), (t64(T, B[:2]),)),
    lambda T: T.func.jvp(T.sin, t64(T, B), (t64(T, B),)),
    lambda T: T.func.jvp(T.sin, (t64(T, B),), [t64(T, B)]),
    lambda T: T.func.jvp(T.sin, (t64(T, B),), (1.0,)),
    lambda T: T.func.jvp(lambda x: T.ones(2), (t64(T, B),), (t64(T, B),), strict=True),
    lambda T: T.func.jvp(lambda x: 1.0, (t64(T, B),), (t64(T, B),)),
    lambda T: T.func.jvp(lambda x: x, (t64(T, B),), (t64(T, B),), has_aux=True),
    lambda T: T.func.vjp(lambda x: x, t64(T, B), has_aux=True),
    lambda T: T.func.vjp(lambda x: (x, x), t64(T, B))[1](t64(T, B)),
    lambda T: T.func.vjp(lambda x: x.long(), t64(T, B)),
    lambda T: T.func.vjp(lambda x: [], t64(T, B)),
    lambda T: T.func.linearize(T.sin, t64(T, B))[1](t64(T, B[:2])),
], ids=["tangent-shape", "primals-not-tuple", "structure", "tangent-float", "strict", "non-tensor-out", "jvp-aux",
        "vjp-aux", "cotangent-structure", "integer-output", "empty-output", "linearize-shape"])
def test_vjp_jvp_errors_match_torch(case):
    same_error(case)


def test_jvp_strict_allows_dependent_outputs():
    def scenario(T):
        return T.func.jvp(lambda x: x * 2, (t64(T, B),), (t64(T, B),), strict=True)
    run_both(scenario)


# ---- jacrev, jacfwd, hessian ---------------------------------------------------------------------------

@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians_pytrees_and_argnums(jac):
    def scenario(T):
        transform = getattr(T.func, jac)
        x, y = t64(T, B), t64(T, A)

        def f(x, y):
            return {"a": T.sin(y @ x), "b": (x * x).sum()}, [y.sum(0) * x]
        one = transform(f)(x, y)
        both = transform(f, argnums=(0, 1))(x, y)
        aux = transform(lambda x: (T.exp(x), x.mean()), has_aux=True)(x)
        scalar = transform(lambda x: (x ** 3).sum())(x)
        return one, both, aux, scalar
    run_both(scenario)


def test_hessian_and_nested_jacobians():
    def scenario(T):
        x, y = t64(T, B), t64(T, A[0])
        f = lambda x, y: (T.sin(x) * y).sum() * (x ** 2).sum()  # noqa: E731
        return (T.func.hessian(f)(x, y), T.func.hessian(f, argnums=(0, 1))(x, y),
                T.func.jacrev(T.func.jacrev(f))(x, y), T.func.jacfwd(T.func.jacfwd(f))(x, y))
    run_both(scenario)


@pytest.mark.parametrize("case", [
    lambda T: T.func.jacrev(T.sin, chunk_size=0),
    lambda T: T.func.jacfwd(T.sin, randomness="x")(t64(T, B)),
    lambda T: T.func.jacfwd(lambda x: x + T.randn(3, dtype=T.float64))(t64(T, B)),
    lambda T: T.func.jacrev(lambda x: 1.0)(t64(T, B)),
    lambda T: T.func.jacrev(T.sin, argnums=3)(t64(T, B)),
], ids=["chunk-size", "randomness-arg", "random-op", "non-tensor-output", "argnums"])
def test_jacobian_errors_match_torch(case):
    same_error(case)


def _finite_difference_jacobian(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    cols = []
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        plus = as_np(f(framework.tensor(x + d, dtype=framework.float64)))
        minus = as_np(f(framework.tensor(x - d, dtype=framework.float64)))
        cols.append(((plus - minus) / (2 * eps)).ravel())
    return np.stack(cols, axis=-1)


def test_jacobians_against_finite_differences():  # no torch
    def f(x):
        return framework.stack([framework.sin(x).sum() * x[0], (x ** 3).prod(), framework.tanh(x[1] * x[2])])
    x = framework.tensor(B, dtype=framework.float64)
    expected = _finite_difference_jacobian(f, B)
    for transform in (framework.func.jacrev, framework.func.jacfwd):
        np.testing.assert_allclose(as_np(transform(f)(x)), expected, rtol=1e-7, atol=1e-8)

    def scalar(x):
        return (framework.sin(x) * x ** 2).sum()
    hess = as_np(framework.func.hessian(scalar)(x))
    fd = _finite_difference_jacobian(framework.func.grad(scalar), B)
    np.testing.assert_allclose(hess, fd, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-12)


# ---- vmap ----------------------------------------------------------------------------------------------

def test_vmap_in_dims_out_dims_and_pytrees():
    def scenario(T):
        a, b, c = t64(T, A), t64(T, B), t64(T, C)
        r1 = T.func.vmap(lambda x, y: x * y, in_dims=(0, None))(a, b)
        r2 = T.func.vmap(lambda x, y: x @ y, in_dims=(1, None), out_dims=1)(a, t64(T, A))
        r3 = T.func.vmap(lambda d: {"s": d["x"].sum(), "p": d["l"][0] * d["l"][1]},
                         in_dims=({"x": 0, "l": [0, None]},))({"x": a, "l": [a, b]})
        r4 = T.func.vmap(lambda x: (x.sum(), x * 2), out_dims=(0, -1))(c)
        r5 = T.func.vmap(T.func.vmap(lambda x, y: x * y, in_dims=(0, None)), in_dims=(None, 0))(b, a)
        r6 = T.func.vmap(lambda x, y, scale: x * y * scale, in_dims=(-1, 0))(c.T.contiguous(), c, scale=3.0)
        r7 = T.func.vmap(lambda x: (x, 1.0), out_dims=(0, None))(b)
        r8 = T.vmap(T.sum)(a)
        return r1, r2, r3, r4, r5, r6, r7, r8
    run_both(scenario)


@pytest.mark.parametrize("case", [
    lambda T: T.func.vmap(lambda a: a, in_dims=[0])(t64(T, A)),
    lambda T: T.func.vmap(lambda a: a, in_dims=(0, 0))(t64(T, A)),
    lambda T: T.func.vmap(lambda a, b: a, in_dims=(0, 0))(t64(T, A), 1.0),
    lambda T: T.func.vmap(lambda a: a, in_dims=(2,))(t64(T, A)),
    lambda T: T.func.vmap(lambda a: a, in_dims=(1.5,))(t64(T, A)),
    lambda T: T.func.vmap(lambda a, b: a + b)(t64(T, A), t64(T, C)),
    lambda T: T.func.vmap(lambda a: a)(),
    lambda T: T.func.vmap(lambda a: a, in_dims=None)(t64(T, A)),
    lambda T: T.func.vmap(lambda a: a, in_dims=(None,))(t64(T, A)),
    lambda T: T.func.vmap(lambda a: a, out_dims=None)(t64(T, A)),
    lambda T: T.func.vmap(lambda a: 1.0)(t64(T, A)),
    lambda T: T.func.vmap(lambda a: None)(t64(T, A)),
    lambda T: T.func.vmap(lambda a: a, out_dims="a")(t64(T, A)),
    lambda T: T.func.vmap(lambda a: a, out_dims=(0, 0))(t64(T, A)),
    lambda T: T.func.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(t64(T, A)),
    lambda T: T.func.vmap(lambda a: a, randomness="x"),
    lambda T: T.func.vmap(lambda a: a, chunk_size=0),
    lambda T: T.func.vmap(lambda seq: seq[0], in_dims=((0, None),))([t64(T, A), t64(T, B)]),
    lambda T: T.func.vmap(lambda a: a, in_dims=0)(t64(T, 1.0)),
    lambda T: T.func.vmap(lambda a: a.item())(t64(T, A)),
    lambda T: T.func.vmap(lambda a: a * float(a[0]))(t64(T, A)),
    lambda T: T.func.vmap(lambda a: a + T.randn(3, dtype=T.float64))(t64(T, A)),
    lambda T: T.func.vmap(lambda a: T.nn.functional.dropout(a, 0.5))(t64(T, A)),
    lambda T: T.func.vmap(functools.partial(lambda a, b: a, b=1), in_dims=(1.5,))(t64(T, A)),
], ids=["in-dims-list", "in-dims-structure", "in-dim-non-tensor", "in-dim-range", "in-dim-float", "batch-sizes",
        "no-inputs", "in-dims-none", "nothing-mapped", "out-dim-none-batched", "non-tensor-output", "none-output",
        "out-dims-str", "out-dims-structure", "out-dims-tuple-structure", "randomness-arg", "chunk-size",
        "nested-structure", "zero-dim", "item", "float", "randn", "dropout", "partial-name"])
def test_vmap_errors_match_torch(case):
    same_error(case)


def test_vmap_item_flag_is_cleared_after_errors():  # no torch
    with pytest.raises(RuntimeError, match="vmap: It looks like you're calling .item()"):
        framework.func.vmap(lambda a: a.item())(framework.ones(3))
    assert framework.ones(()).item() == 1.0
    framework.randn(2)  # random ops work again outside vmap


def test_vmap_randomness_modes():  # no torch
    x = framework.zeros(4, 3, dtype=framework.float64)
    same = framework.func.vmap(lambda a: a + framework.randn(3, dtype=framework.float64), randomness="same")(x)
    assert np.allclose(as_np(same), as_np(same[0]))
    different = framework.func.vmap(lambda a: a + framework.rand(3, dtype=framework.float64),
                                    randomness="different")(x)
    assert len({tuple(row) for row in as_np(different)}) == 4


def test_vmap_equals_a_loop():  # no torch
    a, c = framework.tensor(A), framework.tensor(RNG.standard_normal((5, 4)))
    f = lambda x, y: framework.tanh(y @ x)  # noqa: E731
    out = framework.func.vmap(f, in_dims=(1, None), out_dims=1)(a, c)
    loop = framework.stack([f(a[:, i], c) for i in range(3)], dim=1)
    np.testing.assert_array_equal(as_np(out), as_np(loop))


def test_vmap_of_grad_and_grad_of_vmap():
    def scenario(T):
        x = t64(T, A)
        per_row = T.func.vmap(T.func.grad(lambda r: (T.sin(r) * r).sum()))(x)
        through = T.func.grad(lambda x: T.func.vmap(lambda r: (r ** 3).sum())(x).sum())(x)
        jac = T.func.vmap(T.func.jacrev(T.sin))(x)
        hess = T.func.vmap(T.func.hessian(lambda r: (r ** 4).sum()))(x)
        return per_row, through, jac, hess
    run_both(scenario)


# ---- per-sample gradients and ensembles, as torch's tutorials ------------------------------------------

def _model(T, seed_weights):
    model = T.nn.Sequential(T.nn.Linear(3, 5), T.nn.ReLU(), T.nn.Linear(5, 2)).double()
    with T.no_grad():
        for p, w in zip(model.parameters(), seed_weights):
            p.copy_(T.tensor(w, dtype=T.float64))
    return model


def _weights(seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in ((5, 3), (5,), (2, 5), (2,))]


def test_per_sample_grads_tutorial():
    def scenario(T):
        model = _model(T, _weights(1))
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def compute_loss(params, buffers, sample, target):
            batch, targets = sample.unsqueeze(0), target.unsqueeze(0)
            predictions = T.func.functional_call(model, (params, buffers), (batch,))
            return T.nn.functional.cross_entropy(predictions, targets)
        data, targets = t64(T, C), T.tensor([0, 1, 1, 0, 1])
        grads = T.func.vmap(T.func.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
        return grads
    ours, _ = run_both(scenario)
    # the per-sample gradients add up to the batch gradient (the loss' mean times the batch size)
    model = _model(framework, _weights(1))
    data = framework.tensor(C, dtype=framework.float64)
    loss = framework.nn.functional.cross_entropy(model(data), framework.tensor([0, 1, 1, 0, 1]), reduction="sum")
    loss.backward()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(as_np(ours[name].sum(0)), as_np(p.grad), rtol=1e-12, atol=1e-12)


def test_model_ensembling_tutorial():
    def scenario(T):
        models = [_model(T, _weights(s)) for s in (2, 3, 4)]
        params, buffers = T.func.stack_module_state(models)
        base = models[0]

        def fmodel(params, buffers, x):
            return T.func.functional_call(base, (params, buffers), (x,))
        same_batch = T.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, t64(T, C))
        per_model = T.func.vmap(fmodel)(params, buffers, t64(T, np.stack([C, C * 2, C * 3])))
        return params, same_batch, per_model
    run_both(scenario)


# ---- functional_call -----------------------------------------------------------------------------------

class _Tied:
    def __init__(self, T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.foo = T.nn.Parameter(T.ones((), dtype=T.float64))
                self.foo_tied = self.foo
                self.register_buffer("count", T.zeros((), dtype=T.float64))

            def forward(self, x):
                self.count = self.count + 1  # replaces the buffer: functional_call writes it back into the dict
                return x + self.foo + self.foo_tied
        self.module = M()


def test_functional_call_values_tied_weights_and_write_back():
    def scenario(T):
        m = _Tied(T).module
        zero = T.zeros((), dtype=T.float64)
        given = {"foo": zero, "count": T.zeros((), dtype=T.float64)}
        tied = T.func.functional_call(m, given, zero)
        untied = T.func.functional_call(m, {"foo": zero}, (zero,), tie_weights=False)
        both = T.func.functional_call(m, {"foo": zero, "foo_tied": zero}, zero)
        kw = T.func.functional_call(T.nn.Linear(3, 1).double(), [{"weight": t64(T, A[:1])}, {"bias": t64(T, B[:1])}],
                                    args=t64(T, B))
        return tied, untied, both, given["count"], m.count, m.foo, kw
    run_both(scenario)


def test_functional_call_restores_the_module_even_on_error():  # no torch
    lin = framework.nn.Linear(3, 2)
    weight, bias = lin.weight, lin.bias
    with pytest.raises(RuntimeError):
        framework.func.functional_call(lin, {"weight": framework.zeros(2, 3)}, (framework.zeros(4),))
    assert lin.weight is weight and lin.bias is bias
    out = framework.func.functional_call(lin, {"weight": framework.zeros(2, 3)}, framework.ones(3))
    np.testing.assert_allclose(as_np(out), as_np(bias))
    assert lin.weight is weight and isinstance(lin.weight, framework.nn.Parameter)


@pytest.mark.parametrize("case", [
    lambda T: T.func.functional_call(T.nn.Linear(3, 2), {"weight": T.zeros(2, 3), "extra": T.zeros(1)},
                                     (T.zeros(3),), strict=True),
    lambda T: T.func.functional_call(T.nn.Linear(3, 2), {"weight": T.zeros(2, 3)}, (T.zeros(3),), strict=True),
    lambda T: T.func.functional_call(_Tied(T).module, {"foo": T.zeros(()), "foo_tied": T.ones(())}, T.zeros(())),
    lambda T: T.func.functional_call(T.nn.Linear(3, 2), [{"weight": T.zeros(2, 3)}, {"weight": T.zeros(2, 3)}],
                                     (T.zeros(3),)),
    lambda T: T.func.functional_call(T.nn.Linear(3, 2), [{"weight": T.zeros(2, 3)}, 1], (T.zeros(3),)),
    lambda T: T.func.functional_call(T.nn.Linear(3, 2), 1, (T.zeros(3),)),
    lambda T: T.func.functional_call(T.nn.Linear(3, 2), {"weight": 1.0}, (T.zeros(3),)),
    lambda T: T.func.stack_module_state([]),
    lambda T: T.func.stack_module_state([T.nn.Linear(1, 1), T.nn.Linear(1, 1).eval()]),
    lambda T: T.func.stack_module_state([T.nn.Linear(1, 1), T.nn.Tanh()]),
    lambda T: T.func.stack_module_state([T.nn.Linear(1, 1), T.nn.Linear(1, 1).requires_grad_(False)]),
], ids=["unexpected-key", "missing-key", "tied-values", "repeated-key", "not-dicts", "not-a-dict", "not-a-tensor",
        "no-models", "modes", "classes", "requires-grad"])
def test_functional_call_errors_match_torch(case):
    same_error(case)


def test_strict_error_lists_both_kinds_of_keys():
    def scenario(T):
        T.func.functional_call(T.nn.Linear(3, 2), {"weight": T.zeros(2, 3), "extra": T.zeros(1)}, (T.zeros(3),),
                               strict=True)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as ours:
        scenario(framework)
    with pytest.raises(RuntimeError) as theirs:
        scenario(torch)
    assert str(ours.value) == str(theirs.value)


def test_deprecated_stateless_functional_call_warns():
    def scenario(T):
        lin = T.nn.Linear(3, 1).double()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = T.nn.utils.stateless.functional_call(lin, {"weight": t64(T, A[:1]), "bias": t64(T, B[:1])},
                                                       t64(T, B))
        messages = [(w.category, str(w.message).replace(T.__name__ + ".", "T.")) for w in caught]
        return out, messages
    ours, theirs = run_both(lambda T: scenario(T)[0])
    assert scenario(framework)[1] == scenario(pytest.importorskip("torch"))[1]


# ---- transforms composed -------------------------------------------------------------------------------

def test_forward_over_reverse_and_reverse_over_forward():
    def scenario(T):
        x, v = t64(T, B), t64(T, B[::-1].copy())
        f = lambda y: T.sin(y) * y  # noqa: E731
        hvp = T.func.jvp(T.func.grad(lambda y: f(y).sum()), (x,), (v,))
        grad_of_jvp = T.func.grad(lambda y: T.func.jvp(f, (y,), (v,))[1].sum())(x)
        # the tangent's own gradient: the result stays free of graph, as torch's (the jvp's leaves are its own)
        grad_wrt_tangent = T.func.grad(lambda t: T.func.jvp(f, (x,), (t,))[1].pow(2).sum())(v)
        _, vjp_fn = T.func.vjp(f, x)
        grad_of_vjp_fn = T.func.grad(lambda ct: vjp_fn(ct)[0].pow(2).sum())(v)
        vjp_inside_grad = T.func.grad(lambda y: T.func.vjp(T.sin, y)[1](y)[0].sum())(x)
        return hvp, grad_of_jvp, grad_wrt_tangent, grad_of_vjp_fn, vjp_inside_grad
    run_both(scenario)


def test_per_sample_grads_of_parameters_that_require_grad():
    def scenario(T):
        model = _model(T, _weights(5))
        params = dict(model.named_parameters())  # not detached: the results stay on the parameters' graph

        def loss(p, x):
            return T.func.functional_call(model, p, (x.unsqueeze(0),)).pow(2).sum()
        grads = T.func.vmap(T.func.grad(loss), in_dims=(None, 0))(params, t64(T, C))
        total = sum(g.pow(2).sum() for g in grads.values())
        return grads, T.autograd.grad(total, list(params.values()))
    run_both(scenario)


def test_functional_call_kwargs():
    def scenario(T):
        class Scaled(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = T.nn.Parameter(T.ones(3, dtype=T.float64))

            def forward(self, x, *, scale):
                return self.w * x * scale
        return T.func.functional_call(Scaled(), {"w": t64(T, B)}, (t64(T, A[0]),), {"scale": t64(T, 2.0)})
    run_both(scenario)


def test_functional_call_through_parametrizations():
    def scenario(T):
        lin = T.nn.Linear(3, 2).double()
        with T.no_grad():
            lin.weight.copy_(t64(T, A[:2])), lin.bias.zero_()
        m = T.nn.utils.parametrizations.weight_norm(lin)
        x, ones = t64(T, A[2:3]), t64(T, np.ones((2, 3)))
        return (T.func.functional_call(m, {"parametrizations.weight.original1": ones}, (x,)),
                T.func.functional_call(m, {"weight": ones}, (x,)), m(x))
    run_both(scenario)
