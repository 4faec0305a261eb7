"""In-place forms of the unary ops (exp_, relu_, ...): the op's math written into the input's array, the version counter bumped."""
from __future__ import annotations

from ...autograd.function import OriginalSelf
from ... import dtypes
from ...memory_layout import copy_preserving_layout
from .._util import check_inplace_cast
from .arithmetic import Reciprocal
from .unary import (Abs, Cos, Exp, _half_limits, LeakyRelu, Log, NanToNum, Relu, Rsqrt, Sigmoid, Sign, Sin, Sqrt,
                    Tanh)


def _inplace(base, name, save_input_copy=False, c_names=False):
    """Make ``base``'s in-place twin: compute out-of-place, then write the result into arg 0.

    c_names: torch names the integer type as C++ does in this op's cast error (clamp_: 'long int'; exp_: 'Long').
    """

    def forward(ctx, a, *args):
        out = base.forward(ctx, a, *args)
        if out.dtype != a.dtype:  # exp_ of an integer tensor, clamp_ with a float bound: torch refuses the cast
            check_inplace_cast(out.dtype, a.dtype, c_names=c_names)
        if save_input_copy:  # backward needs the old input: keep a copy, as torch's original_self
            ctx.save_for_backward(OriginalSelf(copy_preserving_layout(a)))  # torch's clone keeps the layout
            a[...] = out
        else:
            a[...] = out
            if ctx._to_save and ctx._to_save[0] is out:
                ctx.save_for_backward(a)  # the output now lives in a's array
        return a

    return type(name, (base,), {"node_name": base.node_name, "inplace": True,
                                "forward": staticmethod(forward), "__doc__": f"In-place {base.__doc__}"})


ExpInplace = _inplace(Exp, "ExpInplace")


SqrtInplace = _inplace(Sqrt, "SqrtInplace")


TanhInplace = _inplace(Tanh, "TanhInplace")


SigmoidInplace = _inplace(Sigmoid, "SigmoidInplace")


ReluInplace = _inplace(Relu, "ReluInplace")


AbsInplace = _inplace(Abs, "AbsInplace", save_input_copy=True)


LogInplace = _inplace(Log, "LogInplace", save_input_copy=True)


SinInplace = _inplace(Sin, "SinInplace", save_input_copy=True)


CosInplace = _inplace(Cos, "CosInplace", save_input_copy=True)


class LeakyReluInplace(LeakyRelu):
    """In-place leaky_relu_: saves its *output* (torch's LeakyReluBackward1), whose sign is the input's."""

    node_name, inplace = "LeakyReluBackward1", True

    @staticmethod
    def forward(ctx, a, slope=0.01):
        if slope < 0:
            raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is "
                               "not supported. This is caused by calling in-place forward function with a negative "
                               "slope, please call out-of-place version instead.")
        a[...] = LeakyRelu.forward(ctx, a, slope)
        ctx.save_for_backward(a)
        return a


def _method(name: str):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}(...)``: in place, returns ``input``."
    return fn


abs_, cos_, exp_, log_, neg_, relu_, sigmoid_, sin_, sqrt_, tanh_ = (
    _method(n) for n in ("abs_", "cos_", "exp_", "log_", "neg_", "relu_", "sigmoid_", "sin_", "sqrt_", "tanh_"))


detach_, fill_, zero_ = (_method(n) for n in ("detach_", "fill_", "zero_"))


negative_ = neg_


SignInplace = _inplace(Sign, "SignInplace")


ReciprocalInplace = _inplace(Reciprocal, "ReciprocalInplace")


RsqrtInplace = _inplace(Rsqrt, "RsqrtInplace")


def _inplace_float(base, name, save_input_copy=False):
    """_inplace for a function whose result is floating: an integer tensor can't hold it, with torch's message
    ('Long', not the C++ name _inplace's cast check uses for clamp_)."""
    cls = _inplace(base, name, save_input_copy)
    inner = cls.forward

    def forward(ctx, a, *args):
        if a.dtype.kind not in "fV":
            check_inplace_cast(dtypes.default_float.np, a.dtype)
        return inner(ctx, a, *args)

    cls.forward = staticmethod(forward)
    return cls


NanToNumInplace = _inplace(NanToNum, "NanToNumInplace", save_input_copy=True)


def nan_to_num_(input, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None):
    return NanToNumInplace.apply(input, nan, *_half_limits(input, posinf, neginf))
