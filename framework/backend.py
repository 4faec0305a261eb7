"""The array backend: the only module that touches numpy/cupy directly by name.

Every op asks ``get_array_module(array)`` for ``xp`` (numpy or cupy), as DeZero and Chainer do,
so one op body serves both devices.  cupy is imported lazily, only when a CUDA device is asked for.
"""
from __future__ import annotations

import contextlib
import ctypes
import importlib
import math
import os
import platform
import sys
from typing import Any

import numpy as np

Array = Any  # a numpy.ndarray or a cupy.ndarray

_cupy = None
_cupyx = None
_default_device = "cpu"

# While framework.compile captures a step, its recorder (framework/compile/_record.py) sits here: get_array_module
# then hands out its recording stand-in for numpy, and the random generator and host reads report to it.
_recorder = None


# glibc's malloc returns the freed top of its heap to the OS as soon as more than ~256 KiB is free there, and
# then page-faults it back on the next allocation.  An eager training step frees its whole graph at the end of
# backward, so every step paid that round trip (the GAN bench step: 160 page faults; 5.3 ms against 3.0 ms without
# them, back to back on a shared 2-core machine).  We fix the
# two thresholds at the values glibc's own dynamic scheme tops out at (mmap above 32 MiB, trim above 64 MiB of
# free heap): at most 64 MiB of freed memory stays with the process.  FRAMEWORK_MALLOC_TUNING=0 turns it off.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameter numbers (malloc.h)


def keep_freed_memory(mmap_threshold: int = 32 << 20, trim_threshold: int = 64 << 20) -> bool:
    """Set glibc's malloc thresholds so a training loop reuses its freed heap instead of page-faulting it back;
    True when applied (a glibc Linux process and FRAMEWORK_MALLOC_TUNING not '0')."""
    if os.environ.get("FRAMEWORK_MALLOC_TUNING", "1") == "0" or platform.system() != "Linux" \
            or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, mmap_threshold)) and \
            bool(libc.mallopt(_M_TRIM_THRESHOLD, trim_threshold))
    except (OSError, AttributeError):  # no mallopt in this C library
        return False


MALLOC_TUNED = keep_freed_memory()


def _import_cupy():
    global _cupy
    if _cupy is None:
        # FRAMEWORK_CUPY names a module to use in cupy's place (tests' strict CPU stand-in); import on demand only
        use_cupy(importlib.import_module(os.environ.get("FRAMEWORK_CUPY", "cupy")))
    return _cupy


def use_cupy(module) -> None:
    """Hand out ``module`` as the GPU array module (for tests: a CuPy stand-in with a ``cupyx`` attribute)."""
    global _cupy, _cupyx
    _cupy = module
    _cupyx = getattr(module, "cupyx", None)


def _import_cupyx():
    global _cupyx
    if _cupyx is None:
        _cupyx = importlib.import_module("cupyx")  # cupy's companion package, imported with cupy on demand
    return _cupyx


def set_default_device(device: str) -> None:
    """The device factories (zeros, tensor, randn, layers' parameters) use when none is given."""
    global _default_device
    _default_device = device


def get_default_device() -> str:
    return _default_device


def cupy_available() -> bool:
    """True when cupy imports and sees at least one CUDA device."""
    try:
        cp = _import_cupy()
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def get_array_module(array: Array):
    """numpy for numpy arrays and scalars, cupy for cupy arrays."""
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return _cupy
    return np if _recorder is None else _recorder.xp


def host_array_module():
    """numpy, for arrays made on the host (factories); while framework.compile captures, its recording stand-in."""
    return np if _recorder is None else _recorder.xp


@contextlib.contextmanager
def input_check():
    """Around a check of the inputs' values that only raises (a target out of range): while framework.compile
    captures, its host reads are no graph break; the check runs at capture, not at every replay."""
    rec = _recorder
    if rec is not None:
        rec.suppress += 1
    try:
        yield
    finally:
        if rec is not None:
            rec.suppress -= 1


