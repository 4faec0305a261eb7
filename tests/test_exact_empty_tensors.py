"""PyTorch-exactness for empty tensors, causes found by the fuzzer (tests/fuzz.py): an empty batched product's
dtype rule, and the strides that decide whether AccumulateGrad steals an empty gradient (its ``_version``)."""
from __future__ import annotations

import itertools

import pytest

import framework
from scenario import outcome

torch = pytest.importorskip("torch")

_PRODUCT_SHAPES = [(0,), (3,), (0, 3), (2, 0), (2, 3), (0, 2, 3), (2, 0, 3), (2, 3, 0), (2, 3, 2), (0, 1, 1, 1),
                   (2, 1, 2), (1, 0, 3, 2)]


def _product(name, sa, sb, da, db):
    """The result's shape, dtype and node, and the gradients' shapes and dtypes (or the error)."""
    def fn(m):
        a = m.zeros(sa, dtype=getattr(m, da), requires_grad=True)
        b = m.zeros(sb, dtype=getattr(m, db), requires_grad=True)
        out = {"matmul": lambda: a @ b, "mm": lambda: m.mm(a, b), "bmm": lambda: m.bmm(a, b)}[name]()
        res = [tuple(out.shape), str(out.dtype).split(".")[-1], type(out.grad_fn).__name__, out.tolist()]
        out.sum().backward()
        return res + [(tuple(t.grad.shape), str(t.grad.dtype).split(".")[-1], t.grad.tolist()) for t in (a, b)]
    return fn


def _cases():
    for name, sa, sb in itertools.product(("matmul", "mm", "bmm"), _PRODUCT_SHAPES, _PRODUCT_SHAPES):
        if name != "matmul" and (len(sa) != {"mm": 2, "bmm": 3}[name] or len(sb) != len(sa)):
            continue
        yield name, sa, sb


@pytest.mark.parametrize("name,sa,sb", list(_cases()))
@pytest.mark.parametrize("da,db", [("float64", "float32"), ("float32", "float64")])
def test_empty_products_of_two_dtypes(name, sa, sb, da, db):
    # torch's bmm returns an empty result (or zeros for an empty inner dim) in batch2's dtype before its kernel
    # checks the dtypes (fuzz seed 4504924: (0, 1, 1, 1) float64 @ (2, 1, 2) float32); dot checks the dtypes
    # before the sizes; mm always checks them
    fn = _product(name, sa, sb, da, db)
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
