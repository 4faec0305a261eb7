"""Views that share the input's storage: view, reshape, transpose, permute, squeeze, unsqueeze, expand, movedim, unflatten, broadcast_to, ravel, flatten."""
from __future__ import annotations

import numpy as np

from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ... import dtypes
from ...backend import broadcast_view, get_array_module, scatter_add, torch_strides
from ...memory_layout import copy_in_order
from ...tensor import Tensor
from .._util import normalize_dims, shape_args, type_string, wrap_dim
from ..conversion import Clone


def _infer_shape(shape, numel: int) -> tuple:
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _no_copy_reshape(a, shape):
    """a reshaped without copying, or None when the strides do not allow it."""
    xp = get_array_module(a)
    if not hasattr(xp, "cuda"):  # numpy, or framework.compile's recording stand-in for it
        try:
            return np.reshape(a, shape, copy=False)
        except ValueError:
            return None
    out = a.reshape(shape)
    # a view's base is a (or a's own base); a copy has none, which must not match an owning a's None; an empty
    # array has no memory to share, so any shape is a view of it (as torch allows)
    return out if out.base is a or (a.base is not None and out.base is a.base) or a.size == 0 else None


def _view_strides(old_shape: tuple, old_strides: tuple, new_shape: tuple) -> tuple:
    """torch's computeStride (element strides) for viewing a tensor of old_shape/old_strides as new_shape; used
    where NumPy's differ from it: size-1 dims (NumPy makes them contiguous-like, torch keeps the chunk's stride,
    which decides whether AccumulateGrad may keep such a gradient and how copy_ judges an overlap)."""
    new = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    base, tensor_numel, view_numel = old_strides[-1], 1, 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new[view_d] = view_numel * base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if d > 0:
                base, tensor_numel, view_numel = old_strides[d - 1], 1, 1
    return tuple(new)


def _with_strides(a, shape: tuple, strides: tuple):
    """A view of a's memory with the given shape and element strides."""
    return get_array_module(a).lib.stride_tricks.as_strided(a, shape, tuple(st * a.itemsize for st in strides))


