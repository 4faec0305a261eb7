"""N-d pooling: max/avg pools of any dim, max unpooling, adaptive max pooling."""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...autograd.function import Function
from ... import backend, dtypes
from ...backend import get_array_module
from ...tensor import Tensor
from .._separable import SeparableMap
from .._sliding import _pads, ntuple, out_size, windows
from .._util import formula_zeros


def pool_check(name: str, x_shape: tuple, kernel, stride, padding, dilation, ceil_mode, k: int) -> tuple:
    """torch's pooling shape checks, in its order; returns the output's spatial size."""
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(kk <= 0 for kk in kernel):
        raise RuntimeError(f"kernel_size must be greater than zero, but got {', '.join(map(str, kernel))}")
    for kk, p, d in zip(kernel, padding, dilation):
        if p > ((kk - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={kk} and dilation={d}")
    if name.startswith("max") and any(p > kk // 2 for kk, p in zip(kernel, padding)):
        if k == 2:
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = "
                               f"{padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}")
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {kernel[0]} "
                           f"kW: {kernel[2]} kH: {kernel[1]} padT: {padding[0]} padW: {padding[2]} padH: "
                           f"{padding[1]}")
    spatial = x_shape[-k:]
    outs = tuple(out_size(n, kk, s, p, d, ceil_mode)
                 for n, kk, s, p, d in zip(spatial, kernel, stride, padding, dilation))
    if any(o < 1 for o in outs):
        planes = "x".join(str(n) for n in x_shape[1:-k]) if len(x_shape) > k + 1 else str(x_shape[0])
        if name == "avg_pool3d":
            raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel "
                               f"size (kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
        raise RuntimeError(f"Given input size: ({planes}x{'x'.join(map(str, spatial))}). Calculated output size: "
                           f"({planes}x{'x'.join(map(str, outs))}). Output size is too small")
    return outs


def _batched(x, k: int):
    """x with a batch dim of 1 added when it is unbatched ((C, *spatial), k spatial dims)."""
    return x if x.ndim == k + 2 else x[None]


def _lowest(dtype):
    return -np.inf if np.dtype(dtype).kind in "fV" else np.iinfo(dtype).min


def _flat_positions(xp, local, spatial, kernel, stride, padding, dilation, outs):
    """Flat in-plane input positions (int64) of the window offsets ``local`` (N, C, *outs), row-major."""
    k = len(kernel)
    idx, rem, plane = 0, local, 1
    for d in reversed(range(k)):
        off, rem = rem % kernel[d], rem // kernel[d]
        o = xp.arange(outs[d], dtype=np.int64).reshape((-1,) + (1,) * (k - 1 - d))
        idx = idx + (o * stride[d] - padding[d] + off * dilation[d]) * plane
        plane *= spatial[d]
    return idx


class MaxPoolNd(Function):
    """(out, indices) = the max of each window and its flat in-plane input position. Saves x and the indices."""

    node_name, array_forward = "MaxPool2DWithIndicesBackward0", True

    @classmethod
    def forward(cls, ctx, x_in, kernel, stride, padding, dilation, outs):
        xp = get_array_module(x_in)
        x = _batched(x_in, len(kernel))
        n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
        pads = _pads(spatial, kernel, stride, padding, dilation, outs)
        if any(lo or hi for lo, hi in pads):
            x_pad = xp.pad(x, [(0, 0), (0, 0)] + pads, constant_values=_lowest(x.dtype))
        else:
            x_pad = x
        flat = windows(x_pad, kernel, stride, dilation, outs).reshape(n, c, *outs, -1)
        # (argmax keeps a window's first maximum, as torch's val > max; with NaN its first NaN where torch keeps the
        # last: the deviation MaxPool2d declares)
        local = flat.argmax(axis=-1)
        out = xp.take_along_axis(flat, local[..., None], axis=-1)[..., 0]
        idx = _flat_positions(xp, local, spatial, kernel, stride, padding, dilation, outs).astype(np.int64)
        idx = xp.ascontiguousarray(xp.broadcast_to(idx, out.shape))
        if x is not x_in:
            out, idx = out[0], idx[0]
        ctx.save_for_backward(x_in, idx)  # torch's backward keeps its input and the indices (result1)
        ctx.mark_non_differentiable(idx)
        ctx.k = len(kernel)
        return out, idx

    @classmethod
    def backward(cls, ctx, grad, grad_indices):
        x, idx = ctx.saved_tensors
        return (_scatter_op(cls).apply(grad, x, idx, tuple(x.shape), ctx.k),) + (None,) * 5


class PlaneScatter(Function):
    """out = zeros of ``shape`` (..., *spatial: k dims) with g added at its flat in-plane ``idx`` (torch's max pooling
    backward); under create_graph a node with edges (g, x) whose gradient in g gathers at idx and in x is zero.
    Saves the indices."""

    array_forward, index_args = True, (2,)
    node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, g, x, idx, shape, k):
        xp = get_array_module(g)
        plane = math.prod(shape[len(shape) - k:])
        planes = math.prod(shape[:len(shape) - k])
        out = xp.zeros(planes * plane, dtype=g.dtype)
        rows = xp.arange(planes, dtype=np.int64).reshape(-1, 1) * plane
        backend.scatter_add(out, (rows + idx.reshape(planes, -1)).reshape(-1), g.reshape(-1))
        ctx.save_for_backward(idx)
        ctx.shape, ctx.k = shape, k
        return out.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        (idx,) = ctx.saved_tensors
        needs = ctx.needs_input_grad
        gg = plane_gather(grad, idx, ctx.k) if needs[0] else None
        gx = formula_zeros(grad, ctx.shape) if needs[1] else None  # torch's zeros_like(self): _version 1
        return gg, gx, None, None, None


