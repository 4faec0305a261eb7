"""Matrix products: mm, mv, dot, bmm, matmul (with torch's folding of batch dims), addmm and linear."""
from __future__ import annotations

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.broadcast import sum_to, sum_to_array
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ... import backend, dtypes
from ...tensor import Tensor
from .._util import broadcast_error, c_type_name, check_device, scalar_type_name
from ..scalar_ops import maybe_multiply
from ..shape import ReshapeCopy
from .._twin import inplace_twin


def _scalar_name(a) -> str:
    """torch's ScalarType name of an array's dtype: Float, Double, Long..."""
    return dtypes.from_numpy_dtype(a.dtype).legacy.replace("Tensor", "")


def _check_dtypes(a, b, kernel: str = "mm"):
    """Both operands must share a dtype; torch's message depends on the kernel that finds the mismatch."""
    if a.dtype == b.dtype:
        return
    if kernel == "bmm":
        raise RuntimeError(f"expected scalar type {_scalar_name(a)} but found {_scalar_name(b)}")
    if kernel == "mv":
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_scalar_name(b)}, "
                           f"{_scalar_name(a)}, and {_scalar_name(b)}")
    if kernel == "dot":
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_scalar_name(a)} and "
                           f"{_scalar_name(b)}")
    names = [c_type_name(x.dtype) for x in (a, b)]
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {names[0]} != {names[1]}")


def _mm(a, b):
    """a @ b for 2-D arrays; an inner size of 1 (an outer product) as a broadcast multiply: each element is the
    same single product, and numpy's matmul takes ~4x as long for it (the GAN's last-layer backward)."""
    if not (a.size and b.size):  # an empty product: torch's mm allocates it contiguous (views of it step so)
        return backend.empty_as_torch(backend.matmul(a, b))
    if a.shape[1] == 1:
        return a * b
    if a.shape[0] <= 32 and b.shape[1] >= 128 and _is_transposed(b) and not backend._on_gpu(a):
        # a few rows times a weight.t() (a recurrent step's h @ w_hh.t()): OpenBLAS runs the transposed problem,
        # weight @ a.T with many rows, ~1.5x faster; the (small) result is then laid out C-contiguous again
        return backend.get_array_module(a).ascontiguousarray(backend.matmul(b.T, a.T).T)
    return backend.matmul(a, b)


def _is_transposed(b) -> bool:
    """A 2-D array that is the transpose of a C-contiguous one (F-ordered, not also C-ordered)."""
    flags = b.flags
    return flags.f_contiguous and not flags.c_contiguous


def _save_crossed(ctx, a, b):
    need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    ctx.save_for_backward(a if need_b else None, b if need_a else None)


def _save_crossed_other_first(ctx, a, b):
    """b (if a needs grad), then a (if b needs grad): torch's MmBackward0/BmmBackward0 declare mat2 first and unpack
    in that order, so the in-place error names mat2 when both were changed."""
    need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    ctx.save_for_backward(b if need_a else None, a if need_b else None)


def _column_major(m) -> bool:
    """torch's test in mm_mat1_backward / mm_mat2_backward: strides (1, rows), a transposed C-contiguous matrix
    (weight.t()); its gradient is then computed transposed, so after TBackward0 the weight's is C-contiguous."""
    s0, s1 = m.strides if m.size else backend.torch_strides(m)
    step = m.itemsize if m.size else 1
    return s0 == step and s1 == m.shape[0] * step


def _save_layouts(ctx, m1, m2, i1: int, i2: int) -> None:
    """Remember which operands needing a gradient were column-major (torch saves their strides)."""
    need = ctx.needs_input_grad
    ctx.cols = (need[i1] and _column_major(m1), need[i2] and _column_major(m2))