class View(Function):
    """out = a viewed with a new shape (no copy). Saves nothing."""

    node_name, array_forward, is_view = "ViewBackward0", True, True

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        shape = _infer_shape(shape, a.size)
        out = _no_copy_reshape(a, shape)
        if out is None:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        if out.size and 1 in out.shape:  # torch's strides in size-1 dims (NumPy's differ; copy_'s overlap check
            # and AccumulateGrad read them)
            want = _view_strides(a.shape, [st // a.itemsize for st in a.strides], out.shape) if a.ndim else \
                (1,) * out.ndim
            if out.strides != tuple(st * a.itemsize for st in want):
                out = _with_strides(a, out.shape, want)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None


class ReshapeAlias(View):
    """reshape of a viewable but non-contiguous tensor (torch's _reshape_alias): a view. Saves nothing."""

    node_name = "ReshapeAliasBackward0"


class ReshapeCopy(Function):
    """out = a (a fresh contiguous copy) in a new shape, not a view (torch's _unsafe_view). Saves nothing."""

    node_name, array_forward = "UnsafeViewBackward0", True

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return a.reshape(_infer_shape(shape, a.size))

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None


class Transpose(Function):
    """out = a with dims d0 and d1 swapped (a view). Saves nothing."""

    node_name, array_forward, is_view = "TransposeBackward0", True, True

    @staticmethod
    def forward(ctx, a, d0, d1):
        ctx.d0, ctx.d1 = d0, d1
        if a.ndim == 0:  # a 0-d tensor "transposed" along dim 0 (or -1): a view of itself
            return a[...]
        return get_array_module(a).swapaxes(a, d0, d1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(ctx.d0, ctx.d1), None, None


class T(Function):
    """out = a.t() for a <= 2-D tensor (a view). Saves nothing."""

    node_name, array_forward, is_view = "TBackward0", True, True

    @staticmethod
    def forward(ctx, a):
        if a.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
        return a.T

    @staticmethod
    def backward(ctx, grad):
        return grad.t()

    @staticmethod
    def backward_arrays(ctx, g):
        return (g.T,)  # a view of the gradient, as grad.t() is (a Linear's weight gets its gradient through it)


class Permute(Function):
    """out = a with dims reordered (a view). Saves nothing."""

    node_name, array_forward, is_view = "PermuteBackward0", True, True

    @staticmethod
    def forward(ctx, a, dims):
        dims = normalize_dims_ordered(dims, a.ndim)
        ctx.inverse = tuple(int(i) for i in np.argsort(dims))
        return get_array_module(a).transpose(a, dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(*ctx.inverse), None


def normalize_dims_ordered(dims, ndim) -> tuple:
    dims = tuple(d % ndim if ndim else 0 for d in dims)
    if sorted(dims) != list(range(ndim)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to "
                           f"len(dims) = {len(dims)}" if len(dims) != ndim else "permute(): duplicate dims are not allowed.")
    return dims


class SqueezeAll(Function):
    """out = a without its size-1 dims (a view). Saves nothing."""

    node_name, array_forward, is_view = "SqueezeBackward0", True, True

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return _squeezed(a, tuple(i for i, s in enumerate(a.shape) if s == 1))

    @staticmethod
    def backward(ctx, grad):
        return _unsqueeze_to(grad, ctx.shape)


def _squeezed(a, axes: tuple):
    """a without the size-1 dims ``axes``, the other strides kept (torch's squeeze: a stride-0 dim of an expand
    stays 0, where reshape would give it a new stride)."""
    return get_array_module(a).squeeze(a, axis=axes) if axes else a.reshape(a.shape)  # a view either way


def _unsqueeze_to(grad, shape: tuple, dims=None):
    """torch's unsqueeze_to: unsqueeze back each size-1 dim of ``shape`` (in ``dims``) that squeeze removed;
    a squeeze that removed nothing passes its gradient on as is (the same node names under create_graph)."""
    for d in range(len(shape)):
        if shape[d] == 1 and (dims is None or d in dims):
            grad = grad.unsqueeze(d)
    return grad


class Squeeze(Function):
    """out = a without dim ``dim`` if it has size 1 (a view). Saves nothing."""

    node_name, array_forward, is_view = "SqueezeBackward1", True, True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.shape = a.shape
        ctx.dims = dims = normalize_dims(dim, a.ndim)
        return _squeezed(a, tuple(i for i, s in enumerate(a.shape) if i in dims and s == 1))

    @staticmethod
    def backward(ctx, grad):
        return _unsqueeze_to(grad, ctx.shape, ctx.dims), None


class SqueezeDims(Squeeze):
    """out = a without those of ``dims`` that have size 1 (a view; torch's squeeze.dims). Saves nothing."""

    node_name = "SqueezeBackward2"


class Unsqueeze(Function):
    """out = a with a new size-1 dim at ``dim`` (a view). Saves nothing."""

    node_name, array_forward, is_view = "UnsqueezeBackward0", True, True

    @staticmethod
    def forward(ctx, a, dim):
        if not -a.ndim - 1 <= dim <= a.ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-a.ndim - 1}, {a.ndim}], "
                             f"but got {dim})")
        ctx.dim = dim % (a.ndim + 1)
        out = get_array_module(a).expand_dims(a, ctx.dim)
        # torch's new stride, size * stride of the dim it goes before (1 at the end), and the old dims' strides kept
        # (numpy's expand_dims may rewrite those of size-1 dims: copy_'s overlap check reads them; an empty array's
        # are torch's, those NumPy zeroed included)
        st = [s_ // a.itemsize for s_ in a.strides] if a.size else list(torch_strides(a))
        d = ctx.dim
        want = tuple(st[:d]) + (a.shape[d] * st[d] if d < a.ndim else 1,) + tuple(st[d:])
        if out.strides != tuple(w * a.itemsize for w in want):
            out = _with_strides(a, out.shape, want)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim), None


class Expand(Function):
    """out = a broadcast to ``shape`` (a read-only view; -1 keeps a size). Saves nothing."""

    node_name, array_forward, is_view = "ExpandBackward0", True, True

    @staticmethod
    def forward(ctx, a, shape):
        lead = len(shape) - a.ndim
        if lead < 0:
            raise RuntimeError(f"expand({type_string(a.dtype)}{{{list(a.shape)}}}, size={list(shape)}): the number "
                               "of sizes provided (%d) must be greater or equal to the number of dimensions in the "
                               "tensor (%d)" % (len(shape), a.ndim))
        target = list(shape)
        for i in range(len(shape) - 1, -1, -1):  # torch's inferExpandGeometry: the last dim is checked first
            if i < lead:
                if shape[i] == -1:
                    raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                       f"non-existing dimension {i}")
                if shape[i] < 0:  # torch's sizes check then fails on the negative size
                    raise RuntimeError("numel: integer multiplication overflow")
                continue
            s = a.shape[i - lead]
            if shape[i] == -1:
                target[i] = s
            elif s != 1 and s != shape[i]:
                raise RuntimeError(f"The expanded size of the tensor ({shape[i]}) must match the existing size "
                                   f"({s}) at non-singleton dimension {i}.  Target sizes: {list(shape)}.  "
                                   f"Tensor sizes: {list(a.shape)}")
        target = tuple(target)
        ctx.shape = a.shape
        out = broadcast_view(a, target)
        strides = _expand_strides(a, target)
        if out.strides != strides:  # only size-1 dims differ (numpy gives them stride 0 or a reshape's)
            out = get_array_module(a).lib.stride_tricks.as_strided(a, target, strides)
        return out

    @staticmethod
    def backward(ctx, grad):
        return sum_to(grad, ctx.shape), None


