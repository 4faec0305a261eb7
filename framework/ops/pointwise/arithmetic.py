"""add, sub, rsub, mul, div, neg, pow, reciprocal with broadcasting: the op classes, then their functional API.

Each op saves what torch's saves, and only when the other input needs it: ``a * b`` keeps ``b`` only
if ``a`` requires grad.  The in-place twins (add_, mul_, ...) are in arithmetic_inplace.py."""
from __future__ import annotations

import operator

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.broadcast import sum_to_array
from ...autograd.function import Function
from ... import backend, dtypes
from ...tensor import Tensor
from .. import scalar_ops as _scalar
from ...memory_layout import elementwise_layout
from .._util import binary_dtype, broadcast_error, check_device, grad_for, operand, promote, shape_of
from .conditional import where_op
from .floordiv import _floor_divide, _trunc_divide, RoundedQuotient
from .unary import _float


def _compute(fn, a, b, out_dtype):
    """fn(a, b) computed in ``out_dtype``, torch's promoted dtype (operands cast first, as torch does)."""
    first, second = a, b
    if type(b) is float and getattr(a, "dtype", None) is out_dtype and out_dtype.kind in "fV":
        # an array of the result's dtype and a Python float (the commonest call): promote() would cast nothing
        # (NumPy keeps a Python number weakly typed), so it is skipped
        try:
            out = fn(a, b)
        except ValueError:
            raise broadcast_error(shape_of(a), shape_of(b)) from None
        return out if out.dtype is out_dtype or out.dtype == out_dtype else out.astype(out_dtype)
    a, b = promote(a, b, out_dtype)
    try:
        out = fn(a, b)
    except ValueError:
        raise broadcast_error(shape_of(a), shape_of(b)) from None
    if out.dtype is not out_dtype and out.dtype != out_dtype:
        out = out.astype(out_dtype)
    return elementwise_layout(out, (first, second))  # torch's first operand decides, where NumPy's C order


_SCALARS = (int, float, bool)


def _check_bool_sub(a, b) -> None:
    """torch refuses ``-`` on bool tensors (a Python bool counts as one)."""
    ba = type(a) is bool or getattr(a, "dtype", None) == bool
    bb = type(b) is bool or getattr(b, "dtype", None) == bool
    if ba and bb:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    if ba or bb:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")


def _meta(ctx, a, b):
    """Remember the inputs' shapes and dtypes: backward sums broadcast gradients back to them."""
    ctx.a_meta = ((), None) if type(a) in _SCALARS else (a.shape, a.dtype)
    ctx.b_meta = ((), None) if type(b) in _SCALARS else (b.shape, b.dtype)


def _check_alpha(dtype, alpha) -> None:
    """torch's alpha_check: a float alpha cannot scale integers, a bool alpha only booleans."""
    if isinstance(alpha, bool) and dtype.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if dtype.kind in "biu" and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


