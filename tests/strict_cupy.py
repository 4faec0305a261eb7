"""A strict CPU stand-in for CuPy: arrays that fail where CuPy's fail for code written against NumPy.

Selected with ``FRAMEWORK_TEST_DEVICE=strict`` (tests) or ``FRAMEWORK_CUPY=strict_cupy`` (any process, e.g. a
trainer run in a subprocess with this folder on PYTHONPATH); backend.py then hands it out in cupy's place, so
``cuda:0`` tensors hold ``strict_cupy.ndarray``s. The values are computed by NumPy on the CPU; what is modelled is
CuPy's *interface*:

- implicit conversion to NumPy raises CuPy's TypeError (``np.asarray(x)``, ``np.float32(x)``, ``np.where(x, ...)``);
- stricter than CuPy on purpose: any NumPy function or ufunc called on these arrays raises (CuPy forwards some of
  them through ``__array_function__``/``__array_ufunc__``), because the project's rule is "array math through xp";
- module functions exist only where CuPy has them, NumPy-only keywords (``writeable=``, ``where=``, ``initial=``,
  ``like=``, ...) raise, and results are this module's arrays (reductions give 0-d arrays, as CuPy's do);
- NumPy arrays are not accepted as operands (CuPy's ``Unsupported type``), ``.get()`` moves to the host;
- float()/int()/bool()/item() only on size-1 arrays; the device is ``cuda:0``;
- out-of-range integer-array indices wrap around as CuPy's do (NumPy raises), so missing bound checks show.
- ``ElementwiseKernel`` runs the kernel's C source elementwise with NumPy in the kernel's type
  (strict_cupy_kernel.py), so fused GPU kernels run, and are checked, without a GPU.
"""
from __future__ import annotations

import math
import sys
import types

import numpy as np

from strict_cupy_kernel import ElementwiseKernel  # noqa: F401
from strict_cupy_array import (IMPLICIT, _Device, _check_keywords, _first_array, _to_numpy_args, _wrap,  # noqa: F401
                               _wrap_index, _wrapped_key, ndarray)

# Module-level names CuPy has (a subset of NumPy's; what framework, models and train may use).
CUPY_FUNCTIONS = set("""
abs absolute add all allclose amax amin any arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax
argmin argsort around round_ array array_equal asarray ascontiguousarray atleast_1d atleast_2d atleast_3d bincount
bitwise_and bitwise_not bitwise_or bitwise_xor broadcast_arrays broadcast_to cbrt ceil clip concatenate copy
copysign cos cosh count_nonzero cumprod cumsum deg2rad diag diagonal diff divide dot einsum empty empty_like equal
exp exp2 expand_dims expm1 eye flatnonzero flip floor floor_divide fmax fmin fmod frexp full full_like greater
greater_equal hstack hypot identity inner invert isclose isfinite isinf isnan kron less less_equal linspace log log10
log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor matmul max maximum mean min minimum mod
moveaxis multiply nan_to_num nanmax nanmin nansum ndim negative nonzero not_equal ones ones_like outer pad
power prod put_along_axis rad2deg ravel reciprocal remainder repeat reshape rint roll rollaxis round searchsorted
sign signbit sin sinh sort split sqrt square squeeze stack std subtract sum swapaxes take take_along_axis tan tanh
tensordot tile trace transpose tri tril triu true_divide trunc unique var vstack where zeros zeros_like
sinc gcd lcm left_shift right_shift nextafter
""".split())
# Names that are not functions on arrays: dtypes, constants, type helpers (CuPy re-exports NumPy's).
PASSTHROUGH = set("""
bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 complex64 complex128 dtype
finfo iinfo result_type promote_types can_cast isscalar newaxis inf nan pi e integer floating number generic
signedinteger unsignedinteger inexact shape
""".split())
WRAP_INDEX_FUNCTIONS = {"take", "take_along_axis", "put_along_axis"}