def _expand_strides(a, target: tuple) -> tuple:
    """torch's inferExpandGeometry strides (in bytes): a broadcast dim gets 0, a kept dim its stride, a new dim of
    size 1 the size times stride of the dim after it (a 0-d input: all 0). Observable in stride(), and in copy_'s
    overlap check (torch compares the two tensors' strides)."""
    if a.ndim == 0:
        return (0,) * len(target)
    strides = [0] * len(target)
    lead = len(target) - a.ndim
    for i in range(len(target) - 1, -1, -1):
        d = i - lead
        size, stride = (a.shape[d], a.strides[d]) if d >= 0 else (1, target[i + 1] * strides[i + 1])
        strides[i] = 0 if size != target[i] else stride
    return tuple(strides)


class Alias(Function):
    """out = a (a view of the whole tensor, e.g. ``a[...]``). Saves nothing."""

    node_name, array_forward, is_view = "AliasBackward0", True, True

    @staticmethod
    def forward(ctx, a):
        return a.view()

    @staticmethod
    def backward(ctx, grad):
        return grad


class AsStridedScatter(Function):
    """out = zeros of a base's shape with ``grad`` added at the base elements ``index`` names (torch's
    as_strided_backward: a view's gradient put back into its base; repeated elements, as in an expand,
    accumulate). Saves nothing: ``index`` is the view's element map, an integer array of the view's shape."""

    node_name, array_forward = "AsStridedBackward0", True

    @staticmethod
    def forward(ctx, grad, index, shape, repeats=True, order=None):
        ctx.index, ctx.grad_shape = index, grad.shape
        out = _scatter(grad, index, shape, repeats)
        # torch's buffer.as_strided(base's sizes, base's strides): a dense base's memory order (dims ``order``)
        return out if order is None else copy_in_order(out, order)

    @staticmethod
    def backward(ctx, grad):
        return AsStridedGather.apply(grad, ctx.index), None, None, None, None

    @staticmethod
    def backward_arrays(ctx, grad):
        return grad.reshape(-1)[ctx.index], None, None, None, None


class AsStridedGather(Function):
    """out = the elements of ``a`` that ``index`` names, in ``index``'s shape (a copy; the gradient of
    AsStridedScatter, torch's as_strided read). Saves nothing."""

    node_name, array_forward = "AsStridedBackward0", True

    @staticmethod
    def forward(ctx, a, index):
        ctx.index, ctx.shape = index, a.shape
        return a.reshape(-1)[index]

    @staticmethod
    def backward(ctx, grad):
        return AsStridedScatter.apply(grad, ctx.index, ctx.shape), None

    @staticmethod
    def backward_arrays(ctx, grad):
        return _scatter(grad, ctx.index, ctx.shape), None


def _scatter(values, index, shape, repeats: bool = True):
    """zeros(shape) with ``values`` added at the flat positions ``index``; repeats=False: no position repeats,
    so a plain assignment does (much faster than an accumulating scatter)."""
    xp = get_array_module(values)
    out = xp.zeros(int(np.prod(shape, dtype=np.int64)), dtype=values.dtype)
    if repeats:
        scatter_add(out, index.reshape(-1), values.reshape(-1))
    else:
        out[index.reshape(-1)] = values.reshape(-1)
    return out.reshape(shape)


