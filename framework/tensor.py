"""Tensor: an array plus autograd state (requires_grad, grad, grad_fn, version counter, view base).

Mirrors torch/_tensor.py plus the autograd meta torch keeps in C++.  Floor 2: this file knows arrays
(backend, dtypes) and the autograd state a tensor carries (grad_mode, node, version) and nothing above.
The op methods (``x.exp()``, ``a @ b``, ``x.to(...)``, ``x.backward()``) are bound onto Tensor in one place,
``framework/_tensor_methods.py``, when the package initialises.
"""
from __future__ import annotations

import sys
import warnings
import weakref

import numpy as np

from . import backend, dtypes, vmap_state
from ._tensor_str import tensor_str
from .autograd.grad_mode import _state as _grad_state
from .autograd.grad_mode import is_grad_enabled, is_inference_mode_enabled, no_grad
from .autograd.as_strided import AsStridedBackward0
from .autograd.node import AccumulateGrad, RemovableHandle
from .autograd.version import VersionCounter
from .autograd.view_meta import CreationMeta, propagate, rebase_error
from .memory_layout import preserve_format_order


_new = object.__new__


class Size(tuple):
    """torch.Size: a tuple that prints as ``framework.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"framework.Size({list(self)})"

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n


_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't "
    "be populated during autograd.backward(). If you indeed want the .grad field to be populated for a "
    "non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
    "mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
    "more information.")

# id(leaf) -> (weakref to a FlatBucket, index): a foreach optimizer that keeps this parameter's gradients in one
# flat buffer.  framework/optim/_flat.py fills it; the entry goes with the parameter (keyed by id, not by the
# tensor: a dict would compare tensors with ==, which is elementwise) and holds the bucket weakly (the bucket
# holds the parameter).
GRAD_HOMES: dict = {}


# torch names a gradient's dtype by its C++ type in the .grad setter's error
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                   "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


class Tensor:
    """An n-dimensional array that can record the operations applied to it for autograd."""

    # Only the three fields every tensor sets live in slots; the rest are class-level defaults that an
    # instance overrides when it needs to (most tensors never get a view base, hooks or a grad).
    __slots__ = ("_array", "_version_counter", "_rg", "__dict__", "__weakref__")
    _grad = None
    _grad_fn = None
    _output_nr = 0
    _base = None
    _view_fn = None
    _view_version = 0
    _retains_grad = False
    _hooks = None
    _orphan_hooks = None  # torch's _backward_hooks dict made before a grad_fn read that raised: bound to no node
    _post_accumulate_grad_hooks = None
    _acc_ref = None
    _pending_diff = False
    _creation_meta = 0  # a view's CreationMeta (DEFAULT: may be modified in place under grad mode)
    _efficient_zero = False  # a gradient torch makes as _efficientzerotensor (sgn's): the engine sums it specially
    # a base whose geometry an in-place view op changed (t_, squeeze_, ...): a list with, for each change, the view op
    # that undoes it (None where none does: as_strided_), so that views made before it still find their elements
    _geometry_inverses = ()
    _storage_root = None  # such a base: the array holding its storage (its array before the first change)
    _geometry_epoch = 0  # a view: how many of its base's geometry changes came before it (its _view_fn's frame)
    # torch: detaching an inference tensor outside inference_mode gives an inference tensor that has a version
    # counter of its own (it may be modified in place) but still never joins a graph
    _detached_inference = False
    # numpy defers a binary operator to the operand of higher priority: ``np.float32(2) * t`` is then t.__rmul__
    # (a Tensor with its graph, as torch's, which sets the same priority), not numpy converting t to an array
    __array_priority__ = 1000

    # ---- construction ---------------------------------------------------------------------------
    def __init__(self, *args, dtype=None, device=None, requires_grad: bool = False) -> None:
        """Legacy constructor: ``Tensor([1, 2])`` (float32 data) or ``Tensor(2, 3)`` (uninitialised)."""
        if len(args) == 1 and not isinstance(args[0], int):
            data = args[0]
            arr = data._array.copy() if isinstance(data, Tensor) else np.array(data, dtype=dtypes.default_float.np)
        else:
            shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            arr = np.empty(tuple(shape), dtype=dtypes.default_float.np)
        if dtype is not None:
            arr = arr.astype(dtypes.to_numpy_dtype(dtype))
        if device is None:
            device = backend.get_default_device()
        if str(device) != "cpu":
            arr = backend.to_device(arr, backend.norm_device(device))
        Tensor._init(self, arr)
        if requires_grad:
            self.requires_grad_(True)

    @staticmethod
    def _init(t: "Tensor", arr, counter=None) -> None:
        t._array = arr
        t._rg = False
        t._version_counter = counter if counter is not None else (
            None if is_inference_mode_enabled() else VersionCounter())

    @classmethod
    def _make(cls, arr, counter=None) -> "Tensor":
        """Wrap an array (no copy) as a fresh tensor that does not require grad."""
        t = _new(Tensor)
        t._array = arr if arr.size else backend.empty_as_torch(arr)
        t._rg = False
        t._version_counter = counter if counter is not None else (
            None if _grad_state.inference else VersionCounter())
        return t

    @classmethod
    def _make_view(cls, arr, src: "Tensor", fn_cls, rest: tuple, multi: bool = False) -> "Tensor":
        """A tensor viewing ``src``'s storage: same base, same version counter (torch's view semantics).

        multi: one of several views made by one op (unbind, split): never modifiable in place under grad mode.
        """
        t = object.__new__(Tensor)
        Tensor._init(t, arr, src._version_counter)
        if src.is_inference():  # torch: a view of an inference tensor is one, in any mode
            t._version_counter = None
        t._base = src._base if src._base is not None else src
        if multi and _grad_state.grad:
            meta = CreationMeta.MULTI_OUTPUT_NODE
        elif _grad_state.grad:
            parent_fn = src._view_fn
            if parent_fn is None:
                t._view_fn = lambda b: fn_cls.apply(b, *rest)
            else:
                t._view_fn = lambda b: fn_cls.apply(parent_fn(b), *rest)
            meta = CreationMeta.DEFAULT
        else:  # torch records how the view was made: modifying it in place under grad mode is then refused
            meta = CreationMeta.INFERENCE_MODE if _grad_state.inference else CreationMeta.NO_GRAD_MODE
        epoch = src._geometry_epoch if src._base is not None else len(src._geometry_inverses)
        if epoch:
            t._geometry_epoch = epoch
        if src._base is not None:
            meta = propagate(src._creation_meta, meta)
        if meta:
            t._creation_meta = meta
        t._view_version = src._version_counter.value if src._version_counter is not None else 0
        return t

    @classmethod
    def _from_saved_output(cls, arr, counter, node, output_nr: int) -> "Tensor":
        t = Tensor._make(arr, counter)
        t._rg = True
        t._grad_fn = node
        t._output_nr = output_nr
        return t

    # ---- autograd state -------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        if self._rg:
            return True
        base = self._base  # torch: a view requires grad when its base does, whatever the mode it was made in
        return base is not None and base._rg

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # torch words the dtype error differently here than in requires_grad_()
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can require gradients")

    def _set_requires_grad(self, value: bool, dtype_error: str) -> None:
        # torch's C++ is_leaf reads the grad_fn field: a view's history is not regenerated (nor refused) here
        if self._grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
            return
        if value and self._array.dtype.kind not in "fV":
            raise RuntimeError(dtype_error)
        if value and self.is_inference() and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
                               "\n\nThis tensor was made under framework.inference_mode(), which records no graph "
                               "for it ever: make a normal copy with `t = t.clone()` first.")
        self._rg = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set requires_grad in place (leaves only) and return self."""
        self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")
        return self

    @property
    def grad_fn(self):
        """The node that created this tensor (None for leaves); views regenerate theirs after in-place ops."""
        if self._base is None:
            return self._grad_fn
        counter = self._version_counter
        if counter is None or self._view_version == counter.value:
            return self._grad_fn
        if self._creation_meta:  # torch: such a view cannot get a new history once its storage changed
            if self._grad_fn is None and not self._base.requires_grad:
                return None
            raise rebase_error(self, indirect=True)
        base = self._base
        if self._view_fn is None or (self._grad_fn is None and not base.requires_grad):
            return self._grad_fn
        # torch: the view is now base.as_strided(...), whose history starts at the base's current one
        self._view_version = counter.value
        old, old_nr = self._grad_fn, self._output_nr
        b = base._array  # torch's gradient is buffer.as_strided(base's geometry): a dense base's memory order
        order = None if b.flags.c_contiguous or not backend.is_non_overlapping_and_dense(b) else \
            preserve_format_order(b.shape, b.strides)
        node = AsStridedBackward0(base._edge(), self._elements_in_base(), tuple(b.shape), self._array.dtype,
                                  backend.may_repeat_memory(self._array), order)
        self._grad_fn, self._output_nr, self._rg = node, 0, True
        if self._retains_grad:  # torch moves retain_grad along to the new node
            self._move_retain_grad_hook(old, old_nr, node, 0)
        return node

    def _elements_in_base(self):
        """The flat positions in the base of this view's elements: its view ops replayed on arange(numel)."""
        base = self._base._array
        with no_grad():
            return self._view_fn_now()(Tensor._make(backend.arange_laid_out_as(base)))._array

    def _view_fn_now(self):
        """This view's ops as a function of its base as it is now: first undo the base's geometry changes
        (``base.t_()``) made since the view was, then replay the view ops."""
        fn, undo = self._view_fn, self._base._geometry_inverses[self._geometry_epoch:]
        if not undo:
            return fn
        if None in undo:
            raise NotImplementedError(
                "this view's base was changed in place by as_strided_() after the view was made\n\n"
                "framework replays a view's ops on its base to route gradients, and as_strided_ cannot be undone "
                "on the base's gradient: make the view after the as_strided_() call, or use as_strided() (out of "
                "place).")

        def replay(b):
            for inverse in reversed(undo):
                b = inverse(b)
            return fn(b)
        return replay

    def _set_history(self, node, output_nr: int) -> None:
        if self._retains_grad:
            self._move_retain_grad_hook(self._grad_fn, self._output_nr, node, output_nr)
        self._grad_fn = node
        self._output_nr = output_nr
        self._rg = True
        if self._base is not None and self._version_counter is not None:
            self._view_version = self._version_counter.value

    def _move_retain_grad_hook(self, old_fn, old_nr: int, new_fn, new_nr: int) -> None:
        """A retained tensor whose grad_fn changes (an in-place op) takes its retain_grad hook along, as torch's
        update_tensor_hooks_on_new_gradfn: the old node, still in older graphs, no longer fills ``.grad``."""
        hooks = old_fn._retain_grad_hooks if old_fn is not None else None
        hook = hooks.pop(old_nr, None) if hooks else None
        if hook is not None and new_fn is not None:
            if new_fn._retain_grad_hooks is None:
                new_fn._retain_grad_hooks = {}
            new_fn._retain_grad_hooks[new_nr] = hook

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user (and anything that does not require grad)."""
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    def _edge(self) -> tuple:
        """(node, input_nr) that gradients for this tensor flow into; (None, 0) if it needs none."""
        if not self._rg and not self.requires_grad:
            return (None, 0)
        fn = self._grad_fn if self._base is None else self.grad_fn
        if fn is not None:
            return (fn, self._output_nr)
        if not self._rg:  # a view without history (made under no_grad): torch gives it no grad accumulator
            return (None, 0)
        acc = self._acc_ref() if self._acc_ref is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc_ref = weakref.ref(acc)
        return (acc, 0)

    @property
    def grad(self):
        # (a view with a creation meta never gets a new grad_fn: read the field, as its getter may raise)
        if self._grad is None and not self._retains_grad and self._rg and \
                (self._grad_fn if self._creation_meta else self.grad_fn) is not None:
            warnings.warn(_NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.dtype is not self.dtype:  # torch checks the dtype before the shape
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_CPP_TYPE_NAMES[value.dtype.name]}' to a tensor "
                    f"with grad_dtype '{self.dtype.legacy[:-len('Tensor')]}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype).\n\n"
                    f"Cast it first: `t.grad = g.to({self.dtype!r})`.")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size")
        self._grad = value

    def _accumulate_grad(self, g: "Tensor", keep_graph: bool, retained: bool = False) -> None:
        """AccumulateGrad / retain_grad: first gradient is copied in, later ones are added.

        As torch: with a graph (create_graph), a leaf's first grad is ``empty.copy_(g)`` (CopyBackwards,
        _version 1), or ``g.clone()`` when the leaf overlaps itself or has gaps (an expand's detach), and a
        retained grad is ``g.clone()``; a later one is ``grad + g``: out of place when a graph is built (or for a
        non-leaf), otherwise in place, which bumps grad's _version (torch's ``grad += new`` under no_grad, even
        when grad itself requires grad).
        """
        if self._grad is None:
            if not keep_graph:
                home, slot = GRAD_HOMES.get(id(self)) if GRAD_HOMES else None, None
                bucket = home[0]() if home is not None and self._grad_fn is None else None
                if bucket is not None:  # one copy, into the optimizer's flat gradient
                    slot = bucket.grad_slot(home[1], g._array)
                # _version as torch's: it steals a gradient only the engine holds (refs here: the engine's list,
                # this argument, getrefcount's) that has the leaf's layout, keeping its version; else it copies
                # it into a new tensor of the leaf's strides (version 1) or clones it (0)
                # (a stolen gradient keeps its version counter too: a slice of cat's or stack's gradient shares
                # it with the other inputs' slices, so that accumulating into one bumps them all)
                # (the copy has the stolen gradient's layout, or the leaf's: torch's new_empty_strided(leaf's
                # sizes, leaf's strides), C order for a leaf with gaps or stride-0 dims)
                counter, like = None, self._array
                if retained:  # torch's retain_grad hook clones
                    version = 0
                elif sys.getrefcount(g) <= 3 and backend.obeys_layout_contract(g._array, self._array):
                    version, counter, like = 0, g._version_counter, g._array
                    if slot is None and backend.stealable(g._array):
                        slot = g._array  # stolen: the same memory (two slices of one stack gradient alias, as torch's)
                else:
                    version = int(backend.is_non_overlapping_and_dense(self._array))
                if slot is None:
                    slot = g._array.copy() if retained else backend.copy_laid_out_as(g._array, like)
                if not slot.size:  # an empty grad has torch's strides: the stolen one's, or (torch's copy,
                    # new_empty_strided) the variable's
                    slot = backend.empty_strided(slot, tuple(s * slot.itemsize for s in backend.torch_strides(like)))
                self._grad = Tensor._make(slot, counter)
                if version and self._grad._version_counter is not None:
                    self._grad._version_counter.value = version
            elif retained or self.grad_fn is not None:  # a non-leaf (retain_grad, backward(inputs=)): clone
                self._grad = g.clone(memory_format=dtypes.contiguous_format)  # torch's retain_grad hook
            elif not backend.is_non_overlapping_and_dense(self._array):  # torch's clone_obey_contract: a leaf
                # with stride-0 dims (an expand's detach) gets CloneBackward0
                self._grad = g.clone(memory_format=dtypes.contiguous_format)
            else:
                xp = backend.get_array_module(g._array)  # torch's new_empty_strided(leaf's sizes, strides)
                empty = backend.copy_laid_out_as(xp.empty(g._array.shape, dtype=g._array.dtype), self._array)
                self._grad = Tensor._make(empty).copy_(g)
        elif keep_graph or retained or self.grad_fn is not None:  # with a graph, or a non-leaf's hook: out of place
            self._grad = self._grad + g
        else:
            self._grad._array += g._array
            if self._grad._version_counter is not None:
                self._grad._version_counter.bump("AccumulateGrad")

    def retain_grad(self) -> None:
        """Make backward fill ``.grad`` for this non-leaf tensor too."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:  # a leaf, as torch's C++ is_leaf (the field) says
            return
        fn = self.grad_fn
        self._retains_grad = True
        ref = weakref.ref(self)

        def retain(grad):
            t = ref()
            if t is not None:
                t._accumulate_grad(grad, keep_graph=is_grad_enabled(), retained=True)

        if fn._retain_grad_hooks is None:
            fn._retain_grad_hooks = {}
        fn._retain_grad_hooks[self._output_nr] = retain

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def register_hook(self, hook) -> RemovableHandle:
        """hook(grad) runs when this tensor's gradient is computed; it may return a replacement."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._orphan_hooks is not None:  # torch reads grad_fn only for the first hook: these never run
            self._orphan_hooks.append(hook)
            return RemovableHandle(self._orphan_hooks, hook)
        if self._hooks is not None:  # the first hook found no grad_fn: later ones join it without reading grad_fn
            self._hooks.append(hook)  # (which may raise by now: a no-grad view whose base was since modified)
            return RemovableHandle(self._hooks, hook)
        try:
            fn = self.grad_fn
        except RuntimeError:  # a stale no-grad view: torch made its hook dict before grad_fn raised
            self._orphan_hooks = []
            raise
        if fn is None:
            if self._hooks is None:
                self._hooks = []
            self._hooks.append(hook)
            return RemovableHandle(self._hooks, hook)
        return fn._add_tensor_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """hook(tensor) runs after backward has accumulated into this leaf's ``.grad`` (DDP's trigger)."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = []
        self._post_accumulate_grad_hooks.append(hook)
        return RemovableHandle(self._post_accumulate_grad_hooks, hook)

    def detach(self) -> "Tensor":
        """Same storage and version counter, no history, requires_grad=False."""
        if self.is_inference():
            return self._detached_inference_tensor()
        return Tensor._make(self._array, self._version_counter)

    def _detached_inference_tensor(self) -> "Tensor":
        """detach() or .data of an inference tensor: still one (torch's is_inference() says True), in any mode."""
        t = Tensor._make(self._array)  # inside inference_mode: no counter, as any tensor made there
        t._detached_inference = t._version_counter is not None
        return t

    def detach_(self) -> "Tensor":
        """Cut this tensor from its history in place."""
        if self._base is not None:  # any view, however it was made (torch: is_view())
            raise RuntimeError(  # torch's text, word for word (DDP's bucket views are views too)
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn, self._rg, self._output_nr = None, False, 0
        return self

    @property
    def data(self) -> "Tensor":
        """Same storage, *own* version counter: in-place changes through it go unnoticed by autograd."""
        if self.is_inference():
            return self._detached_inference_tensor()
        # a normal tensor, even inside inference_mode (torch); its array is a new view of the same memory, so that an
        # op given both x and x.data saves each as itself (its own version counter is then checked in backward)
        return Tensor._make(self._array.view(), VersionCounter())

    @data.setter
    def data(self, value: "Tensor") -> None:
        self._array = value._array

    @property
    def _version(self) -> int:
        if self._version_counter is None:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.value

    def is_inference(self) -> bool:
        return self._version_counter is None or self._detached_inference

    # ---- metadata -------------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._array.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._array.shape)
        return self._array.shape[dim]

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy_dtype(self._array.dtype)

    @property
    def device(self) -> str:
        return backend.device_of(self._array)

    @property
    def is_cuda(self) -> bool:
        return self.device != "cpu"

    @property
    def is_cpu(self) -> bool:
        return self.device == "cpu"

    # devices framework never uses; scripts test them (dcgan: `input.is_cuda or input.is_xpu`)
    is_xpu = is_mps = is_meta = property(lambda self: False)

    def get_device(self) -> int:
        """The CUDA device index, -1 on the CPU (torch's convention)."""
        return -1 if self.device == "cpu" else int(str(self.device).partition(":")[2] or 0)

    @property
    def ndim(self) -> int:
        return self._array.ndim

    def dim(self) -> int:
        return self._array.ndim

    ndimension = dim

    def numel(self) -> int:
        return int(self._array.size)

    def nelement(self) -> int:
        return int(self._array.size)

    def element_size(self) -> int:
        return self._array.itemsize

    def is_floating_point(self) -> bool:
        return self._array.dtype.kind in "fV"

    def is_contiguous(self) -> bool:
        return bool(self._array.flags.c_contiguous)

    def data_ptr(self) -> int:
        return backend.get_array_module(self._array).asarray(self._array).__array_interface__["data"][0] \
            if backend.device_of(self._array) == "cpu" else self._array.data.ptr

    def stride(self, dim: int | None = None):
        st = backend.torch_strides(self._array)
        return st if dim is None else st[dim]

    def __len__(self) -> int:
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self):
        if self._array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._array.shape[0]))

    def __hash__(self) -> int:
        return id(self)

    def __deepcopy__(self, memo):
        """A new leaf with copied data (and grad); like torch, only leaves can be deep-copied."""
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        new = object.__new__(type(self))
        Tensor._init(new, self._array.copy())
        new._rg = self._rg
        if self._grad is not None:
            new._grad = Tensor._make(self._grad._array.copy())
        memo[id(self)] = new
        return new

    # ---- conversion -----------------------------------------------------------------------------
    def _numpy_view(self) -> np.ndarray:
        return backend.to_numpy(self._array)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """np.asarray(t) / np.array(t): numpy()'s array (so its refusals: requires grad, not on the CPU), as torch.

        Without it NumPy would read the tensor as a sequence of 0-d tensors (an object array for np.array(t))."""
        arr = self.numpy()
        if dtype is not None:
            return arr.astype(dtype, copy=bool(copy))
        return arr.copy() if copy else arr

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The data as a numpy array sharing memory (CPU only; refuses tensors that require grad)."""
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if self.device != "cpu":
            if not force:
                raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.")
            return backend.to_numpy(self._array)
        if backend._recorder is not None:  # framework.compile: the caller holds the buffer from here on
            backend._recorder.host_read(self._array, "numpy()")
        return self._array

    def item(self):
        vmap_state.check_item()  # (inside framework.func.vmap, when called from user code)
        return self._item()

    def _item(self):
        if self._array.size != 1:
            raise RuntimeError(f"a Tensor with {self._array.size} elements cannot be converted to Scalar")
        return self._array.reshape(()).item()

    def tolist(self):
        if backend._recorder is not None:  # framework.compile: a graph break, named as the user wrote it
            backend._recorder.host_read(self._array, ".tolist()")
        return backend.to_numpy(self._array).tolist()

    def __float__(self) -> float:
        vmap_state.check_item()
        return float(self._item())

    def __int__(self) -> int:
        vmap_state.check_item()
        return int(self._item())

    def __index__(self) -> int:
        if self._array.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._item())

    def __bool__(self) -> bool:
        if self._array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        if backend._recorder is not None:  # framework.compile: Python control flow on a tensor's value
            backend._recorder.host_read(self._array, "bool(tensor)")
        return bool(self._item())

    def __repr__(self) -> str:
        if backend._recorder is not None:  # framework.compile: printing reads the values
            backend._recorder.host_read(self._array, "printing a tensor")
        return tensor_str(self)

    def __format__(self, spec: str) -> str:
        if self._array.ndim == 0 and spec:
            return self.item().__format__(spec)
        return repr(self)

    # ---- dtype / device (``to`` itself is an op: _tensor_methods binds it) -----------------------
    def type(self, dtype=None):
        """Without argument: the legacy type name ('framework.FloatTensor'); with one: a cast."""
        if dtype is None:
            return f"framework.{self.dtype.legacy}"
        if isinstance(dtype, str):
            name = dtype.split(".")[-1]
            match = [d for d in dtypes.ALL if d.legacy == name]
            if not match:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = match[0]
        elif isinstance(dtype, type) and issubclass(dtype, Tensor) and hasattr(dtype, "_legacy_dtype"):
            dtype = dtype._legacy_dtype
        return self.to(dtype)

    def type_as(self, other: "Tensor") -> "Tensor":
        return self.to(other.dtype)

    def float(self) -> "Tensor":
        return self.to(dtypes.float32)

    def double(self) -> "Tensor":
        return self.to(dtypes.float64)

    def half(self) -> "Tensor":
        return self.to(dtypes.float16)

    def bfloat16(self) -> "Tensor":
        return self.to(dtypes.bfloat16)

    def long(self) -> "Tensor":
        return self.to(dtypes.int64)

    def int(self) -> "Tensor":
        return self.to(dtypes.int32)

    def bool(self) -> "Tensor":
        return self.to(dtypes.bool_)

    def cpu(self) -> "Tensor":
        return self.to(device="cpu")

    def cuda(self, device=None) -> "Tensor":
        return self.to(device="cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))


_norm_device = backend.norm_device  # the old name, for code that still imports it from here