def hook_called(fn) -> None:
    """Just before a user hook runs: while framework.compile captures, a hook is a graph break (its Python side
    effects would happen at capture only) unless ``framework.compile.array_only`` marked it as array work only."""
    if _recorder is not None and not getattr(fn, "_array_only", False):
        _recorder.host_read(None, f"the hook {getattr(fn, '__qualname__', fn)!s} (its Python side effects would run "
                                  "at capture only; mark it with framework.compile.array_only if it only does array "
                                  "work)")


def graph_break(what: str) -> None:
    """While framework.compile captures: ``what`` runs Python a replay cannot repeat (e.g. checkpoint's recompute
    with its RNG state restored), so the step breaks the capture and runs eagerly (fullgraph=True: an error)."""
    if _recorder is not None:
        _recorder.host_read(None, what)


def gradient_copied() -> None:
    """Just after a leaf's gradient was copied into its slot of an optimizer's flat gradient buffer: while
    framework.compile captures, the call that computed the gradient may write into the slot instead (a gradient
    the engine hands to AccumulateGrad is kept by nobody else; framework/compile/_passes.py checks the rest)."""
    if _recorder is not None and not _recorder.suppress:
        _recorder.foldable.add(len(_recorder.calls) - 1)


def dynamic_scalar(compute, dtype):
    """A per-step scalar (lr, Adam's bias corrections): ``compute()`` as a Python float when running eagerly.

    While a step is captured it is a 0-d array of ``dtype`` (the dtype a Python float operand is cast to, so the
    arithmetic is bit-for-bit the same) that the recording refills with ``compute()`` at every replay: such values
    are inputs of the recording, never constants in it (torch's capturable optimizers keep them on the device).
    """
    if _recorder is None:
        return compute()
    return _recorder.scalar_slot(compute, dtype)


def device_of(array: Array) -> str:
    """'cpu' or 'cuda:N' for the array's device."""
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return f"cuda:{array.device.id}"
    return "cpu"


def xp_for_device(device: str):
    """The array module that holds arrays on ``device``."""
    return np if device == "cpu" else _import_cupy()


def check_gpu_dtype(dtype, device: str) -> None:
    """CuPy has no bfloat16: refuse to put one on a GPU with a clear error (instead of CuPy's own, later)."""
    if device != "cpu" and getattr(dtype, "name", None) == "bfloat16":
        raise TypeError(f"bfloat16 is not supported on {device}: framework's GPU arrays are CuPy's, which has no "
                        "bfloat16 dtype; keep bfloat16 tensors on the CPU or use float16/float32 on the GPU")


def to_device(array: Array, device: str) -> Array:
    """Copy ``array`` to ``device`` ('cpu' or 'cuda:N'); no copy when it is already there."""
    if device_of(array) == device:
        return array
    if device == "cpu":
        return array.get()
    check_gpu_dtype(array.dtype, device)
    if not cupy_available():
        raise RuntimeError(f"cannot move a tensor to {device}: no CUDA device is available "
                           "(framework needs cupy, e.g. pip install cupy-cuda12x, and an NVIDIA GPU)")
    cp = _import_cupy()
    with cp.cuda.Device(int(device.split(":")[1]) if ":" in device else 0):
        return cp.asarray(array)


def to_numpy(array: Array) -> np.ndarray:
    """A numpy array with the same values (a copy when the array lives on a GPU)."""
    if _recorder is not None:
        _recorder.host_read(array, "numpy()")
    if isinstance(array, np.ndarray):
        return array
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return array.get()
    return np.asarray(array)


def data_ptr(array: Array) -> int:
    """The address of the array's first element (numpy, cupy and the CuPy-like stand-ins)."""
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr


