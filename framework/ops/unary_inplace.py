"""In-place twins of the elementwise ops (exp_, relu_, clamp_, ...): torch's node names and saves.

They save their output where the out-of-place op does, and a copy of the old input where backward needs it.
"""
from __future__ import annotations

from ..autograd.function import OriginalSelf
from ._util import check_inplace_cast
from .unary import Abs, Clamp, Cos, Exp, LeakyRelu, Log, Relu, Sigmoid, Sin, Sqrt, Tanh


def _inplace(base, name, save_input_copy=False, c_names=False):
    """Make ``base``'s in-place twin: compute out-of-place, then write the result into arg 0.

    c_names: torch names the integer type as C++ does in this op's cast error (clamp_: 'long int'; exp_: 'Long').
    """

    def forward(ctx, a, *args):
        out = base.forward(ctx, a, *args)
        if out.dtype != a.dtype:  # exp_ of an integer tensor, clamp_ with a float bound: torch refuses the cast
            check_inplace_cast(out.dtype, a.dtype, c_names=c_names)
        if save_input_copy:  # backward needs the old input: keep a copy, as torch's original_self
            ctx.save_for_backward(OriginalSelf(a.copy()))
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


ClampInplace = _inplace(Clamp, "ClampInplace", save_input_copy=True, c_names=True)


# ---- functional API: torch's top-level in-place forms (torch.relu_(x) is x.relu_()) ---------------------

def _method(name: str):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}(...)``: in place, returns ``input``."
    return fn


abs_, clamp_, clip_, cos_, exp_, log_, neg_, relu_, sigmoid_, sin_, sqrt_, tanh_ = (
    _method(n) for n in ("abs_", "clamp_", "clip_", "cos_", "exp_", "log_", "neg_", "relu_", "sigmoid_", "sin_",
                         "sqrt_", "tanh_"))
detach_, fill_, zero_ = (_method(n) for n in ("detach_", "fill_", "zero_"))
negative_ = neg_