def plane_gather(a: Tensor, idx: Tensor, k: int) -> Tensor:
    """a's elements at the flat in-plane positions idx, k spatial dims (torch's max_pool_double_backward: a
    gather and a view)."""
    planes = math.prod(idx.shape[:idx.ndim - k])
    return a.reshape(planes, -1).gather(1, idx.reshape(planes, -1)).view(tuple(idx.shape))


_SCATTERS: dict = {}


def _scatter_op(cls: type) -> type:
    """The PlaneScatter named for the op ``cls`` (torch's ``*BackwardBackward0``)."""
    op = _SCATTERS.get(cls)
    if op is None:
        name = cls.node_name.replace("Backward0", "BackwardBackward0")
        op = _SCATTERS[cls] = type(cls.__name__ + "Grad", (PlaneScatter,), {"node_name": name})
    return op


MaxPool3d = type("MaxPool3d", (MaxPoolNd,), {"node_name": "MaxPool3DWithIndicesBackward0",
                                            "__doc__": MaxPoolNd.__doc__})


def max_pool_nd(input: Tensor, k: int, name: str, kernel_size, stride, padding, dilation, ceil_mode: bool):
    """(out, indices) of a k-d max pool of an (N, C, *spatial) or unbatched (C, *spatial) input."""
    if input.ndim not in (k + 1, k + 2) or input.numel() == 0 and input.ndim == k + 1:
        raise RuntimeError(f"non-empty {k + 1}D or {k + 2}D (batch mode) tensor expected for input")
    kernel = ntuple(kernel_size, k, "kernel_size")
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        ntuple(stride, k, "stride")
    padding, dilation = ntuple(padding, k, "padding"), ntuple(dilation, k, "dilation")
    outs = pool_check(name, tuple(input.shape), kernel, stride, padding, dilation, ceil_mode, k)
    op = MaxPoolNd if k == 2 else MaxPool3d
    return op.apply(input, kernel, stride, padding, dilation, outs)


class MaxUnpool2d(Function):
    """out = zeros (N, C, *output_size) with x put at its flat in-plane indices. Saves the indices."""

    node_name, array_forward, index_args = "MaxUnpool2DBackward0", True, (1,)

    @staticmethod
    def forward(ctx, x, idx, out_spatial):
        xp = get_array_module(x)
        k = len(out_spatial)
        planes = math.prod(x.shape[:x.ndim - k])
        plane = math.prod(out_spatial)
        idx2 = idx.reshape(planes, -1)
        with backend.input_check():  # torch reads the indices to check them
            bad = (idx2 < 0) | (idx2 >= plane)
            if bool(bad.any()):  # torch's kernel reports the last invalid index it met
                flat_bad = bad.reshape(-1)[::-1]
                last = int(idx2.reshape(-1)[flat_bad.size - 1 - int(flat_bad.argmax())])
                raise RuntimeError(f"Found an invalid max index: {last} (output volumes are of size "
                                   f"{'x'.join(map(str, out_spatial))})")
        out = xp.zeros((planes, plane), dtype=x.dtype)
        xp.put_along_axis(out, idx2, x.reshape(planes, -1), axis=1)
        ctx.save_for_backward(idx)
        ctx.k = k
        return out.reshape(tuple(x.shape[:x.ndim - k]) + tuple(out_spatial))

    @staticmethod
    def backward(ctx, grad):
        (idx,) = ctx.saved_tensors
        return plane_gather(grad, idx, ctx.k), None, None  # torch's: max_pool_double_backward (a gather and a view)


