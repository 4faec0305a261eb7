"""In-place twins of the arithmetic ops (add_, sub_, mul_, div_, neg_, pow_): torch's node names and saves.

Each computes into arg 0's array; where backward needs the *old* value of arg 0 it keeps a copy, as
torch's ``original_self``.
"""
from __future__ import annotations

from ._util import check_inplace_cast
from .arithmetic import Add, Div, Mul, Neg, PowScalar, Sub


def _write(a, value):
    """Store ``value`` into ``a`` in place (the in-place twins); broadcasting must not grow ``a``, and the
    result's dtype must fit ``a``'s (``int_tensor.add_(2.5)`` is an error in torch)."""
    check_inplace_cast(value.dtype, a.dtype)
    if value.shape != a.shape:
        raise RuntimeError(f"output with shape {list(a.shape)} doesn't match the broadcast shape "
                           f"{list(value.shape)}")
    a[...] = value
    return a


class AddInplace(Add):
    node_name, inplace = "AddBackward0", True

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        return _write(a, Add.forward(ctx, a, b, alpha))


class SubInplace(Sub):
    node_name, inplace = "SubBackward0", True

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        return _write(a, Sub.forward(ctx, a, b, alpha))


class MulInplace(Mul):
    node_name, inplace = "MulBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        out = Mul.forward(ctx, a, b)
        if ctx.needs_input_grad[1]:  # backward for b needs the old a: keep a copy (torch's original_self)
            ctx.save_for_backward(a.copy(), ctx._to_save[1])
        return _write(a, out)


class DivInplace(Div):
    node_name, inplace = "DivBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        out = Div.forward(ctx, a, b)
        if ctx.needs_input_grad[1]:
            ctx.save_for_backward(a.copy(), ctx._to_save[1])
        return _write(a, out)


class NegInplace(Neg):
    node_name, inplace = "NegBackward0", True

    @staticmethod
    def forward(ctx, a):
        return _write(a, -a)


class PowScalarInplace(PowScalar):
    node_name, inplace = "PowBackward0", True

    @staticmethod
    def forward(ctx, a, p):
        out = PowScalar.forward(ctx, a, p)
        ctx.save_for_backward(a.copy())  # after forward's own save: backward needs the old a
        return _write(a, out)
