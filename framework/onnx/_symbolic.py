"""The op-level mapping: each framework op (a Function subclass) -> the ONNX nodes that compute it.

A mapping takes the GraphBuilder and the recorded call (args as the op received them: Tensors, numbers,
tuples) and returns one value name per output (None for an output that cannot be used).
"""
from __future__ import annotations

import math

import numpy as np

from .. import backend
from ..ops.activation.gated import _Erf, _Gelu
from ..ops.activation import LogSoftmax, Softmax
from ..ops.activation import Celu, CeluInplace, Elu, EluInplace, Hardsigmoid, Hardswish, Hardtanh, Mish, Silu, Softplus
from ..ops.pointwise import Add, Div, Mul, Neg, PowScalar, PowTensor, RPow, Reciprocal, Rsub, Sub
from ..ops.pointwise import AddInplace, DivInplace, MulInplace, NegInplace, PowScalarInplace, SubInplace
from ..ops.normalization import NativeBatchNorm
from ..ops.pointwise import Maximum, Minimum
from ..ops.attention import ScaledDotProductFlashAttentionForCpu
from ..ops.linalg import Baddbmm, VectorNorm
from ..ops.pooling import AvgPool2d, MaxPool2d
from ..ops.conv import Conv2d, ConvTranspose2d
from ..ops.pooling import AdaptiveAvgPool2D
from ..ops.conv import Conv1d
from ..ops.normalization import GroupNorm, NativeLayerNorm
from ..ops.conv import ConvNd, ConvTransposeNd
from ..ops.conversion import Clone
from ..ops.reduction import Amax, Amin, MaxAll, MaxDim, MinAll, MinDim
from ..ops.linalg import Addmm, Bmm, Dot, Mm, Mv
from ..ops.pooling import AvgPool2dNd, AvgPoolNd, MaxPoolNd
from ..ops._separable import SeparableMap, _picks
from ..ops.reduction import Mean, MeanAll, Std, Sum, SumAll, Var
from ..ops.scalar_ops import AddScalar, DivScalar, MulScalar, SubScalar
from ..ops.pointwise import Abs, Clamp, Cos, Exp, LeakyRelu, Log, Relu, Rsqrt, Sigmoid, Sign, Sin, Sqrt, Tanh
from ..ops.pointwise import LeakyReluInplace, ReluInplace
from ..ops.pointwise import Erf
from ..ops.shape import Alias
from ..tensor import Tensor
from ._graph import UnsupportedOp

SYMBOLIC = {}  # Function subclass -> mapping


def maps(*classes):
    """Register the decorated function as the mapping of ``classes``."""
    def register(fn):
        for cls in classes:
            SYMBOLIC[cls] = fn
        return fn
    return register


def _shape(t: Tensor) -> tuple:
    return tuple(t._array.shape)