def max_unpool_nd(input: Tensor, indices: Tensor, k: int, kernel_size, stride, padding, output_size) -> Tensor:
    """torch's max_unpool{k}d: the output size from the pooling's arguments (or output_size, checked)."""
    kernel = ntuple(kernel_size, k, "kernel_size")
    stride = kernel if stride is None else ntuple(stride, k, "stride")
    padding = ntuple(padding, k, "padding")
    default = [(input.shape[input.ndim - k + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(k)]
    if output_size is None:
        size = default
    else:
        size = list(output_size)
        if len(size) == k + 2:
            size = size[2:]
        if len(size) != k:
            raise ValueError(f"output_size should be a sequence containing {k} or {k + 2} elements, but it has a "
                             f"length of '{len(size)}'")
        for d in range(k):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    size = tuple(int(s) for s in size)
    if k == 1:  # torch: max_unpool2d on a width-1 view, squeezed
        return _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + (1,)).squeeze(-1)
    return _max_unpool(input, indices, size)


def _max_unpool(input: Tensor, indices: Tensor, size: tuple) -> Tensor:
    k = len(size)
    if indices.dtype != dtypes.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype.legacy}")
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"Input to max_unpooling{k}d should be a {k + 1}d or {k + 2}d Tensor, but got a tensor "
                           f"with {input.ndim} dimensions.")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    return (MaxUnpool2d if k == 2 else MaxUnpool3d).apply(input, indices, size)


MaxUnpool3d = type("MaxUnpool3d", (MaxUnpool2d,), {"node_name": "MaxUnpool3DBackward0",
                                                    "__doc__": MaxUnpool2d.__doc__})