class Add(Function):
    """out = a + alpha * b. Saves nothing."""

    node_name, array_forward, scalar_edges = "AddBackward0", True, True

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _meta(ctx, a, b)
        ctx.alpha = alpha
        dt = binary_dtype(a, b)
        if alpha != 1:
            _check_alpha(dt, alpha)
        return _compute(operator.add if alpha == 1 else (lambda x, y: x + y * alpha), a, b, dt)

    @staticmethod
    def backward(ctx, grad):
        ga = grad_for(grad, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = None
        if ctx.needs_input_grad[1]:
            gb = grad_for(grad * ctx.alpha if ctx.alpha != 1 else grad, *ctx.b_meta)
        return ga, gb, None

    @staticmethod
    def backward_arrays(ctx, g):
        ga = sum_to_array(g, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = sum_to_array(g * ctx.alpha if ctx.alpha != 1 else g, *ctx.b_meta) if ctx.needs_input_grad[1] else None
        return ga, gb, None


class Sub(Function):
    """out = a - alpha * b. Saves nothing."""

    node_name, array_forward, scalar_edges = "SubBackward0", True, True

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _meta(ctx, a, b)
        ctx.alpha = alpha
        dt = binary_dtype(a, b)
        if dt.kind == "b" or type(b) is bool or a.dtype.kind == "b" or getattr(b, "dtype", dt).kind == "b":
            _check_bool_sub(a, b)
        if alpha != 1:
            _check_alpha(dt, alpha)
        return _compute(operator.sub if alpha == 1 else (lambda x, y: x - y * alpha), a, b, dt)

    @staticmethod
    def backward(ctx, grad):
        ga = grad_for(grad, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = grad_for(-grad * ctx.alpha if ctx.alpha != 1 else -grad, *ctx.b_meta) \
            if ctx.needs_input_grad[1] else None
        return ga, gb, None

    @staticmethod
    def backward_arrays(ctx, g):
        ga = sum_to_array(g, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = sum_to_array(-g * ctx.alpha if ctx.alpha != 1 else -g, *ctx.b_meta) if ctx.needs_input_grad[1] else None
        return ga, gb, None


class RsubTensor(Function):
    """out = b - alpha * a for a tensor b (torch.rsub). Saves nothing. torch computes sub(b, a): b's layout
    decides the result's."""

    node_name, array_forward, scalar_edges = "RsubBackward0", True, True

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        out = Sub.forward(ctx, b, a, alpha)
        ctx.a_meta, ctx.b_meta = ctx.b_meta, ctx.a_meta  # Sub's metas are of (b, a)
        return out

    @staticmethod
    def backward(ctx, grad):
        ga = grad_for(-grad * ctx.alpha if ctx.alpha != 1 else -grad, *ctx.a_meta) \
            if ctx.needs_input_grad[0] else None
        gb = grad_for(grad, *ctx.b_meta) if ctx.needs_input_grad[1] else None
        return ga, gb, None


class Rsub(Function):
    """out = b - a for a scalar b (``2 - x``). Saves nothing."""

    node_name, array_forward, scalar_edges = "RsubBackward1", True, False

    @staticmethod
    def forward(ctx, a, b):
        ctx.a_meta = (a.shape, a.dtype)
        dt = binary_dtype(a, b)
        if dt.kind == "b" or type(b) is bool or a.dtype.kind == "b":
            _check_bool_sub(a, b)
        return _compute(lambda x, y: y - x, a, b, dt)

    @staticmethod
    def backward(ctx, grad):
        return grad_for(-grad, *ctx.a_meta), None


class Mul(Function):
    """out = a * b. Saves b if a needs grad, then a if b needs grad: torch MulBackward0's order (other_, self_),
    which it unpacks in, so that the in-place error names the tensor torch's names when both were changed."""

    node_name, array_forward, scalar_edges = "MulBackward0", True, True
    bfloat16_reads_scalar = (1,)  # torch's kernel reads a 0-d second operand's own value (opmath)

    @staticmethod
    def forward(ctx, a, b):
        _meta(ctx, a, b)
        need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        return _compute(operator.mul, a, b, binary_dtype(a, b))

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        # other's gradient first, as torch's MulBackward0 (the order of the nodes a create_graph makes)
        gb = grad_for(grad * a, *ctx.b_meta) if ctx.needs_input_grad[1] else None
        ga = grad_for(grad * b, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        return ga, gb

    @staticmethod
    def backward_arrays(ctx, g):
        b, a = ctx.saved_arrays  # grad * other, grad * self: the gradient's layout first, as torch's
        ga = sum_to_array(elementwise_layout(g * b, (g, b)), *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = sum_to_array(elementwise_layout(g * a, (g, a)), *ctx.b_meta) if ctx.needs_input_grad[1] else None
        return ga, gb


class Div(Function):
    """out = a / b (true division). Saves b, then a if b needs grad: torch DivBackward0's order (other_, self_), which
    it unpacks in (the in-place error names the first changed one); b unguarded, as torch's codegen saves a tensor
    both formulas read (a recorded node whose inputs have no edge saves it too)."""

    node_name, array_forward, scalar_edges = "DivBackward0", True, True
    bfloat16_reads_scalar = (1,)  # torch's kernel reads a 0-d second operand's own value (opmath)

    @staticmethod
    def forward(ctx, a, b):
        _meta(ctx, a, b)
        ctx.save_for_backward(b, a if ctx.needs_input_grad[1] else None)
        dt = binary_dtype(a, b)
        if dt.kind not in "fV":
            dt = dtypes.default_float.np
        return _compute(operator.truediv, a, b, dt)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        # torch's div_tensor_other_backward: -grad * ((a / b) / b), in that order (node names, rounding), and
        # before self's gradient, as torch's DivBackward0
        gb = grad_for(-grad * ((a / b) / b), *ctx.b_meta) if ctx.needs_input_grad[1] else None
        ga = grad_for(grad / b, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        return ga, gb

    @staticmethod
    def backward_arrays(ctx, g):
        b, a = ctx.saved_arrays  # the gradient's layout first, as torch's grad / other and -grad * (...)
        ga = sum_to_array(elementwise_layout(g / b, (g, b)), *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = sum_to_array(elementwise_layout(-g * ((a / b) / b), (g, a, b)), *ctx.b_meta) \
            if ctx.needs_input_grad[1] else None
        return ga, gb


class Neg(Function):
    """out = -a. Saves nothing."""

    node_name, array_forward = "NegBackward0", True

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                               "invert a mask, use the `~` or `logical_not()` operator instead.")
        return -a

    @staticmethod
    def backward(ctx, grad):
        return -grad

    @staticmethod
    def backward_arrays(ctx, g):
        return (-g,)


def _pow_scalar(x, p):
    """x ** p for a float array as torch's kernel: its exponents 0.5, -0.5, -1, -2, 2 and 3 are sqrt, 1 / sqrt,
    1 / x, 1 / (x * x), x * x and x * x * x (so (-0.0) ** -0.5 is -inf there, +inf by C's pow)."""
    if p == 2:
        return x * x
    if p == 3:
        return x * x * x
    if p not in (0.5, -0.5, -1, -2):
        return x ** p
    xp = backend.get_array_module(x)
    with backend.errstate(xp, divide="ignore", invalid="ignore"):  # x ** p is silent there too
        if p == 0.5:
            return xp.sqrt(x)
        if p == -0.5:
            return 1 / xp.sqrt(x)
        return 1 / x if p == -1 else 1 / (x * x)


class PowScalar(Function):
    """out = a ** p for a Python number p. Saves a."""

    node_name, array_forward = "PowBackward0", True

    @staticmethod
    def forward(ctx, a, p):
        ctx.save_for_backward(a)
        ctx.p = p
        dt = binary_dtype(a, p)
        if dt.kind in "iu" and p < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _compute(_pow_scalar if dt.kind in "fV" else (lambda x, y: x ** y), a, p, dt)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        p = ctx.p
        if p == 0:
            return grad * 0, None
        # torch's pow_backward: grad * (p * a^(p-1)), the scalar product its own MulBackward1 node
        return grad_for(grad * _scalar.MulScalar.apply(a ** (p - 1), p), a.shape, a._array.dtype), None


class PowTensor(Function):
    """out = a ** b for tensors. Saves b, a and out: torch PowBackward1's order (exponent_, self_, result), which it
    unpacks in (the in-place error names the first changed one)."""

    node_name, array_forward = "PowBackward1", True

    @staticmethod
    def forward(ctx, a, b):
        _meta(ctx, a, b)
        out = _compute(lambda x, y: x ** y, a, b, binary_dtype(a, b))
        ctx.save_for_backward(b, a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        b, a, out = ctx.saved_tensors
        # torch's pow_backward_self / pow_backward_exponent: 0 where b == 0 (a's) or where a == 0 <= b (b's),
        # so under create_graph a's gradient is a WhereBackward0 node and b's a MulBackward0
        zero = Tensor._make(backend.get_array_module(grad._array).zeros((), dtype=grad._array.dtype))
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = grad_for(where_op(b == 0, zero, grad * (b * a ** (b - 1))), *ctx.a_meta)
        if ctx.needs_input_grad[1]:  # (torch's self.to(promoted dtype) before its log: a 0-d float32 base of a
            # bfloat16 exponent is rounded to bfloat16 first)
            base = a if a.dtype == out.dtype else a.to(out.dtype)
            gb = grad_for(grad * where_op((a == 0).logical_and(b >= 0), zero, out * base.log()), *ctx.b_meta)
        return ga, gb


class RPow(Function):
    """out = s ** b for a Python number s. Saves b and out."""

    node_name, array_forward = "PowBackward2", True

    @staticmethod
    def forward(ctx, b, s):
        dt = binary_dtype(b, s)
        if dt.kind in "iu":  # torch: an integer to a negative power is 0 (1 and -1 keep their magnitude)
            xp = backend.get_array_module(b)
            neg = b < 0
            out = _compute(lambda x, y: y ** x, xp.where(neg, 0, b), s, dt)
            small = xp.asarray(1 if s == 1 else 0 if s != -1 else 1, dtype=dt)
            if s == -1:
                small = xp.where(b % 2 == 0, 1, -1).astype(dt)
            out = xp.where(neg, small, out)
        else:
            out = _compute(lambda x, y: y ** x, b, s, dt)
        ctx.save_for_backward(b, out)
        ctx.log_s = float(__import__("math").log(s)) if s > 0 else float("nan")
        return out

    @staticmethod
    def backward(ctx, grad):
        _, out = ctx.saved_tensors
        return grad * _scalar.MulScalar.apply(out, ctx.log_s), None  # torch's pow_backward_exponent: result * log(s)


class Reciprocal(Function):
    """out = 1 / a. Saves out."""

    node_name, array_forward = "ReciprocalBackward0", True

    @staticmethod
    def forward(ctx, a):
        with backend.errstate(backend.get_array_module(a), divide="ignore"):
            out = 1 / _float(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return -grad * (out * out)  # torch's grouping


def add(a, b, *, alpha=1):
    """a + alpha * b."""
    a, b = operand(a, "add", 1, "input"), operand(b, "add", 2)
    if not isinstance(a, Tensor):
        a, b = b, a
    check_device(a, b)
    return Add.apply(a, b, alpha) if alpha != 1 else Add.apply(a, b)


def sub(a, b, *, alpha=1):
    """a - alpha * b."""
    a, b = operand(a, "sub", 1, "input"), operand(b, "sub", 2)
    if not isinstance(a, Tensor):
        return Rsub.apply(b * alpha if alpha != 1 else b, a)
    check_device(a, b)
    return Sub.apply(a, b, alpha) if alpha != 1 else Sub.apply(a, b)


def mul(a, b):
    a, b = operand(a, "mul", 1, "input"), operand(b, "mul", 2)
    if not isinstance(a, Tensor):
        a, b = b, a
    check_device(a, b)
    return Mul.apply(a, b)


def div(a, b, *, rounding_mode=None):
    a, b = operand(a, "div", 1, "input"), operand(b, "div", 2)
    if rounding_mode is not None:
        if rounding_mode not in ("floor", "trunc"):
            raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                             f"'{rounding_mode}'")
        check_device(a, b)
        return RoundedQuotient.apply(a, b, _floor_divide if rounding_mode == "floor" else _trunc_divide)
    if not isinstance(a, Tensor):  # scalar / tensor: torch computes reciprocal(b) * a
        return Mul.apply(reciprocal(b), a)
    check_device(a, b)
    return Div.apply(a, b)


true_divide = divide = div


multiply = mul


subtract = sub


def neg(a):
    return Neg.apply(a)


negative = neg


def pow(a, b):
    if _amp.on and autocast_applies("pow", a, b):
        return autocast_run("pow", pow, a, b)
    a, b = operand(a, "pow", 1, "input"), operand(b, "pow", 2, "exponent")
    if not isinstance(a, Tensor):
        return RPow.apply(b, a)
    if isinstance(b, Tensor):
        check_device(a, b)
        return PowTensor.apply(a, b)
    return PowScalar.apply(a, b)


def reciprocal(a):
    if _amp.on and autocast_applies("reciprocal", a):
        return autocast_run("reciprocal", reciprocal, a)
    return Reciprocal.apply(a)


def rsub(input: Tensor, other, alpha=1) -> Tensor:
    """other - alpha * input."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return RsubTensor.apply(input, other, alpha)
    return -(input * alpha) + other if alpha != 1 else -input + other
