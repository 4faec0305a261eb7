"""torch.autograd.Variable (deprecated since 0.4, seed 001): calling it gives a detached Tensor with the asked
requires_grad, and every tensor is an instance of it, as in torch."""
from __future__ import annotations

import warnings

import pytest

import framework
from framework.autograd import Variable
from scenario import outcome


def test_variable_is_a_detached_tensor_sharing_memory():
    t = framework.ones(2)
    v = Variable(t, requires_grad=True)
    assert type(v) is framework.Tensor and v.requires_grad and v.is_leaf and isinstance(t, Variable)
    v.data.add_(1.0)  # same memory as t
    assert t.tolist() == [2.0, 2.0]
    (v * v).sum().backward()
    assert v.grad.tolist() == [4.0, 4.0]


@pytest.mark.parametrize("case", ["plain", "requires_grad", "non_leaf", "empty", "volatile", "int", "list",
                                  "long_requires_grad"])
def test_variable_matches_torch(case):
    torch = pytest.importorskip("torch")

    def run(m):
        V = m.autograd.Variable
        a = m.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            v = {"plain": lambda: V(m.ones(2)), "requires_grad": lambda: V(m.ones(2), requires_grad=True),
                 "non_leaf": lambda: V(a * 2, requires_grad=True), "empty": lambda: V(),
                 "volatile": lambda: V(m.ones(2), volatile=True), "int": lambda: V(3), "list": lambda: V([1, 2]),
                 "long_requires_grad": lambda: V(m.ones(2, dtype=m.int64), requires_grad=True)}[case]()
        return (v.requires_grad, v.is_leaf, v.grad_fn is None, tuple(v.shape), v.tolist(),
                [str(w.message) for w in caught])

    assert outcome(run, framework) == outcome(run, torch)
