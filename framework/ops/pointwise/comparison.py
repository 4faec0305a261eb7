"""Comparisons and predicates: eq, ne, lt, le, gt, ge (and in place), logical ops, isnan/isinf/isfinite, signbit, isposinf/isneginf, isclose, equal, allclose."""
from __future__ import annotations

from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ...backend import errstate, get_array_module
from ...tensor import Tensor
from ...memory_layout import elementwise_layout
from .._util import check_device, grad_for, inplace_shape, operand, promote, scalar_type_name
from .unary import _zeros


def _cmp(name):
    def op(a, b):
        aa, bb = promote(a._array, b._array if isinstance(b, Tensor) else b)  # compare in torch's dtype
        xp = get_array_module(aa)
        out = xp.asarray(getattr(xp, name)(aa, bb))  # asarray: 0-d numpy gives a scalar
        out = elementwise_layout(out, (aa, bb))  # torch's TensorIterator: the first operand's layout decides
        with no_grad():
            return Tensor._make(out)

    return op


eq, ne, lt, le, gt, ge = (_cmp(f) for f in ("equal", "not_equal", "less", "less_equal", "greater",
                                             "greater_equal"))


logical_and, logical_or, logical_xor = (_cmp(f) for f in ("logical_and", "logical_or", "logical_xor"))


greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne


def _pred(name):
    def op(a, *args, **kwargs):
        xp = get_array_module(a._array)
        return Tensor._make(xp.asarray(getattr(xp, name)(a._array, *args, **kwargs)))

    return op


isfinite = _pred("isfinite")


isnan = _pred("isnan")


isinf = _pred("isinf")


logical_not = _pred("logical_not")


def equal(a, b) -> bool:
    check_device(a, b)
    return a.shape == b.shape and bool(get_array_module(a._array).array_equal(a._array, b._array))


def allclose(a, b, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    check_device(a, b)
    xp = get_array_module(a._array)
    return bool(xp.allclose(a._array, b._array, rtol=rtol, atol=atol, equal_nan=equal_nan))


def numel(a) -> int:
    return a.numel()


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def _predicate(fn):
    def op(input: Tensor) -> Tensor:
        xp = get_array_module(input._array)
        return Tensor._make(xp.asarray(fn(xp, input._array)))

    return op


signbit = _predicate(lambda xp, a: xp.signbit(a) if a.dtype.kind in "fV" else (a < 0) if a.dtype.kind == "i"
                     else xp.zeros(a.shape, dtype=bool))


isposinf = _predicate(lambda xp, a: (a == xp.inf) if a.dtype.kind in "fV" else xp.zeros(a.shape, dtype=bool))


isneginf = _predicate(lambda xp, a: (a == -xp.inf) if a.dtype.kind in "fV" else xp.zeros(a.shape, dtype=bool))


isreal = _predicate(lambda xp, a: xp.ones(a.shape, dtype=bool))  # no complex dtypes here: every element is real


class CompareInplace(Function):
    """a[...] = (a op b) in a's dtype: torch's eq_/lt_/...; the gradient is zero for both. Saves nothing."""

    array_forward, inplace = True, True

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.metas = [(getattr(x, "shape", ()), getattr(x, "dtype", None)) for x in (a, b)]
        inplace_shape(a.shape, getattr(b, "shape", ()))
        x, y = promote(a, b)
        xp = get_array_module(a)
        with errstate(xp, invalid="ignore"):
            a[...] = getattr(xp, cls.ufunc)(x, y)
        return a

    @classmethod
    def backward(cls, ctx, grad):
        zero = _zeros(grad)  # torch: zeros_like(self), zeros_like(other)
        gb = grad_for(zero, *ctx.metas[1]) if ctx.needs_input_grad[1] else None
        return zero, gb


_COMPARE = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
            "ge": "greater_equal"}


_INPLACE_NODES = {}


for _short, _ufunc in _COMPARE.items():
    for _i in (0, 1):  # Backward0: a number on the right; Backward1: a tensor
        _INPLACE_NODES[_short, _i] = type(f"{_short.capitalize()}Inplace{_i}", (CompareInplace,), {
            "node_name": f"{_short.capitalize()}Backward{_i}", "ufunc": _ufunc,
            "__doc__": f"In-place {_short}_ (other a {'tensor' if _i else 'number'}). Saves nothing."})


def _compare_inplace(short: str):
    def method(self: Tensor, other) -> Tensor:
        other = operand(other, f"{short}_", 1)
        return _INPLACE_NODES[short, int(isinstance(other, Tensor))].apply(self, other)

    method.__name__ = f"{short}_"
    return method


eq_, ne_, lt_, le_, gt_, ge_ = (_compare_inplace(s) for s in ("eq", "ne", "lt", "le", "gt", "ge"))


def logical_inplace(fn, name: str):
    """x.logical_and_(y): x becomes (x and y) in its own dtype (1.0/0.0 for floats). torch records no node for
    it (grad_fn stays as it was); the version counter still counts the write."""

    def method(self: Tensor, *other) -> Tensor:
        out = fn(self, *other)
        inplace_shape(self.shape, out.shape)
        with no_grad():
            self.copy_(out)
        return self

    method.__name__ = name
    return method


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other|, elementwise (a bool tensor; equal infinities are close)."""
    other = operand(other, "isclose", 2, numbers=False)
    check_device(input, other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{scalar_type_name(input._array.dtype)} did not match "
                           f"{scalar_type_name(other._array.dtype)}")
    xp = get_array_module(input._array)
    out = xp.asarray(xp.isclose(input._array, other._array, rtol=rtol, atol=atol, equal_nan=equal_nan))
    return Tensor._make(elementwise_layout(out, (input._array, other._array)))