def _mat1_grad(g, m2, cols: bool):
    """torch's mm_mat1_backward: g @ m2.T, or (m2 @ g.T).T when mat1 was column-major (arrays or tensors)."""
    if isinstance(g, Tensor):
        return m2.mm(g.t()).t() if cols else g.mm(m2.t())
    return _mm(m2, g.T).T if cols else _mm(g, m2.T)


def _mat2_grad(g, m1, cols: bool):
    """torch's mm_mat2_backward: m1.T @ g, or (g.T @ m1).T when mat2 was column-major (arrays or tensors)."""
    if isinstance(g, Tensor):
        return g.t().mm(m1).t() if cols else m1.t().mm(g)
    return _mm(g.T, m1).T if cols else _mm(m1.T, g)


class Mm(Function):
    """out = a @ b for 2-D a, b. Saves b if a needs grad, then a if b needs grad (torch's order)."""

    node_name, array_forward = "MmBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                               f"{b.shape[0]}x{b.shape[1]})")
        _check_dtypes(a, b)
        _save_crossed_other_first(ctx, a, b)
        _save_layouts(ctx, a, b, 0, 1)
        return backend.matmul(a, b)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        # torch's MmBackward0 builds mat2's gradient first (the order of the nodes a create_graph makes)
        gb = _mat2_grad(grad, a, ctx.cols[1]) if ctx.needs_input_grad[1] else None
        ga = _mat1_grad(grad, b, ctx.cols[0]) if ctx.needs_input_grad[0] else None
        return ga, gb

    @staticmethod
    def backward_arrays(ctx, g):
        b, a = ctx.saved_arrays
        # a single row (vector @ matrix): b's gradient is an outer product, each element one product as torch's
        # (-0.0 stays -0.0; BLAS adds it to a +0.0)
        return (_mat1_grad(g, b, ctx.cols[0]) if ctx.needs_input_grad[0] else None,
                _mat2_grad(g, a, ctx.cols[1]) if ctx.needs_input_grad[1] else None)


class Mv(Function):
    """out = a @ v for 2-D a and 1-D v. Saves a if v needs grad, v if a needs grad."""

    node_name, array_forward = "MvBackward0", True

    @staticmethod
    def forward(ctx, a, v):
        if a.shape[1] != v.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                               f"vec ({v.shape[0]})")
        _check_dtypes(a, v, "mv")
        _save_crossed(ctx, a, v)
        return backend.matmul(a, v)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        ga = grad.unsqueeze(1) * v.unsqueeze(0) if ctx.needs_input_grad[0] else None
        gv = a.t().matmul(grad) if ctx.needs_input_grad[1] else None
        return ga, gv


