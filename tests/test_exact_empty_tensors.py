"""PyTorch-exactness for empty tensors, causes found by the fuzzer (tests/fuzz.py): an empty batched product's
dtype rule, and the strides that decide whether AccumulateGrad steals an empty gradient (its ``_version``)."""
from __future__ import annotations

import itertools

import numpy as np
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


# ---- the strides of empty tensors, and AccumulateGrad's layout contract on them ------------------------------------

_SHAPES = [(0,), (2, 0), (0, 3), (2, 0, 3), (1, 0)]


def _leaf(m, how: str, shape: tuple):
    """An empty float64 leaf made as ``how`` says: torch's strides differ (an ndarray's are NumPy's zeros)."""
    if how == "ndarray":
        return m.tensor(np.zeros(shape), dtype=m.float64, requires_grad=True)
    if how == "list":  # [] for every empty shape: a 1-D (0,) tensor
        return m.tensor(np.zeros(shape).tolist(), dtype=m.float64, requires_grad=True)
    if how == "zeros":
        return m.zeros(shape, dtype=m.float64, requires_grad=True)
    if how == "empty":
        return m.empty(shape, dtype=m.float64).requires_grad_()
    # transposed: a (2, 0) leaf with strides (1, 2)
    made = m.randn(shape[::-1], dtype=m.float64).t() if len(shape) == 2 else m.randn(shape, dtype=m.float64)
    return made.detach().requires_grad_()


def _loss(m, a, op: str):
    if op == "sum":
        return a.sum()
    if op == "mul":
        return (a * 2.0).sum()
    if op == "mulself":  # two gradients, summed in the engine's buffer (in place: _version 1)
        return (a * a).sum()
    if op == "t":
        return a.t().sum()
    if op == "linear":
        return m.nn.functional.linear(m.ones(3, a.shape[1], dtype=m.float64), a).sum()
    if op == "mm":
        return (m.ones(3, a.shape[0], dtype=m.float64) @ a).sum()
    if op == "matmul":
        return m.matmul(a, m.ones(a.shape[-1], 2, dtype=m.float64)).sum()
    # matmul with a on the right
    if a.dim() <= 2:
        return m.matmul(m.ones(4, a.shape[0], dtype=m.float64), a).sum()
    return m.matmul(m.ones(a.shape[-2], dtype=m.float64), a).sum()


_OPS_2D = {"t", "linear", "mm"}


@pytest.mark.parametrize("op", ["sum", "mul", "mulself", "t", "linear", "mm", "matmul", "matmul_l"])
@pytest.mark.parametrize("how", ["ndarray", "list", "zeros", "empty", "transposed"])
def test_empty_leaf_grad_strides_and_version(how, op):
    """fuzz seed 4409914: AccumulateGrad steals an empty gradient only when its strides are the leaf's (torch's
    layout contract), else copies it into the leaf's strides (_version 1); a second backward adds in place."""
    def prog(m):
        seen = []
        for shape in _SHAPES:
            a = _leaf(m, how, shape)
            if op in _OPS_2D and a.dim() != 2:
                continue
            seen.append((shape, a.stride()))
            for _ in range(2):
                _loss(m, a, op).backward()
                seen.append((a.grad.stride(), a.grad._version))
        return seen
    ours, theirs = outcome(prog, framework), outcome(prog, torch)
    assert ours == theirs
    assert ours[0] == "ok"


def test_linear_of_an_empty_ndarray_weight():
    """fuzz seed 4409914: the weight's gradient (x.t() @ g).t() has strides (1, 2), the ndarray weight's (0, 0):
    torch copies it into the weight's strides (_version 1)."""
    def prog(m):
        x = m.where(m.tensor(np.array(-1.51), dtype=m.float64, requires_grad=True)[False] > 0, 1.0, 2.0)
        w = m.tensor(np.array([[], []]), dtype=m.float64, requires_grad=True)
        m.nn.functional.linear(x.to(m.float64), w).sum().backward()
        return w.stride(), w.grad.stride(), w.grad._version
    ours, theirs = outcome(prog, framework), outcome(prog, torch)
    assert ours == theirs == ("ok", ((0, 0), (0, 0), 1))