def _bins(n_out: int, n_in: int) -> tuple:
    """torch's adaptive bins: cell i covers floor(i n_in / n_out) .. ceil((i + 1) n_in / n_out) - 1; as an
    (n_out, widest) table of positions, short bins repeating their last cell (a repeat cannot change a max)."""
    starts = [(i * n_in) // n_out for i in range(n_out)]
    ends = [-(-((i + 1) * n_in) // n_out) for i in range(n_out)]
    width = max(e - s for s, e in zip(starts, ends))
    table = np.array([[min(s + j, e - 1) for j in range(width)] for s, e in zip(starts, ends)], dtype=np.int64)
    return table


class AdaptiveMaxPoolNd(Function):
    """(out, indices) = the max over each adaptive bin and its flat in-plane position. Saves x and the indices."""

    node_name, array_forward = "AdaptiveMaxPool2DBackward0", True

    @classmethod
    def forward(cls, ctx, x_in, sizes):
        xp = get_array_module(x_in)
        x = _batched(x_in, len(sizes))
        n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
        k = len(sizes)
        tables = [xp.asarray(_bins(o, m)) for o, m in zip(sizes, spatial)]
        a = x
        for d, t in enumerate(tables):  # gather each dim's bins: (N, C, o1, w1, o2, w2, ...)
            axis = 2 + 2 * d
            a = xp.take(a, t.reshape(-1), axis=axis).reshape(a.shape[:axis] + t.shape + a.shape[axis + 1:])
        perm = (0, 1) + tuple(2 + 2 * d for d in range(k)) + tuple(3 + 2 * d for d in range(k))
        flat = a.transpose(perm).reshape((n, c) + tuple(sizes) + (-1,))
        local = flat.argmax(axis=-1)
        out = xp.take_along_axis(flat, local[..., None], axis=-1)[..., 0]
        idx, rem, plane = 0, local, 1
        for d in reversed(range(k)):
            table = _bins(sizes[d], spatial[d])
            w = table.shape[1]
            off, rem = rem % w, rem // w
            # the bin's first cell plus the offset, capped at its last cell (where the table repeats it)
            start = xp.asarray(table[:, 0].reshape((-1,) + (1,) * (k - 1 - d)))
            last = xp.asarray(table[:, -1].reshape((-1,) + (1,) * (k - 1 - d)))
            idx = idx + xp.minimum(start + off, last) * plane
            plane *= spatial[d]
        idx = xp.ascontiguousarray(xp.broadcast_to(idx, out.shape)).astype(np.int64)
        if x is not x_in:
            out, idx = out[0], idx[0]
        ctx.save_for_backward(x_in, idx)
        ctx.mark_non_differentiable(idx)
        ctx.k = k
        return out, idx

    @classmethod
    def backward(cls, ctx, grad, grad_indices):
        x, idx = ctx.saved_tensors
        return _scatter_op(cls).apply(grad, x, idx, tuple(x.shape), ctx.k), None


def window_sum(win, k: int):
    """The sum of each window over its last ``k`` (kernel) dims, added one offset at a time in row-major order as
    torch's avg_pool kernels add them: NumPy's reduction order differs, so a window whose values cancel would come
    out 0 in one and -3e-17 in the other (and abs() then has another gradient; fuzz seed 5208046)."""
    total = None
    for offset in itertools.product(*[range(n) for n in win.shape[-k:]]):
        part = win[(Ellipsis,) + offset]
        if total is None:
            total = part.copy()
        else:
            total += part
    return total


def adaptive_sizes(output_size, spatial: tuple) -> tuple:
    k = len(spatial)
    sizes = (output_size,) * k if isinstance(output_size, int) or output_size is None else tuple(output_size)
    return tuple(n if s is None else int(s) for s, n in zip(sizes, spatial))


AdaptiveMaxPool3d = type("AdaptiveMaxPool3d", (AdaptiveMaxPoolNd,), {"node_name": "AdaptiveMaxPool3DBackward0",
                                                                      "__doc__": AdaptiveMaxPoolNd.__doc__})


def adaptive_max_pool_nd(input: Tensor, output_size, k: int = 2) -> tuple:
    """(out, indices) of torch's adaptive_max_pool{k}d (k = 2, 3) of a batched or unbatched input."""
    name = f"adaptive_max_pool{k}d"
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"{name}(): Expected {k + 1}D or {k + 2}D tensor, but got: {list(input.shape)}")
    sizes = adaptive_sizes(output_size, tuple(input.shape[-k:]))
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {i} being empty")
    return (AdaptiveMaxPoolNd if k == 2 else AdaptiveMaxPool3d).apply(input, sizes)


def adaptive_max_pool2d(input: Tensor, output_size) -> tuple:
    """(out, indices) of torch's adaptive_max_pool2d of an (N, C, H, W) or (C, H, W) input."""
    return adaptive_max_pool_nd(input, output_size, 2)


class AvgPoolNd(Function):
    """out = the sum over each zero-padded window divided by torch's divisor (the window's size within the
    padding, or its size within the input, or divisor_override). Saves x (as torch's) and the divisors."""

    half_kernel, half_operands = "avg_pool3d_out_frame", 1  # (the divisors are the op's own float64 array)
    node_name, array_forward = "AvgPool3DBackward0", True

    @classmethod
    def forward(cls, ctx, x_in, kernel, stride, padding, outs, divisor):
        xp = get_array_module(x_in)
        x = _batched(x_in, len(kernel))
        spatial = x.shape[2:]
        pads = _pads(spatial, kernel, stride, padding, (1,) * len(kernel), outs)
        x_pad = xp.pad(x, [(0, 0), (0, 0)] + pads) if any(lo or hi for lo, hi in pads) else x
        win = windows(x_pad, kernel, stride, (1,) * len(kernel), outs)
        k = len(kernel)
        div = xp.asarray(divisor, dtype=x.dtype)
        out = (window_sum(win, k) / div).astype(x.dtype, copy=False)
        ctx.conf = (tuple(x.shape), kernel, stride, padding, outs, divisor)
        ctx.save_for_backward(x_in)
        return xp.ascontiguousarray(out if x is x_in else out[0])

    @classmethod
    def backward(cls, ctx, grad):
        (x,) = ctx.saved_tensors  # (the version check on the saved input)
        return (_avg_backward_op(cls).apply(grad, x, ctx.conf),) + (None,) * 5


def _spread(g, conf):
    """Each window's value g (N, C, *outs) added to every cell of its window; the padding cropped off."""
    x_shape, kernel, stride, padding, outs, _ = conf
    xp = get_array_module(g)
    k = len(kernel)
    pads = _pads(x_shape[2:], kernel, stride, padding, (1,) * k, outs)
    full = xp.zeros(tuple(x_shape[:2]) + tuple(n + lo + hi for n, (lo, hi) in zip(x_shape[2:], pads)), dtype=g.dtype)
    for offs in itertools.product(*(range(kk) for kk in kernel)):
        sl = tuple(slice(o, o + s * n, s) for o, s, n in zip(offs, stride, outs))
        view = full[(slice(None), slice(None)) + sl]
        view += g  # (on a named view: no setitem, which a compiled replay would copy)
    crop = tuple(slice(lo, lo + n) for n, (lo, _) in zip(x_shape[2:], pads))
    return full[(slice(None), slice(None)) + crop]


class AvgPoolBackward(Function):
    """out = g / divisor spread over each window (torch's avg_pool backward): under create_graph a node with edges
    (g, x) whose gradient in g is the average pool again and in x zero. Saves nothing."""

    node_name, array_forward = "AvgPool3DBackwardBackward0", True
    forward_op: type = AvgPoolNd

    @staticmethod
    def forward(ctx, g, x, conf):
        ctx.conf, ctx.x_shape = conf, x.shape
        xp = get_array_module(g)
        g = _batched(g, len(conf[1]))
        return xp.ascontiguousarray(_spread(g / xp.asarray(conf[5], dtype=g.dtype), conf).reshape(x.shape))

    @staticmethod
    def backward(ctx, grad):
        _, kernel, stride, padding, outs, divisor = ctx.conf
        needs = ctx.needs_input_grad
        gg = ctx._forward_cls.forward_op.apply(grad, kernel, stride, padding, outs, divisor) if needs[0] else None
        gx = formula_zeros(grad, tuple(ctx.x_shape)) if needs[1] else None  # torch's zeros_like(self): _version 1
        return gg, gx, None


AvgPool2dNd = type("AvgPool2dNd", (AvgPoolNd,), {"node_name": "AvgPool2DBackward0", "__doc__": AvgPoolNd.__doc__,
                                                 "half_kernel": None})  # torch's 2-d kernel has both dtypes


_AVG_BACKWARDS: dict = {}


def _avg_backward_op(cls: type) -> type:
    op = _AVG_BACKWARDS.get(cls)
    if op is None:
        op = _AVG_BACKWARDS[cls] = type(cls.__name__ + "Grad", (AvgPoolBackward,), {
            "node_name": cls.node_name.replace("Backward0", "BackwardBackward0"), "forward_op": cls})
    return op


def _divisor(spatial, kernel, stride, padding, outs, count_include_pad: bool, divisor_override) -> np.ndarray:
    """torch's per-window divisor, an (*outs) host table (it depends on the shapes only)."""
    if divisor_override:
        return np.full(outs, float(divisor_override))
    div = np.ones(())
    for n, kk, s, p, o in zip(spatial, kernel, stride, padding, outs):
        start = np.arange(o) * s - p
        end = np.minimum(start + kk, n + p)
        size = end - start  # the window within the padding
        if not count_include_pad:
            size = np.minimum(end, n) - np.maximum(start, 0)
        div = np.multiply.outer(div, size.astype(np.float64))
    return div


def avg_pool_nd(input: Tensor, k: int, name: str, kernel_size, stride, padding, ceil_mode: bool,
                count_include_pad: bool, divisor_override) -> Tensor:
    """torch's avg_pool{k}d (k = 2, 3) of an (N, C, *spatial) or unbatched (C, *spatial) input."""
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"non-empty {k + 1}D or {k + 2}D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel = ntuple(kernel_size, k, "kernel_size")
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        ntuple(stride, k, "stride")
    padding = ntuple(padding, k, "padding")
    outs = pool_check(name, tuple(input.shape), kernel, stride, padding, (1,) * k, ceil_mode, k)
    divisor = _divisor(tuple(input.shape[-k:]), kernel, stride, padding, outs, count_include_pad, divisor_override)
    op = AvgPool2dNd if k == 2 else AvgPoolNd
    return op.apply(input, kernel, stride, padding, outs, divisor)


AdaptiveAvgPool3D = type("AdaptiveAvgPool3D", (SeparableMap,), {
    "node_name": "AdaptiveAvgPool3DBackward0", "saves_input": True,
    "__doc__": "out = the mean over each adaptive bin (separable: depth, rows, columns). Saves x, as torch's."})