class Dot(Function):
    """out = sum(a * b) for 1-D a, b. Saves a if b needs grad, b if a needs grad."""

    node_name, array_forward = "DotBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        _check_dtypes(a, b, "dot")  # torch checks the dtypes before the sizes
        if a.shape[0] != b.shape[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
                               f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
                               "respectively")
        _save_crossed(ctx, a, b)
        return backend.matmul(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


class Bmm(Function):
    """out[i] = a[i] @ b[i] for 3-D a, b. Saves b if a needs grad, then a if b needs grad (torch's order)."""

    node_name, array_forward = "BmmBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim != 3 or b.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
        if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
        _save_crossed_other_first(ctx, a, b)
        if not a.shape[2] or not (a.shape[0] and a.shape[1] and b.shape[2]):
            # torch's bmm returns an empty result, or zeros for an empty inner dim, before its kernel checks the
            # dtypes: the result has batch2's dtype, whatever batch1's
            return backend.get_array_module(b).zeros((a.shape[0], a.shape[1], b.shape[2]), dtype=b.dtype)
        _check_dtypes(a, b, "bmm")
        return backend.matmul(a, b)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        ga = grad.bmm(b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
        gb = a.transpose(1, 2).bmm(grad) if ctx.needs_input_grad[1] else None
        return ga, gb


class _SqueezeInplace(Function):
    """out = a (1, n) product squeezed to (n,): torch.matmul's squeeze_(0) of its own private result, so not a
    view, and the result's _version is 1. Saves nothing."""

    node_name, array_forward = "SqueezeBackward4", True

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return a.reshape(a.shape[1:])

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape)


def _unsafe_view(a, shape):
    return ReshapeCopy.apply(a, tuple(shape))


def _should_fold(a, b) -> bool:
    """ATen's should_fold: fold the larger (>= 3-D) operand into one mm/mv when the small one requires grad,
    or when the fold is a free view; otherwise the broadcast bmm path runs (a 2-D @ 3-D never folds then)."""
    t1 = a if a.ndim >= b.ndim else b.transpose(-1, -2)
    if (b if a.ndim >= b.ndim else a).requires_grad:
        return True
    if a.ndim == 2:  # folding would need a transposed, copied result
        return False
    if t1.numel() == 0:
        return True
    arr = t1._array
    strides = [st // arr.itemsize for st in arr.strides]
    return all(strides[i] == strides[i + 1] * arr.shape[i + 1] for i in range(arr.ndim - 2))


def _fold(a, b):
    """N-D @ 1-D/2-D (or the mirror): fold the batch dims into the rows of one mm/mv, as ATen's matmul."""
    transpose = b.ndim > a.ndim
    t1 = b.transpose(-1, -2) if transpose else a
    t2 = (a.t() if a.ndim == 2 else a) if transpose else b
    out_shape = tuple(t1.shape[:-1])
    folded = t1.reshape(int(np.prod(out_shape)), t1.shape[-1])
    if t2.ndim == 2:
        out = _unsafe_view(Mm.apply(folded, t2), out_shape + (t2.shape[1],))
        return out.transpose(-1, -2).contiguous() if transpose else out
    return _unsafe_view(Mv.apply(folded, t2), out_shape)


def _batched(a, b):
    """N-D @ N-D (one side >= 3-D, unless folded): broadcast the batch dims, flatten them, one bmm, as ATen's
    matmul; a 1-D operand is a row (first) or a column (second) whose dim the result drops."""
    n, m1 = (a.shape[-2] if a.ndim > 1 else 1), a.shape[-1]
    m2, p = (b.shape[-2] if b.ndim > 1 else b.shape[0]), (b.shape[-1] if b.ndim > 1 else 1)
    try:
        batch = tuple(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
    except ValueError:
        raise broadcast_error(a.shape[:-2], b.shape[:-2]) from None
    count = int(np.prod(batch))
    a3 = a.expand(*batch, n, m1).reshape(count, n, m1)
    b3 = (b if b.ndim > 1 else b.unsqueeze(-1)).expand(*batch, m2, p).reshape(count, m2, p)
    out = Bmm.apply(a3, b3)
    if b.ndim == 1:
        out = out.squeeze(-1)
    return _unsafe_view(out, batch + ((n,) if a.ndim > 1 else ()) + ((p,) if b.ndim > 1 else ()))


def _squeeze_single_batch(a, b):
    """3-D @ 3-D where one side's batch is 1 (the other's not) and that side requires grad: ATen squeezes it to
    a matrix (SqueezeBackward1), so the product folds into one mm and its gradient is not summed over an expand."""
    if a.shape[0] == 1 and b.shape[0] != 1 and a.requires_grad:
        return a.squeeze(0), b
    if b.shape[0] == 1 and a.shape[0] != 1 and b.requires_grad:
        return a, b.squeeze(0)
    return a, b


def matmul(a, b):
    """torch.matmul's dispatch and graph: dot, mv, mm (+ squeeze_), folded mm/mv, or broadcast bmm."""
    if _amp.on and autocast_applies("matmul", a, b):
        return autocast_run("matmul", matmul, a, b)
    check_device(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return Dot.apply(a, b)
    if a.ndim == 2 and b.ndim == 1:
        return Mv.apply(a, b)
    if a.ndim == 1 and b.ndim == 2:
        out = _SqueezeInplace.apply(Mm.apply(a.unsqueeze(0), b))
        if out._version_counter is not None:
            out._version_counter.bump("SqueezeBackward4")
        return out
    if a.ndim == 2 and b.ndim == 2:
        return Mm.apply(a, b)
    if a.ndim == 3 and b.ndim == 3:
        a, b = _squeeze_single_batch(a, b)
    if ((a.ndim >= 3 and b.ndim <= 2) or (b.ndim >= 3 and a.ndim <= 2)) and _should_fold(a, b):
        return _fold(a, b)
    return _batched(a, b)


def mm(a, b):
    if _amp.on and autocast_applies("mm", a, b):
        return autocast_run("mm", mm, a, b)
    check_device(a, b)
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return Mm.apply(a, b)


def bmm(a, b):
    if _amp.on and autocast_applies("bmm", a, b):
        return autocast_run("bmm", bmm, a, b)
    check_device(a, b)
    return Bmm.apply(a, b)


def mv(a, b):
    if _amp.on and autocast_applies("mv", a, b):
        return autocast_run("mv", mv, a, b)
    return Mv.apply(a, b)


def dot(a, b):
    if _amp.on and autocast_applies("dot", a, b):
        return autocast_run("dot", dot, a, b)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return Dot.apply(a, b)


class Addmm(Function):
    """out = bias + m1 @ m2 for 2-D m1, m2 (torch's addmm, as F.linear uses it with m2 = weight.t()).

    Edges (bias, m1, m2), as torch. Saves m1 if m2 needs grad, m2 if m1 needs grad.
    """

    node_name, array_forward = "AddmmBackward0", True

    @staticmethod
    def forward(ctx, bias, m1, m2):
        if m1.shape[1] != m2.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m1.shape[0]}x{m1.shape[1]} and "
                               f"{m2.shape[0]}x{m2.shape[1]})")
        if m1.dtype != m2.dtype:
            _check_dtypes(m1, m2)
        need_1, need_2 = ctx.needs_input_grad[1], ctx.needs_input_grad[2]
        ctx.save_for_backward(m1 if need_2 else None, m2 if need_1 else None)
        ctx.bias_shape = bias.shape
        _save_layouts(ctx, m1, m2, 1, 2)  # m2 is usually weight.t(): weight then gets a C-ordered grad
        out = _mm(m1, m2)
        out += bias
        return out

    @staticmethod
    def backward(ctx, grad):
        m1, m2 = ctx.saved_tensors
        gb = sum_to(grad, ctx.bias_shape) if ctx.needs_input_grad[0] else None
        g1 = _mat1_grad(grad, m2, ctx.cols[0]) if ctx.needs_input_grad[1] else None
        g2 = _mat2_grad(grad, m1, ctx.cols[1]) if ctx.needs_input_grad[2] else None
        return gb, g1, g2

    @staticmethod
    def backward_arrays(ctx, g):
        m1, m2 = ctx.saved_arrays
        gb = sum_to_array(g, ctx.bias_shape) if ctx.needs_input_grad[0] else None
        g1 = _mat1_grad(g, m2, ctx.cols[0]) if ctx.needs_input_grad[1] else None
        g2 = _mat2_grad(g, m1, ctx.cols[1]) if ctx.needs_input_grad[2] else None  # one row: as Mm
        return gb, g1, g2


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ weight.T + bias with torch's graph: addmm for 2-D input (flattened N-D contiguous input), else matmul."""
    if _amp.on and autocast_applies("linear", x, weight, bias):
        return autocast_run("linear", linear, x, weight, bias)
    if x.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {x.ndim}D and "
                           f"{weight.ndim}D")
    wt = weight.t()
    if bias is None:
        return matmul(x, wt)
    if x.ndim == 2:
        return Addmm.apply(bias, x, wt)
    if x._array.flags.c_contiguous and bias.ndim == 1:
        out = Addmm.apply(bias, x.reshape(int(np.prod(x.shape[:-1])), x.shape[-1]), wt)
        return out.view(*x.shape[:-1], out.shape[1])
    return matmul(x, wt).add_(bias)  # in place on matmul's fresh result, as torch (AddBackward0)


class AddmmScaled(Addmm):
    """out = beta * bias + alpha * (m1 @ m2). Saves m1 if m2 needs grad, m2 if m1 needs grad."""

    node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, bias, m1, m2, beta, alpha):
        ctx.beta, ctx.alpha = beta, alpha
        prod = Addmm.forward(ctx, bias * 0, m1, m2)  # bias * 0 keeps the shape check and the broadcast
        out = prod * alpha if alpha != 1 else prod
        return (out + bias * beta if beta else out).astype(prod.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        m1, m2 = ctx.saved_tensors
        beta, alpha = ctx.beta, ctx.alpha
        # torch's maybe_multiply: the scaled gradients are MulBackward1 nodes under create_graph
        gb = sum_to(maybe_multiply(grad, beta), ctx.bias_shape) if ctx.needs_input_grad[0] else None
        g1 = maybe_multiply(_mat1_grad(grad, m2, ctx.cols[0]), alpha) if ctx.needs_input_grad[1] else None
        g2 = maybe_multiply(_mat2_grad(grad, m1, ctx.cols[1]), alpha) if ctx.needs_input_grad[2] else None
        return gb, g1, g2, None, None

    backward_arrays = None


def check_inplace_size(input: Tensor, shape) -> None:
    """addmm_, addmv_, baddbmm_: the product's shape must be input's own (torch does not broadcast into self)."""
    if tuple(input.shape) != tuple(shape):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(input.shape)} and output tensor size "
                           f"{list(shape)} should match")