# ---- module functions --------------------------------------------------------------------------------------
def _function(name: str):
    np_fn = getattr(np, name)

    def call(*args, **kwargs):
        _check_keywords(name, kwargs)
        source = _first_array(args)
        args, kwargs = _to_numpy_args(args), _to_numpy_args(kwargs)
        if name in WRAP_INDEX_FUNCTIONS:
            args = _wrap_index_args(name, args, kwargs)
        return _wrap(np_fn(*args, **kwargs), source)

    call.__name__ = name
    return call


def _wrap_index_args(name, args, kwargs):
    """take/take_along_axis/put_along_axis with CuPy's wrap-around of out-of-range indices."""
    a, indices = args[0], args[1]
    at = 3 if name == "put_along_axis" else 2  # where the axis sits among the positional arguments
    axis = kwargs.get("axis", args[at] if len(args) > at else None)
    n = a.size if axis is None else a.shape[axis]
    return (a, _wrap_index(np.asarray(indices), n)) + tuple(args[2:])


def asarray(a, dtype=None, order=None):
    """Host data or our arrays -> our array (NumPy arrays are accepted here, as by cupy.asarray)."""
    if isinstance(a, ndarray):
        return a if dtype is None or a.dtype == dtype else ndarray(a._a.astype(dtype))
    return ndarray(np.array(_to_numpy_args(a, allow_numpy=True), dtype=dtype))


def array(obj, dtype=None, copy=True, order="K", ndmin=0):
    return ndarray(np.array(_to_numpy_args(obj, allow_numpy=True), dtype=dtype, ndmin=ndmin))


def asnumpy(a, stream=None):
    return a.get() if isinstance(a, ndarray) else np.asarray(a)


def get_array_module(*args):
    return _module


def _as_strided(x, shape=None, strides=None):
    """cupy.lib.stride_tricks.as_strided: no ``writeable`` (or ``subok``) keyword; the view is writeable where x is,
    as CuPy's (CuPy has no read-only arrays: torch's writeable diagonal and as_strided views rely on it)."""
    return _wrap(np.lib.stride_tricks.as_strided(x._a, shape, strides), x)


def _strided(x, shape=None, strides=None, **kwargs):
    _check_keywords("as_strided", kwargs)
    if kwargs:
        raise TypeError(f"as_strided() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return _as_strided(x, shape, strides)


def _scatter_add(a, slices, value):
    """cupyx.scatter_add: a[slices] += value with repeats accumulated."""
    np.add.at(a._a, _wrapped_key(slices, a.shape), _to_numpy_args(value, allow_numpy=True))


def _random_seed(seed=None):
    np.random.seed(seed)


lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=_strided))
cuda = types.SimpleNamespace(Device=_Device, runtime=types.SimpleNamespace(
                                 getDeviceCount=lambda: 1,
                                 getDeviceProperties=lambda i: {"name": b"strict CuPy stand-in (CPU)"}),
                             Stream=types.SimpleNamespace(null=None))
def _erf(x):
    """cupyx.scipy.special.erf (NumPy has none; math.erf per element on the host)."""
    return ndarray(np.vectorize(math.erf, otypes=[x.dtype])(x._a) if x.size else x._a.copy())


def _erfc(x):
    """cupyx.scipy.special.erfc (NumPy has none; math.erfc per element on the host)."""
    return ndarray(np.vectorize(math.erfc, otypes=[x.dtype])(x._a) if x.size else x._a.copy())


def _erfinv(x):
    """cupyx.scipy.special.erfinv (NumPy has none): the framework's host algorithm on the stored NumPy array."""
    from framework import backend  # here, not at the top: backend imports this module when it is selected
    return ndarray(backend.erfinv(x._a))


