"""framework.special: torch.special's names for the functions framework has (the same objects), torch's values
and node names; the functions it lacks are absent (AttributeError), not approximated."""
from __future__ import annotations

import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework import special

CALLS = {
    "erf": lambda s, x: s.erf(x), "erfc": lambda s, x: s.erfc(x), "erfinv": lambda s, x: s.erfinv(x * 0.5), "exp2": lambda s, x: s.exp2(x),
    "expit": lambda s, x: s.expit(x), "expm1": lambda s, x: s.expm1(x), "log1p": lambda s, x: s.log1p(x.abs()),
    "logit": lambda s, x: s.logit(x.sigmoid(), eps=1e-6), "logsumexp": lambda s, x: s.logsumexp(x, 1),
    "round": lambda s, x: s.round(x * 3), "round_1": lambda s, x: s.round(x * 3, decimals=1),
    "softmax": lambda s, x: s.softmax(x, 1),
    "log_softmax": lambda s, x: s.log_softmax(x, dim=0),
}


def test_names_are_the_framework_functions():
    assert special.expit is framework.sigmoid and special.softmax is F.softmax
    for name in ("erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "logit", "logsumexp"):
        assert getattr(special, name) is getattr(framework, name)
    for name in ("xlogy", "digamma", "polygamma", "i0", "sinc"):  # the gamma family (ops/pointwise/gamma.py)
        assert getattr(special, name) is getattr(framework, name)
    assert special.gammaln is framework.lgamma and special.psi is framework.digamma
    more = {"digamma", "entr", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log_ndtr",  # their
            "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "sinc", "xlog1py", "xlogy", "zeta"}  # values: op table
    assert framework.special is special and sorted(special.__all__) == sorted((set(CALLS) - {"round_1"}) | more)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_gradients_and_nodes_match_torch_special(name):
    torch = pytest.importorskip("torch")
    x = np.linspace(-1.7, 1.9, 12).reshape(3, 4)
    out = []
    for m in (framework, torch):
        t = m.tensor(x, dtype=m.float64, requires_grad=True)
        y = CALLS[name](m.special, t)
        y.sum().backward() if not name.startswith("round") else None
        out.append((type(y.grad_fn).__name__, y.detach().cpu().numpy(),
                    None if t.grad is None else t.grad.cpu().numpy()))
    (n1, y1, g1), (n2, y2, g2) = out
    assert n1 == n2
    np.testing.assert_allclose(y1, y2, rtol=1e-12, atol=1e-15)
    if g2 is not None:
        np.testing.assert_allclose(g1, g2, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", ["erfcx", "airy_ai", "bessel_j0", "chebyshev_polynomial_t", "spherical_bessel_j0",
                                  "scaled_modified_bessel_k0"])
def test_functions_it_lacks_are_absent_not_approximated(name):
    with pytest.raises(AttributeError):
        getattr(special, name)


@pytest.mark.parametrize("inplace", [False, True])
def test_round_with_explicit_decimals_zero_is_the_decimals_overload_as_torch(inplace):
    torch = pytest.importorskip("torch")
    names = []
    for m in (framework, torch):
        x = m.tensor([1.26, -2.5, 0.5, 1.5], requires_grad=True)
        plain = x.clone().round_() if inplace else m.round(x)
        explicit = x.clone().round_(decimals=0) if inplace else m.round(x, decimals=0)
        names.append((type(plain.grad_fn).__name__, type(explicit.grad_fn).__name__, explicit.tolist()))
    assert names[0] == names[1]  # RoundBackward0, then RoundBackward1 for decimals=0


def _node_chain(fn, depth=0):
    """The node names under fn, depth first (None edges skipped), as (depth, name) pairs."""
    if fn is None:
        return []
    out = [(depth, fn.name())]
    for child, _ in fn.next_functions:
        out += _node_chain(child, depth + 1)
    return out


@pytest.mark.parametrize("name", ["gammainc", "gammaincc", "igamma", "igammac"])
def test_incomplete_gamma_double_backward_graph_is_torchs(name):
    """derivatives.yaml: igammac's `other` gradient is -grad * exp(...), so create_graph's result is a MulBackward0."""
    torch = pytest.importorskip("torch")
    out = []
    for m in (framework, torch):
        x = m.tensor([[0.82, 2.39, 0.36], [2.7, 1.1, 2.71]], dtype=m.float64, requires_grad=True)
        fn = getattr(m.special, name) if name.startswith("gamma") else getattr(m, name)
        g, = m.autograd.grad(fn(m.full_like(x, 0.7), x).sum(), [x], create_graph=True)
        out.append((_node_chain(g.grad_fn), g.detach().cpu().numpy()))
    (c1, g1), (c2, g2) = out
    assert c1 == c2 and c1[0][1] == "MulBackward0"
    np.testing.assert_allclose(g1, g2, rtol=1e-12)