AddmmInplace = inplace_twin(AddmmScaled)


def _check_addmm(input: Tensor, mat1: Tensor, mat2: Tensor) -> None:
    # torch checks dtypes before any shape: self against mat2 first, then mat1 against mat2
    for name, a in (("self", input), ("mat1", mat1)):
        if a.dtype != mat2.dtype:
            got = [scalar_type_name(x._array.dtype) for x in (a, mat2)]
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {got[0]} and {got[1]}")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    target = (mat1.shape[0], mat2.shape[1])
    if mat1.shape[1] == mat2.shape[0] and input.ndim <= 2:  # torch expands input to the product's shape first
        lead = 2 - input.ndim
        for i, s in enumerate(input.shape):
            if s != 1 and s != target[i + lead]:
                raise RuntimeError(f"The expanded size of the tensor ({target[i + lead]}) must match the existing "
                                   f"size ({s}) at non-singleton dimension {i + lead}.  Target sizes: "
                                   f"{list(target)}.  Tensor sizes: {list(input.shape)}")


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    if _amp.on and autocast_applies("addmm", input, mat1, mat2):
        return autocast_run("addmm", addmm, input, mat1, mat2, beta=beta, alpha=alpha)
    if is_grad_enabled() and (input.requires_grad or mat1.requires_grad or mat2.requires_grad):
        # torch collects the inputs' edges before its kernel checks anything: a view whose base changed in place
        # raises here first (fuzz seed 8009922)
        for t in (input, mat1, mat2):
            t.grad_fn  # noqa: B018 (read for its check)
    _check_addmm(input, mat1, mat2)
    if beta == 1 and alpha == 1:
        return Addmm.apply(input, mat1, mat2)
    return AddmmScaled.apply(input, mat1, mat2, beta, alpha)


def addmm_(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """input = beta * input + alpha * (mat1 @ mat2), in place (AddmmBackward0, as torch)."""
    _check_addmm(input, mat1, mat2)
    check_inplace_size(input, (mat1.shape[0], mat2.shape[1]))
    return AddmmInplace.apply(input, mat1, mat2, beta, alpha)