class AsStridedResult(Function):
    """out = a view of all of ``a`` (torch's as_strided_backward returns ``result_buffer.as_strided(...)``, so the
    gradient it gives is a view: an in-place op on it regenerates its grad_fn, detach_ refuses it). Saves nothing."""

    node_name, array_forward, is_view = "AsStridedBackward0", True, True

    @staticmethod
    def forward(ctx, a):
        return a.view()

    @staticmethod
    def backward(ctx, grad):
        return grad


def as_strided_backward(grad, index, shape, repeats: bool = True, order=None):
    """The gradient of a base of ``shape`` from its view's gradient: the AsStridedBackward0 node's formula, laid
    out in the base's dim ``order`` (outermost first) when given."""
    return AsStridedResult.apply(AsStridedScatter.apply(grad, index, tuple(shape), repeats, order))


def reshape(a, *shape):
    """A view when the strides allow it (ViewBackward0), otherwise a copy, as torch.reshape."""
    shape = shape_args(shape)
    arr = a._array
    if arr.flags.c_contiguous:  # torch's contiguity also ignores the strides of size-1 dims, as numpy's flag
        return View.apply(a, shape)
    if _no_copy_reshape(arr, _infer_shape(shape, arr.size)) is not None:
        return ReshapeAlias.apply(a, shape)
    # torch: _unsafe_view(clone(contiguous)): the copy is its own node, the reshape of it is not a view
    return ReshapeCopy.apply(Clone.apply(a, dtypes.contiguous_format), shape)


def view(a, *shape):
    if len(shape) == 1 and isinstance(shape[0], (dtypes.dtype,)):
        raise NotImplementedError("view(dtype) is not supported")
    return View.apply(a, shape_args(shape))


def transpose(a, dim0: int, dim1: int):
    return Transpose.apply(a, wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim))


swapaxes = transpose


def t(a):
    return T.apply(a)


def permute(a, *dims):
    if not dims:  # torch's method signature requires dims (torch.permute(x, ()) is the ordinary error)
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return Permute.apply(a, shape_args(dims))


def squeeze(a, dim=None):
    if dim is None:
        return SqueezeAll.apply(a)
    return (SqueezeDims if isinstance(dim, (tuple, list)) else Squeeze).apply(a, dim)


def unsqueeze(a, dim: int):
    return Unsqueeze.apply(a, dim)


def expand(a, *shape):
    return Expand.apply(a, shape_args(shape))


def expand_as(a, other):
    return Expand.apply(a, tuple(other.shape))


def flatten(a, start_dim: int = 0, end_dim: int = -1):
    s, e = wrap_dim(start_dim, a.ndim), wrap_dim(end_dim, a.ndim)
    if a.ndim == 0:
        return reshape(a, 1)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return a
    shape = a.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(a, tuple(shape[:s]) + (n,) + tuple(shape[e + 1:]))


def broadcast_to(input: Tensor, size) -> Tensor:
    return expand(input, tuple(size))


def movedim(input: Tensor, source, destination) -> Tensor:
    """input with dims ``source`` moved to positions ``destination``, the others in order (a permute view)."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same "
                           f"number of dims as destination ({dst} dims)")
    n = input.ndim
    s = [wrap_dim(int(d), n) for d in src]
    d = [wrap_dim(int(d), n) for d in dst]
    for name, given, wrapped in (("source", src, s), ("destination", dst, d)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    order = [i for i in range(n) if i not in s]
    for to, frm in sorted(zip(d, s)):
        order.insert(to, frm)
    return Permute.apply(input, tuple(order))


moveaxis = movedim


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return transpose(input, dim0, dim1)


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """input with dim ``dim`` split into ``sizes`` (one may be -1): a view."""
    d = wrap_dim(dim, input.ndim)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.shape[d]
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes:
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        if known == 0 or n % known:
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                               f"({n}) in the input tensor")
        sizes = tuple(n // known if s == -1 else s for s in sizes)
    elif known != n:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({n}) in the input tensor")
    shape = tuple(input.shape)
    return View.apply(input, shape[:d] + sizes + shape[d + 1:])


def ravel(input: Tensor) -> Tensor:
    """input flattened to 1-D: a view when it is contiguous, else a copy (torch's contiguous().view(-1))."""
    return input.contiguous().view(-1)