def _dense(array: Array) -> bool:
    """torch's is_non_overlapping_and_dense: the elements tile one contiguous block (in some dim order).

    As torch's, a dim of size 1 has any stride, and an empty array is contiguous whatever its strides."""
    if array.size == 0:
        return True
    dims = sorted((st, n) for st, n in zip(array.strides, array.shape) if n > 1)
    need = array.itemsize
    for st, n in dims:
        if st != need:
            return False
        need *= n
    return True


def arange_laid_out_as(array: Array) -> Array:
    """arange(array.size) in ``array``'s shape (each value its element's C-order position), laid out in memory as
    ``array`` is when dense in some dim order: ops that address memory (as_strided) replay on it as on ``array``."""
    xp = get_array_module(array)
    index = xp.arange(array.size).reshape(array.shape)
    if array.flags.c_contiguous or not _dense(array):
        return index
    order = sorted(range(array.ndim), key=lambda d: -array.strides[d])  # outermost in memory first
    return index.transpose(order).copy().transpose([order.index(d) for d in range(array.ndim)])


def is_non_overlapping_and_dense(array: Array) -> bool:
    """torch's is_non_overlapping_and_dense (no stride-0 dims, no gaps), for callers above the backend."""
    return _dense(array)


def contiguous_strides(shape: tuple, itemsize: int) -> tuple:
    """torch's contiguous strides in bytes: an empty dim steps as a size-1 one (a (2, 0) tensor's are (1, 1))."""
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def empty_as_torch(array: Array, fresh: bool = False) -> Array:
    """An empty array NumPy has just made (no base, all strides 0) restrided to torch's contiguous strides.

    An empty array addresses no memory, so its strides are free to hold torch's: views of it then step as torch's
    do (a transposed (0, 3) is (1, 3)), and AccumulateGrad's layout contract compares what torch compares. An
    array with a base (an expand, a view, one marked by ``empty_strided``) keeps its strides, zeros included,
    unless it is ``fresh``: an op's new result that NumPy made as a view of an array of its own (fancy indexing)."""
    if any(array.strides) or (array.base is not None and not fresh):
        return array
    return get_array_module(array).lib.stride_tricks.as_strided(array, array.shape,
                                                                 contiguous_strides(array.shape, array.itemsize))


def empty_strided(array: Array, strides: tuple) -> Array:
    """A view of an empty ``array`` with ``strides`` (bytes) as torch's: a tensor made from an empty ndarray keeps
    NumPy's strides, zeros included, and a copied gradient takes its variable's."""
    return get_array_module(array).lib.stride_tricks.as_strided(array, array.shape, strides)