def _made(m, how: str, shape: tuple):
    return {"ndarray": lambda: m.tensor(np.zeros(shape)),
            "ndarray32": lambda: m.tensor(np.zeros(shape), dtype=m.float32),
            "from_numpy": lambda: m.from_numpy(np.zeros(shape)), "as_tensor": lambda: m.as_tensor(np.zeros(shape)),
            "zeros": lambda: m.zeros(shape), "empty": lambda: m.empty(shape), "ones": lambda: m.ones(shape),
            "full": lambda: m.full(shape, 2.0), "randn": lambda: m.randn(shape)}[how]()


_VIEWS_AND_PRODUCTS = {
    "id": lambda t: t, "t": lambda t: t.t() if t.dim() <= 2 else t.transpose(0, 2),
    "mm": lambda t: t @ t.t() if t.dim() == 2 else t, "mm_t": lambda t: t.t() @ t if t.dim() == 2 else t,
    "mm_result_t": lambda t: (t @ t.t()).t() if t.dim() == 2 else t,
    "bmm_result_t": lambda t: (t @ t.transpose(1, 2)).transpose(1, 2) if t.dim() == 3 else t,
    "clone": lambda t: t.clone(), "t_contiguous": lambda t: t.t().contiguous() if t.dim() == 2 else t,
    "mul": lambda t: t * 2, "mul_t": lambda t: (t * 2).t() if t.dim() == 2 else t, "add": lambda t: t + t,
    "detach": lambda t: t.detach(), "reshape": lambda t: t.reshape(-1), "unsqueeze": lambda t: t.unsqueeze(0),
    "slice": lambda t: t[:1], "sum0": lambda t: t.sum(0), "expand": lambda t: t.expand(3, *t.shape),
    "empty_index": lambda t: t[[]],
}


@pytest.mark.parametrize("how", ["ndarray", "ndarray32", "from_numpy", "as_tensor", "zeros", "empty", "ones", "full",
                                 "randn"])
def test_empty_tensor_strides(how):
    """torch's strides of empty tensors: contiguous with an empty dim stepping as a size-1 one (zeros(2, 0) is
    (1, 1)), but an ndarray's kept (NumPy's zeros); views step from those, products are made contiguous."""
    def prog(m):
        seen = []
        for shape, (name, fn) in itertools.product(_SHAPES, _VIEWS_AND_PRODUCTS.items()):
            out = fn(_made(m, how, shape))
            seen.append((shape, name, tuple(out.shape), out.stride(), out.is_contiguous()))
        return seen
    ours, theirs = outcome(prog, framework), outcome(prog, torch)
    assert ours == theirs
    assert ours[0] == "ok"


@pytest.mark.parametrize("shape", [(0, 3), (5, 3), (3, 0)])
@pytest.mark.parametrize("call", ["split(2)", "split(0)", "split(-1)", "split(7)", "chunk(2)", "chunk(0)", "chunk(4)",
                                  "chunk(6)", "unsafe_chunk(3)", "chunk(2, 1)", "split([0, 0], 1)"])
def test_split_and_chunk_of_empty_and_short_dims_as_torch(shape, call):
    """split of an empty dim gives one empty piece, chunk gives ``chunks`` of them (torch's split_with_sizes), the
    pieces' sizes, nodes and errors as torch's (ours gave no piece, one piece, or a ValueError)."""
    def fn(m):
        x = m.zeros(shape, requires_grad=True)
        pieces = eval(f"x.{call}")
        if pieces:
            sum(p.sum() for p in pieces).backward()
        return [tuple(p.shape) for p in pieces], [type(p.grad_fn).__name__ for p in pieces], \
            None if x.grad is None else tuple(x.grad.shape)
    assert outcome(fn, framework) == outcome(fn, torch)