def _axis(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


# ---- elementwise arithmetic ------------------------------------------------------------------------

def _in_dtype(g, value, out: Tensor) -> str:
    """A tensor or a number as a value of ``out``'s dtype (ONNX's arithmetic takes one type; torch promotes an
    int tensor plus a float one, or an int divided by an int, to the result's)."""
    if not isinstance(value, Tensor):
        return g.name(value, out)
    name = g.name(value)
    if value._array.dtype != out._array.dtype:
        name = g.node("Cast", [name], to=g.helper.np_dtype_to_tensor_dtype(out._array.dtype))
    return name


def _binary(op_type):
    def mapping(g, call):
        a, b = call.args[:2]
        alpha = call.args[2] if len(call.args) > 2 else 1
        out = call.outputs[0]
        x, y = _in_dtype(g, a, out), _in_dtype(g, b, out)
        if alpha != 1:
            y = g.node("Mul", [y, g.name(alpha, out)])
        return [g.node(op_type, [x, y])]
    return mapping


# an in-place op (x += y) maps as its out-of-place form: its output, the same tensor, is bound to the new value
maps(Add, AddScalar, AddInplace)(_binary("Add"))
maps(Sub, SubScalar, SubInplace)(_binary("Sub"))
maps(Mul, MulScalar, MulInplace)(_binary("Mul"))
maps(Div, DivScalar, DivInplace)(_binary("Div"))
maps(PowScalar, PowTensor, PowScalarInplace)(_binary("Pow"))
maps(Maximum)(_binary("Max"))
maps(Minimum)(_binary("Min"))


@maps(Rsub)
def _rsub(g, call):
    a, b = call.args[:2]
    out = call.outputs[0]
    return [g.node("Sub", [_in_dtype(g, b, out), _in_dtype(g, a, out)])]


@maps(RPow)
def _rpow(g, call):
    b, s = call.args  # s ** b
    out = call.outputs[0]
    return [g.node("Pow", [_in_dtype(g, s, out), _in_dtype(g, b, out)])]


def _unary(op_type, **attrs):
    def mapping(g, call):
        return [g.node(op_type, [g.name(call.args[0])], **attrs)]
    return mapping


for _cls, _op in [(Neg, "Neg"), (NegInplace, "Neg"), (Reciprocal, "Reciprocal"), (Abs, "Abs"),
                  (Log, "Log"), (Sqrt, "Sqrt"), (Exp, "Exp"), (Tanh, "Tanh"),
                  (Sigmoid, "Sigmoid"), (Relu, "Relu"), (ReluInplace, "Relu"),
                  (Sin, "Sin"), (Cos, "Cos"), (Erf, "Erf"), (_Erf, "Erf"),
                  (Sign, "Sign"), (Hardswish, "HardSwish"), (Alias, "Identity"),
                  (Clone, "Identity")]:
    maps(_cls)(_unary(_op))


@maps(Rsqrt)
def _rsqrt(g, call):
    return [g.node("Reciprocal", [g.node("Sqrt", [g.name(call.args[0])])])]


# ---- activations -----------------------------------------------------------------------------------

@maps(LeakyRelu, LeakyReluInplace)
def _leaky_relu(g, call):
    slope = call.args[1] if len(call.args) > 1 else 0.01
    return [g.node("LeakyRelu", [g.name(call.args[0])], alpha=float(slope))]


@maps(Silu)
def _silu(g, call):
    x = g.name(call.args[0])
    return [g.node("Mul", [x, g.node("Sigmoid", [x])])]


@maps(Mish)
def _mish(g, call):
    x = g.name(call.args[0])
    return [g.node("Mul", [x, g.node("Tanh", [g.node("Softplus", [x])])])]


@maps(Hardsigmoid)
def _hardsigmoid(g, call):
    return [g.node("HardSigmoid", [g.name(call.args[0])], alpha=1 / 6, beta=0.5)]


@maps(_Gelu)
def _gelu(g, call):
    x0, approximate = call.args
    x = g.name(x0)
    if g.opset >= 20:
        return [g.node("Gelu", [x], approximate=approximate)]
    half, one = g.name(0.5, x0), g.name(1.0, x0)
    if approximate == "tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = g.node("Mul", [g.node("Pow", [x, g.name(3.0, x0)]), g.name(0.044715, x0)])
        inner = g.node("Mul", [g.node("Add", [x, cube]), g.name(math.sqrt(2 / math.pi), x0)])
        gate = g.node("Tanh", [inner])
    else:  # 0.5 x (1 + erf(x / sqrt 2))
        gate = g.node("Erf", [g.node("Div", [x, g.name(math.sqrt(2.0), x0)])])
    return [g.node("Mul", [g.node("Mul", [x, half]), g.node("Add", [gate, one])])]


@maps(Clamp)
def _clamp(g, call):
    x0, lo, hi = (list(call.args) + [None, None])[:3]
    inputs = [g.name(x0), "" if lo is None else g.name(lo, x0), "" if hi is None else g.name(hi, x0)]
    while inputs[-1] == "":
        inputs.pop()
    return [g.node("Clip", inputs)]


@maps(Hardtanh)
def _hardtanh(g, call):
    x0, lo, hi = call.args
    return [g.node("Clip", [g.name(x0), g.name(lo, x0), g.name(hi, x0)])]


@maps(Elu, EluInplace, Celu, CeluInplace)  # (celu: elu with input_scale 1 / alpha)
def _elu(g, call):
    x0, alpha = call.args[:2]
    scale, input_scale = (list(call.args[2:]) + [1.0, 1.0])[:2]
    x = g.name(x0)
    if input_scale != 1:  # CELU: x above 0, alpha * (exp(x * input_scale) - 1) below
        scaled = g.node("Mul", [x, g.name(float(input_scale), x0)])
        neg = g.node("Mul", [g.node("Elu", [scaled], alpha=1.0), g.name(float(alpha), x0)])
        out = g.node("Where", [g.node("Greater", [x, g.name(0.0, x0)]), x, neg])
        return [out if scale == 1 else g.node("Mul", [out, g.name(float(scale), x0)])]
    if scale != 1:
        return [g.node("Selu", [x], alpha=float(alpha), gamma=float(scale))]
    return [g.node("Elu", [x], alpha=float(alpha))]


@maps(Softplus)
def _softplus(g, call):
    x0, beta, threshold = call.args
    x = g.name(x0)
    bx = g.node("Mul", [x, g.name(float(beta), x0)])
    soft = g.node("Div", [g.node("Softplus", [bx]), g.name(float(beta), x0)])
    return [g.node("Where", [g.node("Greater", [bx, g.name(float(threshold), x0)]), x, soft])]


@maps(Softmax)
def _softmax(g, call):
    x0, dim = call.args
    dims = dim if isinstance(dim, tuple) else (dim,)
    return [g.node("Softmax", [g.name(x0)], axis=int(dims[0]))]


@maps(LogSoftmax)
def _log_softmax(g, call):
    x0, dim = call.args
    dims = dim if isinstance(dim, tuple) else (dim,)
    return [g.node("LogSoftmax", [g.name(x0)], axis=int(dims[0]))]


# ---- matrix products -------------------------------------------------------------------------------

@maps(Addmm)
def _addmm(g, call):
    bias, m1, m2 = call.args
    return [g.node("Gemm", [g.name(m1), g.name(m2), g.name(bias)])]


@maps(Mm, Bmm, Mv, Dot)
def _matmul(g, call):
    a, b = call.args
    return [g.node("MatMul", [g.name(a), g.name(b)])]


@maps(Baddbmm)
def _baddbmm(g, call):
    inp, b1, b2, beta, alpha = call.args
    prod = g.node("MatMul", [g.name(b1), g.name(b2)])
    if alpha != 1:
        prod = g.node("Mul", [prod, g.name(float(alpha), b1)])
    if beta == 0:
        return [prod]
    base = g.name(inp, b1)
    if beta != 1:
        base = g.node("Mul", [base, g.name(float(beta), b1)])
    return [g.node("Add", [base, prod])]


@maps(ScaledDotProductFlashAttentionForCpu)
def _flash_attention(g, call):
    """softmax(scale q k^T + causal and given masks) v: MatMul, Mul, Add, Softmax, MatMul."""
    q, k, v, mask, (is_causal, scale) = call.args
    scores = g.node("Mul", [g.node("MatMul", [g.name(q), g.node("Transpose", [g.name(k)], perm=[0, 1, 3, 2])]),
                            g.name(float(scale), q)])
    if is_causal:
        L, S = _shape(q)[2], _shape(k)[2]
        scores = g.node("Add", [scores, g.constant(np.triu(np.full((L, S), -np.inf, q._array.dtype), 1))])
    if mask is not None:
        if mask._array.dtype == np.bool_:
            bias = g.node("Where", [g.name(mask), g.name(0.0, q), g.name(float("-inf"), q)])
        else:
            bias = g.name(mask, q)
        scores = g.node("Add", [scores, bias])
    return [g.node("MatMul", [g.node("Softmax", [scores], axis=-1), g.name(v)])]


# ---- convolution and pooling -----------------------------------------------------------------------

def _conv(g, x0, w0, b0, stride, padding, dilation, groups):
    if isinstance(padding, str):
        raise UnsupportedOp(f"padding={padding!r} reached the op unresolved")
    n = w0._array.ndim - 2
    stride, padding, dilation = (tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
                                 for v in (stride, padding, dilation))
    inputs = [g.name(x0), g.name(w0)] + ([g.name(b0)] if b0 is not None else [])
    return g.node("Conv", inputs, strides=list(stride), pads=list(padding) * 2, dilations=list(dilation),
                  group=int(groups), kernel_shape=list(_shape(w0)[2:]))


@maps(Conv2d, Conv1d)
def _conv2d(g, call):
    x0, w0, b0, stride, padding, dilation = call.args
    groups = _shape(x0)[1] // _shape(w0)[1]
    return [_conv(g, x0, w0, b0, stride, padding, dilation, groups)]


@maps(ConvNd)
def _conv_nd(g, call):
    x0, w0, b0, stride, padding, dilation = call.args[:6]
    groups = call.args[6] if len(call.args) > 6 else 1
    return [_conv(g, x0, w0, b0, stride, padding, dilation, groups)]


def _conv_transpose(g, x0, w0, b0, stride, padding, output_padding, dilation, groups):
    inputs = [g.name(x0), g.name(w0)] + ([g.name(b0)] if b0 is not None else [])
    return g.node("ConvTranspose", inputs, strides=list(stride), pads=list(padding) * 2,
                  output_padding=list(output_padding), dilations=list(dilation), group=int(groups),
                  kernel_shape=list(_shape(w0)[2:]))


@maps(ConvTranspose2d)
def _conv_transpose2d(g, call):
    return [_conv_transpose(g, *call.args, 1)]


@maps(ConvTransposeNd)
def _conv_transpose_nd(g, call):
    args = list(call.args) + ([1] if len(call.args) == 7 else [])
    return [_conv_transpose(g, *args[:8])]


def _ceil_mode(in_spatial, kernel, stride, padding, dilation, out_spatial) -> int:
    """1 when the output is larger than floor division gives (the op ran with ceil_mode=True)."""
    floor = [(i + 2 * p - d * (k - 1) - 1) // s + 1
             for i, k, s, p, d in zip(in_spatial, kernel, stride, padding, dilation)]
    return int(list(out_spatial) != floor)


@maps(MaxPool2d)
def _max_pool2d(g, call):
    x0, kernel, stride, padding = call.args
    return [g.node("MaxPool", [g.name(x0)], kernel_shape=list(kernel), strides=list(stride),
                   pads=list(padding) * 2)]


@maps(MaxPoolNd)
def _max_pool_nd(g, call):
    x0, kernel, stride, padding, dilation, outs = call.args
    n = len(kernel)
    values = g.node("MaxPool", [g.name(x0)], kernel_shape=list(kernel), strides=list(stride),
                    pads=list(padding) * 2, dilations=list(dilation),
                    ceil_mode=_ceil_mode(_shape(x0)[-n:], kernel, stride, padding, dilation, outs))
    indices = g.fresh("indices")
    g.unusable[indices] = "max pooling's indices (return_indices=True) have no ONNX mapping"
    return [values, indices]


@maps(AvgPool2d)
def _avg_pool2d(g, call):
    x0, kernel, stride, padding = call.args
    return [g.node("AveragePool", [g.name(x0)], kernel_shape=list(kernel), strides=list(stride),
                   pads=list(padding) * 2, count_include_pad=1)]


@maps(AvgPoolNd, AvgPool2dNd)
def _avg_pool_nd(g, call):
    """torch's divisors (count_include_pad=False, ceil_mode, divisor_override) exactly: the input zero-padded so
    that every window lies inside it, each window's sum, divided by the op's own table of divisors."""
    x0, kernel, stride, padding, outs, divisor = call.args
    n, rank = len(kernel), x0._array.ndim
    spatial = _shape(x0)[-n:]
    hi = [max((o - 1) * s + k - (p + i), 0) for i, k, s, p, o in zip(spatial, kernel, stride, padding, outs)]
    x = g.name(x0)
    if any(padding) or any(hi):
        x = g.node("Pad", [x, g.ints([0] * (rank - n) + list(padding) + [0] * (rank - n) + hi)])
    mean = g.node("AveragePool", [x], kernel_shape=list(kernel), strides=list(stride))
    dtype = x0._array.dtype
    table = np.asarray(divisor, dtype=np.float64) / float(np.prod(kernel))  # sum / divisor = mean / (divisor/k)
    return [g.node("Div", [mean, g.constant(table.astype(dtype))])]


@maps(AdaptiveAvgPool2D)
def _adaptive_avg_pool2d(g, call):
    x0, out = call.args[0], call.outputs[0]
    ins, outs = _shape(x0)[-2:], _shape(out)[-2:]
    if outs == (1, 1):
        return [g.node("GlobalAveragePool", [g.name(x0)])]
    if any(i % o for i, o in zip(ins, outs)):  # bins of different sizes: the op's own averaging matrices
        return _separable_map(g, call)
    kernel = [i // o for i, o in zip(ins, outs)]
    return [g.node("AveragePool", [g.name(x0)], kernel_shape=kernel, strides=kernel)]


def _separable_map(g, call):
    """A SeparableMap (interpolation, adaptive pooling, reflection/replication padding): the op's own matrix
    along each of the last dims, as a Gather where the matrix picks one element per row (nearest, padding: exact
    where a product would give 0 * inf), else a MatMul."""
    x0, mats = call.args[:2]
    x, rank, dtype = g.name(x0), x0._array.ndim, x0._array.dtype
    for i, m in enumerate(mats):
        axis = rank - len(mats) + i
        m = backend.to_numpy(m)
        picks = _picks(m)
        if picks is not None:
            x = g.node("Gather", [x, g.ints(picks)], axis=axis)
            continue
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        moved = x if axis == rank - 1 else g.node("Transpose", [x], perm=perm)
        x = g.node("MatMul", [moved, g.constant(np.asarray(m, dtype=dtype).T)])
        if axis != rank - 1:
            x = g.node("Transpose", [x], perm=perm)
    return [x]


FAMILIES = [(SeparableMap, _separable_map)]  # base class -> the mapping of every subclass without its own


def mapping_of(cls):
    """The mapping of an op class: its own, else its family's (subclasses made on first use: Upsample...)."""
    own = SYMBOLIC.get(cls)
    if own is not None or not isinstance(cls, type):
        return own
    return next((fn for base, fn in FAMILIES if issubclass(cls, base)), None)


# ---- normalization ---------------------------------------------------------------------------------

@maps(NativeBatchNorm)
def _batch_norm(g, call):
    x0, weight, bias, conf = call.args[:4]
    running_mean, running_var = (list(call.args[4:]) + [None, None])[:2]
    training, _, eps = conf
    c = _shape(x0)[1]
    dtype = x0._array.dtype
    scale = g.name(weight) if weight is not None else g.constant(np.ones(c, dtype))
    shift = g.name(bias) if bias is not None else g.constant(np.zeros(c, dtype))
    if training or running_mean is None:  # statistics of this batch (no running stats, or training mode)
        axes = [0] + list(range(2, x0._array.ndim))
        x = g.name(x0)
        mean = g.reduce("ReduceMean", x, axes, True)
        centred = g.node("Sub", [x, mean])
        var = g.reduce("ReduceMean", g.node("Mul", [centred, centred]), axes, True)
        normed = g.node("Div", [centred, g.node("Sqrt", [g.node("Add", [var, g.name(float(eps), x0)])])])
        shape = [1, c] + [1] * (x0._array.ndim - 2)
        return [g.node("Add", [g.node("Mul", [normed, g.node("Reshape", [scale, g.ints(shape)])]),
                               g.node("Reshape", [shift, g.ints(shape)])]), None, None]
    y = g.node("BatchNormalization", [g.name(x0), scale, shift, g.name(running_mean), g.name(running_var)],
               epsilon=float(eps))
    return [y, None, None]


@maps(NativeLayerNorm)
def _layer_norm(g, call):
    x0, weight, bias, (ndims, eps) = call.args
    x = g.name(x0)
    normalized = _shape(x0)[x0._array.ndim - ndims:]
    scale = g.name(weight) if weight is not None else g.constant(np.ones(normalized, x0._array.dtype))
    inputs = [x, scale] + ([g.name(bias)] if bias is not None else [])
    return [g.node("LayerNormalization", inputs, axis=-int(ndims), epsilon=float(eps))]


@maps(GroupNorm)
def _group_norm(g, call):
    x0, weight, bias, groups, eps = call.args
    x, rank, c = g.name(x0), x0._array.ndim, _shape(x0)[1]
    grouped = g.node("Reshape", [x, g.ints([0, int(groups), -1])])
    mean = g.reduce("ReduceMean", grouped, [2], True)
    centred = g.node("Sub", [grouped, mean])
    var = g.reduce("ReduceMean", g.node("Mul", [centred, centred]), [2], True)
    normed = g.node("Div", [centred, g.node("Sqrt", [g.node("Add", [var, g.name(float(eps), x0)])])])
    y = g.node("Reshape", [normed, g.shape(x)])
    per_channel = g.ints([c] + [1] * (rank - 2))
    if weight is not None:
        y = g.node("Mul", [y, g.node("Reshape", [g.name(weight), per_channel])])
    if bias is not None:
        y = g.node("Add", [y, g.node("Reshape", [g.name(bias), per_channel])])
    return [y]


# ---- reductions ------------------------------------------------------------------------------------

def _dims(dim, rank):
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return [_axis(int(d), rank) for d in dims]


@maps(SumAll)
def _sum_all(g, call):
    return [g.reduce("ReduceSum", g.name(call.args[0]), None, False)]


@maps(MeanAll)
def _mean_all(g, call):
    return [g.reduce("ReduceMean", g.name(call.args[0]), None, False)]


@maps(Sum)
def _sum(g, call):
    x0, dim = call.args[:2]
    keep = call.args[2] if len(call.args) > 2 else False
    return [g.reduce("ReduceSum", g.name(x0), _dims(dim, x0._array.ndim), keep)]


@maps(Mean)
def _mean(g, call):
    x0, dim = call.args[:2]
    keep = call.args[2] if len(call.args) > 2 else False
    return [g.reduce("ReduceMean", g.name(x0), _dims(dim, x0._array.ndim), keep)]


@maps(Amax, Amin)
def _amax(g, call):
    x0, dim, keep = (list(call.args) + [(), False][len(call.args) - 1:])[:3]
    rank = x0._array.ndim
    axes = _dims(dim, rank) if dim not in ((), None) else None
    return [g.reduce("ReduceMax" if call.op is Amax else "ReduceMin", g.name(x0), axes, keep)]


@maps(MaxAll, MinAll)
def _max_all(g, call):
    return [g.reduce("ReduceMax" if call.op is MaxAll else "ReduceMin", g.name(call.args[0]), None, False)]


@maps(MaxDim, MinDim)
def _max_dim(g, call):
    x0, dim = call.args[:2]
    keep = call.args[2] if len(call.args) > 2 else False
    if x0._array.ndim == 0:
        raise UnsupportedOp("max/min of a 0-d tensor along a dim has no mapping")
    x, axis, top = g.name(x0), _axis(dim, x0._array.ndim), call.op is MaxDim
    values = g.reduce("ReduceMax" if top else "ReduceMin", x, [axis], keep)
    # torch gives the first index of the extreme value, as ONNX's select_last_index=0
    indices = g.node("ArgMax" if top else "ArgMin", [x], axis=axis, keepdims=int(keep))
    return [values, indices]


@maps(Std)
def _std(g, call):
    return [g.node("Sqrt", _var(g, call))]


@maps(VectorNorm)
def _vector_norm(g, call):
    x0, p, dims, keep = call.args
    rank = x0._array.ndim
    axes = None if dims in (None, ()) else _dims(dims, rank)
    x = g.name(x0)
    if p == 2:
        return [g.reduce("ReduceL2", x, axes, keep)]
    if p == 1:
        return [g.reduce("ReduceL1", x, axes, keep)]
    if p in (math.inf, -math.inf):
        return [g.reduce("ReduceMax" if p > 0 else "ReduceMin", g.node("Abs", [x]), axes, keep)]
    if p == 0:
        nonzero = g.node("Cast", [g.node("Not", [g.node("Equal", [x, g.name(0.0, x0)])])],
                         to=g.helper.np_dtype_to_tensor_dtype(x0._array.dtype))
        return [g.reduce("ReduceSum", nonzero, axes, keep)]
    powered = g.node("Pow", [g.node("Abs", [x]), g.name(float(p), x0)])
    return [g.node("Pow", [g.reduce("ReduceSum", powered, axes, keep), g.name(1.0 / p, x0)])]


@maps(Var)
def _var(g, call):
    x0, dim, correction, keep = (list(call.args) + [None, 1, False][len(call.args) - 1:])[:4]
    rank = x0._array.ndim
    axes = list(range(rank)) if dim is None else _dims(dim, rank)
    count = int(np.prod([_shape(x0)[a] for a in axes]))
    x = g.name(x0)
    centred = g.node("Sub", [x, g.reduce("ReduceMean", x, axes, True)])
    var = g.reduce("ReduceMean", g.node("Mul", [centred, centred]), axes, keep)
    if correction:
        var = g.node("Mul", [var, g.name(count / max(count - correction, 0), x0)])
    return [var]