def torch_strides(array: Array) -> tuple:
    """The array's strides in elements, as torch's: an empty array NumPy made and nothing restrided (no base, all
    strides 0) has torch's contiguous strides."""
    if not array.size and array.base is None and not any(array.strides):
        return tuple(s // array.itemsize for s in contiguous_strides(array.shape, array.itemsize))
    return tuple(s // array.itemsize for s in array.strides)


def obeys_layout_contract(grad: Array, variable: Array) -> bool:
    """torch's obeys_layout_contract: a dense variable's gradient has its strides (a size-1 dim any but 0), any
    other variable's is C-contiguous."""
    if not _dense(variable):
        return bool(grad.flags.c_contiguous)
    if not variable.size:  # an empty array's strides are torch's (empty_as_torch), or NumPy's zeros for it
        gst, vst = torch_strides(grad), torch_strides(variable)
    else:
        gst, vst = grad.strides, variable.strides
    return all(gs == vs if n != 1 else gs != 0 for n, gs, vs in zip(grad.shape, gst, vst))


def row_major(out: Array) -> Array:
    """``out`` with torch's contiguous strides exactly, a size-1 dim's too (the product of the sizes inside it):
    a reduction's fresh result.  NumPy's keepdims sum of a transposed array keeps the input's order, and gives a
    kept dim the stride it had; copied only when the strides differ."""
    return out if out.size == 0 or contiguous_strides(out.shape, out.itemsize) == out.strides else out.copy()


def copy_laid_out_as(src: Array, like: Array) -> Array:
    """A copy of ``src`` with ``like``'s memory layout where ``like`` is dense, else C-contiguous: torch's
    ``new_empty_strided(like.sizes(), like.strides()).copy_(src)`` in AccumulateGrad's clone_obey_contract."""
    if src.shape != like.shape:
        return src.copy()
    if like.flags.c_contiguous:  # the common case (a size-1 dim's stride, which NumPy's flag ignores, kept too)
        out = src.copy()
        return out if 1 not in out.shape else keep_size1_strides(out, like)
    if not _dense(like):
        return src.copy()
    order = sorted(range(like.ndim), key=lambda d: -like.strides[d])  # outermost in memory first
    out = get_array_module(src).empty([src.shape[d] for d in order], dtype=src.dtype)
    out = out.transpose([order.index(d) for d in range(like.ndim)])
    out[...] = src
    return keep_size1_strides(out, like)


def keep_size1_strides(out, like):
    """``out`` with ``like``'s strides on its size-1 dims when the two share one dense layout otherwise: torch's
    preserve_format copy of a dense tensor keeps its strides exactly (a channels_last N,C,1,1 tensor's clone stays
    (C, 1, C, C)); those dims' strides address nothing, so the restrided view reads the same memory."""
    if 1 not in out.shape or out.size == 0:
        return out
    want = tuple(s // like.itemsize * out.itemsize for s in like.strides)
    if want == out.strides or min(want) < 0:
        return out
    if any(w != s for w, s, n in zip(want, out.strides, out.shape) if n != 1):
        return out
    return get_array_module(out).lib.stride_tricks.as_strided(out, out.shape, want)


def memory_overlap(a: Array, b: Array) -> str:
    """torch's get_overlap_status for two arrays of one storage: "full", "partial", "no" or "too_hard".

    Only called for arrays with the same owner (``base``); like torch, a non-dense array is "too hard" to judge.
    """
    if a is b:
        return "full"
    if a.size == 0 or b.size == 0:
        return "no"
    if not (_dense(a) and _dense(b)):
        return "too_hard"
    a0, b0 = data_ptr(a), data_ptr(b)
    a1, b1 = a0 + a.size * a.itemsize, b0 + b.size * b.itemsize
    if a0 == b0 and a1 == b1:
        return "full" if a.strides == b.strides else "partial"
    return "partial" if a0 < b1 and b0 < a1 else "no"


def as_array(value) -> Array:
    """A NumPy scalar (what NumPy's arithmetic on 0-d arrays returns) as a 0-d array; arrays pass through."""
    return np.asarray(value) if isinstance(value, np.generic) else value


def errstate(xp, **kwargs):
    """numpy's errstate (silence 0/0, log(0) warnings inside an op); a no-op for cupy, which has none."""
    if _cupy is None or xp is not _cupy:  # numpy, or framework.compile's recording stand-in for it
        return np.errstate(**kwargs)
    return contextlib.nullcontext()


def broadcast_view(a: Array, shape: tuple) -> Array:
    """``a`` broadcast to ``shape`` as a view, writeable as torch's expand() is: in-place ops refuse to write where
    its elements repeat (``repeats_memory``), but a view of it that repeats none (``e[0]``) can be written."""
    shape = tuple(shape)
    # the same elements in a new shape: a reshape, as torch's expand strides (a 0-d array's new dims: stride 0)
    if a.ndim and a.size == math.prod(shape) and [d for d in a.shape if d != 1] == [d for d in shape if d != 1]:
        return a.reshape(shape)
    out = get_array_module(a).broadcast_to(a, shape)
    flags = getattr(out, "flags", None)
    if not getattr(flags, "writeable", True) and a.flags.writeable:  # NumPy's broadcast_to is read-only
        out.flags.writeable = True
    return out


def same_data(a: Array, b: Array) -> bool:
    """Whether b is a's very memory (same start, strides, shape and dtype): torch's copy_ then returns at once,
    before its overlap checks, as copying would change nothing."""
    return a is b or (a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype and
                      memory_owner(a) is memory_owner(b) and data_ptr(a) == data_ptr(b))


def repeats_memory(a: Array) -> bool:
    """torch's has_internal_overlap == YES: a dim of size > 1 with stride 0 (several elements, one memory)."""
    return a.size > 0 and any(st == 0 and n > 1 for n, st in zip(a.shape, a.strides))  # empty: nothing repeats


def memory_owner(a: Array):
    """The object that owns ``a``'s memory: its base, followed through NumPy's as_strided wrapper (an array whose
    base is a DummyArray holding the array viewed)."""
    while getattr(a, "base", None) is not None:
        a = a.base
    return a


def restrided_alone(a: Array) -> bool:
    """Whether ``a`` is keep_size1_strides' (or empty_as_torch's) restriding of an array nothing else holds: what
    torch makes with empty_strided, memory of its own (the strides differ only on size-1 dims, or the array is
    empty: what differs addresses nothing)."""
    owner = memory_owner(a)
    if owner is a or getattr(owner, "shape", None) != a.shape or owner.strides == a.strides or \
            data_ptr(owner) != data_ptr(a):
        return False
    if a.size and any(s != t for s, t, n in zip(a.strides, owner.strides, a.shape) if n != 1):
        return False
    return sys.getrefcount(owner) <= 3  # the base link of a (or NumPy's DummyArray), this name, getrefcount's own


def stealable(a: Array) -> bool:
    """Whether a gradient's array may become a leaf's ``.grad`` itself, as torch's AccumulateGrad steals the tensor
    it alone holds: writeable, and either a view (its memory shared as torch's views share theirs: a slice of cat's
    or stack's gradient) or an array no other wrapper or view holds."""
    if not getattr(getattr(a, "flags", None), "writeable", True):
        return False  # (NumPy's broadcast views: torch's expand would be writeable, so it is copied instead)
    return getattr(a, "base", None) is not None or sys.getrefcount(a) <= 3  # the Tensor's, this name, the call's


def may_repeat_memory(a: Array) -> bool:
    """Whether two elements of ``a`` might share memory (an expand, or an overlapping as_strided): False only when
    its dims, sorted by stride, each step past all the memory the smaller ones span."""
    if a.size == 0:  # nothing to repeat (NumPy gives an empty array's dims stride 0)
        return False
    span = 0
    for st, n in sorted((abs(st), n) for n, st in zip(a.shape, a.strides) if n > 1):
        if st <= span:
            return True
        span += st * (n - 1)
    return False


def scatter_add(target: Array, index, values: Array) -> None:
    """target[index] += values, accumulating repeated indices (np.add.at / cupyx.scatter_add)."""
    if _cupy is None or not isinstance(target, _cupy.ndarray):
        np.add.at(target, index, values)
    else:
        _import_cupyx().scatter_add(target, index, values)


def scatter_reduce(target: Array, index, values: Array, op: str) -> None:
    """target[index] = op(target[index], values), folding repeated indices in one by one (``np.<op>.at``);
    op is 'add', 'multiply', 'maximum' or 'minimum'."""
    if _cupy is None or not isinstance(target, _cupy.ndarray):
        getattr(np, op).at(target, index, values)
    elif op == "add":
        _import_cupyx().scatter_add(target, index, values)
    else:  # CuPy has no ufunc.at for every op on every version: fold in rounds with no repeat within a round
        _scatter_in_rounds(target, index, values, getattr(_cupy, op))


def _scatter_in_rounds(target: Array, index, values: Array, ufunc) -> None:
    """target[index] = ufunc(target[index], values) with repeated indices folded in order: sort the flat
    destinations (stably), number each one's repeats, and apply the k-th repeats of all destinations at once."""
    xp = get_array_module(target)
    flat = target.reshape(-1)  # target is a fresh contiguous copy in every caller: this is a view of it
    parts = index if isinstance(index, tuple) else (index,)
    strides = [math.prod(target.shape[k + 1:]) for k in range(target.ndim)]
    dest = sum(xp.asarray(p, dtype=np.int64) * st for p, st in zip(parts, strides))
    dest, values = xp.broadcast_arrays(dest, xp.asarray(values))
    dest, values = dest.reshape(-1), values.reshape(-1)
    order = xp.argsort(dest, kind="stable")
    dest, values = dest[order], values[order]
    repeat = xp.arange(dest.size) - xp.searchsorted(dest, dest, side="left")
    for k in range(int(repeat.max()) + 1 if dest.size else 0):
        pick = repeat == k
        flat[dest[pick]] = ufunc(flat[dest[pick]], values[pick])


def norm_device(device) -> str:
    """'cpu', 'cuda' -> 'cuda:0', 'cuda:1', framework.device objects."""
    d = str(device)
    if d == "cuda":
        return "cuda:0"
    if d == "cpu" or d.startswith("cuda:"):
        return d
    raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {d}")


class device(str):
    """torch.device as a str subclass: it compares, hashes and prints as its name ('cpu', 'cuda:0'), so it goes
    wherever framework takes a device string, and has torch's ``type`` and ``index`` (scripts test
    ``device.type == 'cuda'``).  ``device('cuda')`` is 'cuda:0' here (framework names the GPU it uses)."""

    def __new__(cls, type_or_spec="cpu", index: int | None = None):
        spec = str(type_or_spec) if index is None else f"{type_or_spec}:{int(index)}"
        return super().__new__(cls, norm_device(spec))

    @property
    def type(self) -> str:
        return self.partition(":")[0]

    @property
    def index(self) -> int | None:
        return int(self.partition(":")[2]) if ":" in self else None


_kernels: dict = {}


def elementwise_kernel(in_params: str, out_params: str, operation: str, name: str, options: tuple = ()):
    """A cupy.ElementwiseKernel (one fused GPU kernel over arrays of any shape), built once per source and kept."""
    key = (in_params, out_params, operation, name, options)
    kernel = _kernels.get(key)
    if kernel is None:
        kernel = _kernels[key] = _import_cupy().ElementwiseKernel(in_params, out_params, operation, name,
                                                                 options=options)
    return kernel


def _on_gpu(array: Array) -> bool:
    """A CuPy array (also the strict stand-in's). Not ``get_array_module(a) is np``: while framework.compile
    captures, that gives the recording stand-in for host arrays."""
    return _cupy is not None and isinstance(array, _cupy.ndarray)


def cast_keeping_repeats(a: Array, dtype) -> Array:
    """a.astype(dtype) where an expanded array (a stride-0 dim of size > 1) stays expanded: NumPy's astype would lay
    the repeated dim innermost, and an elementwise result taking that copy's layout would come out column-major
    where torch's, which keeps the repeat, is row-major. The expanded result is read only, as an expand."""
    repeated = [n > 1 and st == 0 for n, st in zip(a.shape, a.strides)]
    if True not in repeated:
        return a.astype(dtype)
    one = a[tuple(slice(0, 1) if r else slice(None) for r in repeated)].astype(dtype)
    return get_array_module(a).broadcast_to(one, a.shape)


def matmul(a: Array, b: Array, out: Array | None = None) -> Array:
    """a @ b (written into ``out`` when given).  On the host, float16 operands multiply in float32 and round once,
    as torch's CPU kernels (which accumulate in float32): NumPy's float16 matmul has no BLAS (12x slower at
    128x784 @ 784x512) and rounds as it goes.  CuPy's float16 GEMM (cuBLAS, float32 accumulation) runs as it is."""
    if a.dtype.char in "eE" and a.dtype == b.dtype and not _on_gpu(a):  # float16 "e", bfloat16 (ml_dtypes) "E"
        result = (a.astype(np.float32) @ b.astype(np.float32)).astype(a.dtype)
        if out is None:
            return result
        out[...] = result
        return out
    return a @ b if out is None else get_array_module(b).matmul(a, b, out=out)


def tensordot(xp, a: Array, b: Array, axes) -> Array:
    """xp.tensordot(a, b, axes), float16 on the host in float32 as ``matmul`` (the convolutions' products)."""
    if a.dtype.char == "e" and b.dtype.char == "e" and not _on_gpu(a):
        return xp.tensordot(a.astype(np.float32), b.astype(np.float32), axes=axes).astype(np.float16)
    return xp.tensordot(a, b, axes=axes)


# math.erf and math.erfc as (object) ufuncs: a ufunc call on a traced array is recorded by framework.compile,
# where np.vectorize's is not
_ERF_UFUNC = np.frompyfunc(math.erf, 1, 1)
_ERFC_UFUNC = np.frompyfunc(math.erfc, 1, 1)


def _host_ufunc(ufunc, array: Array) -> Array:
    """ufunc (an object ufunc of a math function) elementwise, in array's dtype; 1-d inside, as an object ufunc
    returns a Python number for a 0-d array."""
    if not array.size:
        return array.copy()
    if array.ndim > 1 and not array.flags.c_contiguous and _dense(array):
        # over the dims in memory order, so that a transposed input gives a transposed result (torch's
        # TensorIterator keeps a dense input's layout; reshape(-1) would gather it into C order)
        order = sorted(range(array.ndim), key=lambda d: -array.strides[d])
        moved = array.transpose(order)
        out = ufunc(moved.reshape(-1)).astype(array.dtype).reshape(moved.shape)
        return out.transpose([order.index(d) for d in range(array.ndim)])
    return ufunc(array.reshape(-1)).astype(array.dtype).reshape(array.shape)


def _lgamma_scalar(x: float) -> float:
    """math.lgamma with C's results where Python raises: +inf at the poles (0, negative integers) and on overflow."""
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return math.inf


_LGAMMA_UFUNC = np.frompyfunc(_lgamma_scalar, 1, 1)


def lgamma(array: Array) -> Array:
    """ln|Gamma| elementwise: C's lgamma per element on the CPU (as torch's kernel calls it: exact at subnormal
    and infinite arguments, where SciPy's gammaln overflows), cupyx's gammaln on the GPU."""
    if not _on_gpu(array):
        return _host_ufunc(_LGAMMA_UFUNC, array)
    cp = _import_cupy()
    out = _import_cupyx().scipy.special.gammaln(array)
    # C's values where Cephes's gammaln overflows or differs: -log|x| for tiny x (lgamma(x) = -log|x| - 0.577 x +
    # ..., exact to the last bit below 1e-17), +inf at +-inf
    tiny = (cp.abs(array) < 1e-17) & (array != 0)
    out = cp.where(tiny, -cp.log(cp.abs(array)), out)
    return cp.where(cp.isinf(array), cp.asarray(cp.inf, dtype=out.dtype), out).astype(array.dtype)


def erf(array: Array) -> Array:
    """erf elementwise: math.erf per element on the CPU (exact; NumPy has no erf), cupyx's kernel on the GPU."""
    if not _on_gpu(array):
        return _host_ufunc(_ERF_UFUNC, array)
    return _import_cupyx().scipy.special.erf(array)


def erfc(array: Array) -> Array:
    """erfc = 1 - erf elementwise, without the cancellation for large arguments: math.erfc per element on the
    CPU, cupyx's kernel on the GPU."""
    if not _on_gpu(array):
        return _host_ufunc(_ERFC_UFUNC, array)
    return _import_cupyx().scipy.special.erfc(array)


_scipy_modules: dict = {}  # "special"/"linalg" -> scipy's module, imported on first use (SciPy is slow to import)


def _host_scipy(module: str, name: str):
    """scipy.<module>.<name> for host arrays, its module imported on first use."""
    mod = _scipy_modules.get(module)
    if mod is None:
        try:
            mod = _scipy_modules[module] = importlib.import_module(f"scipy.{module}")
        except ImportError:  # a dependency in setup.cfg; only a hand-made environment lacks it
            raise RuntimeError(f"framework needs SciPy for {name} on the CPU: pip install scipy") from None
    return getattr(mod, name)


def special(name: str, *args) -> Array:
    """scipy.special's ``name`` (a ufunc: gammaln, psi, zeta, i0e, ...) elementwise, in the first array's dtype:
    SciPy's kernel on the CPU (imported on first use), cupyx.scipy.special's on the GPU. Both are ufuncs, so
    framework.compile records them like NumPy's."""
    first = next(a for a in args if hasattr(a, "dtype"))
    fn = getattr(_import_cupyx().scipy.special, name) if _on_gpu(first) else _host_scipy("special", name)
    out = fn(*args)
    if not hasattr(out, "shape") or out.dtype != first.dtype:  # a 0-d input gives a NumPy scalar back
        out = get_array_module(first).asarray(out, dtype=first.dtype)
    return out


def scipy_linalg(name: str, *args, **kwargs):
    """scipy.linalg's ``name`` (lu_factor, lu_solve, solve_triangular) on one matrix: SciPy's on the CPU (imported on
    first use), cupyx.scipy.linalg's on the GPU. SciPy's are no NumPy functions, so a capture by framework.compile
    records the call itself (its replay calls it again on the new values)."""
    first = args[0][0] if isinstance(args[0], tuple) else args[0]  # lu_solve's first argument is (lu, piv)
    fn = getattr(_import_cupyx().scipy.linalg, name) if _on_gpu(first) else _host_scipy("linalg", name)
    if _recorder is not None:
        return _recorder.function(fn, args, kwargs)
    return fn(*args, **kwargs)


# erfinv's starting point: Pavlis's rational approximation (the one torch's calc_erfinv began with), central part
# for |y| <= 0.7, tail part above; Newton steps then bring it to full precision
_ERFINV_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_ERFINV_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_ERFINV_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_ERFINV_D = (3.543889200, 1.637067800)


def erfinv(array: Array) -> Array:
    """The inverse of erf elementwise: cupyx's kernel on the GPU; on the CPU (NumPy has none) Pavlis's rational
    approximation and three Newton steps, in float64 whatever the dtype, then rounded to it.

    Within about one float64 ulp of the exact value (torch's CPU result is correctly rounded; float32 agrees with
    it but for rare last-bit ties). Each step solves erf(x) = |y|, as erfc(x) = 1 - |y| above |y| = 0.5 (1 - |y| is
    exact there), so that the residual keeps its relative precision in the tail up to |y| = 1 - 2**-53.
    """
    if _on_gpu(array):
        return _import_cupyx().scipy.special.erfinv(array)
    dtype = array.dtype if array.dtype.kind in "fV" else np.dtype(np.float32)
    y = array.astype(np.float64)
    a, b, c, d = _ERFINV_A, _ERFINV_B, _ERFINV_C, _ERFINV_D
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = np.abs(y)
        z = t * t
        num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0]
        central = t * num / ((((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1)
        w = np.sqrt(-np.log((1 - t) / 2))
        tail = (((c[3] * w + c[2]) * w + c[1]) * w + c[0]) / ((d[1] * w + d[0]) * w + 1)
        x = np.where(t <= 0.7, central, tail)
        high, q = t > 0.5, 1 - t
        for _ in range(3):
            residual = np.where(high, q - _host_ufunc(_ERFC_UFUNC, x), _host_ufunc(_ERF_UFUNC, x) - t)
            x = x - residual / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
        x = np.where(t == 1, np.inf, np.where(t > 1, np.nan, x))
        return np.copysign(x, y).astype(dtype)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