class _Special(types.SimpleNamespace):
    """cupyx.scipy.special: erf/erfc/erfinv as above; any other name is SciPy's ufunc on the stored NumPy arrays
    (the framework calls these with device arrays only: a NumPy array is refused, as CuPy's kernels refuse it)."""

    def __getattr__(self, name):
        import scipy.special  # here: only the strict runs need SciPy's kernels
        fn = getattr(scipy.special, name)

        def kernel(*args):
            for a in args:
                if isinstance(a, np.ndarray):
                    raise TypeError(f"Unsupported type <class 'numpy.ndarray'> (cupyx.scipy.special.{name})")
            out = fn(*[a._a if isinstance(a, ndarray) else a for a in args])
            return ndarray(np.asarray(out))

        return kernel


def _scipy_linalg(name: str):
    """cupyx.scipy.linalg.<name> (lu_factor, lu_solve, solve_triangular): SciPy's on the stored NumPy arrays, for
    device arrays only (NumPy arrays are refused, as by CuPy)."""
    def call(*args, **kwargs):
        import scipy.linalg  # here: only the strict runs need it
        args, kwargs = _to_numpy_args(args), _to_numpy_args(kwargs)
        out = getattr(scipy.linalg, name)(*args, **kwargs)
        return tuple(_wrap(r) for r in out) if isinstance(out, tuple) else _wrap(out)
    return call


cupyx = types.SimpleNamespace(scatter_add=_scatter_add,
                              scipy=types.SimpleNamespace(special=_Special(erf=_erf, erfc=_erfc, erfinv=_erfinv),
                                                          linalg=types.SimpleNamespace(**{
                                                              name: _scipy_linalg(name) for name in
                                                              ("lu_factor", "lu_solve", "solve_triangular")})))
random = types.SimpleNamespace(seed=_random_seed)


def __getattr__(name):
    if name in CUPY_FUNCTIONS:  # (not cached in globals(): names like abs/max/round would shadow builtins here)
        return _function(name)
    if name in PASSTHROUGH:
        return getattr(np, name)
    raise AttributeError(f"module 'cupy' has no attribute '{name}'")


class _OpenGrid:
    """cupy.ogrid: ``ogrid[0:2, 0:3]`` gives open (broadcastable) index arrays on the device."""

    def __getitem__(self, key):
        return _wrap(np.ogrid[key])


ogrid = _OpenGrid()
take = _function("take")


def _linalg(name: str, nan_on_error: bool = False):
    """cupy.linalg.<name> on the host; cupy's inv/solve/cholesky do not raise on a singular or indefinite matrix
    (the default cupyx.errstate(linalg='ignore')): their results hold nan instead, modelled here."""
    def call(*args, **kwargs):
        args, kwargs = _to_numpy_args(args), _to_numpy_args(kwargs)
        try:
            out = getattr(np.linalg, name)(*args, **kwargs)
        except np.linalg.LinAlgError:
            if not nan_on_error:
                raise
            out = _per_matrix(getattr(np.linalg, name), *args)
        return tuple(_wrap(r) for r in out) if isinstance(out, tuple) else _wrap(out)
    return call


def _per_matrix(fn, a, b=None):
    """fn on each matrix of the batch on its own (CuPy's batched kernels), nan for the ones it fails on."""
    if b is not None:  # solve: broadcast the batch dims first
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a, b = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    flat_a = a.reshape((-1,) + a.shape[-2:])
    flat_b = None if b is None else b.reshape((-1,) + b.shape[-2:])
    out = []
    for i in range(flat_a.shape[0]):
        like = flat_a[i] if b is None else flat_b[i]
        try:
            out.append(fn(flat_a[i]) if b is None else fn(flat_a[i], flat_b[i]))
        except np.linalg.LinAlgError:
            out.append(np.full(like.shape, np.nan, dtype=a.dtype))
    shape = (a.shape if b is None else b.shape)
    return np.stack(out).reshape(shape) if out else np.full(shape, np.nan, dtype=a.dtype)


linalg = types.SimpleNamespace(**{name: _linalg(name) for name in ("norm", "qr", "svd", "eigh", "eigvalsh", "det",
                                                                   "slogdet", "pinv")},
                               **{name: _linalg(name, True) for name in ("inv", "solve", "cholesky")})
_module = sys.modules[__name__]
