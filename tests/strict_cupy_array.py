"""The strict CuPy stand-in's array type (see strict_cupy.py): NumPy storage behind CuPy's interface."""
from __future__ import annotations

import numpy as np

IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. "
            "Please use .get() to construct a NumPy array explicitly.")

# NumPy keywords CuPy's functions do not take (checked on every module function and method).
NUMPY_ONLY_KEYWORDS = {"writeable", "where", "initial", "like", "subok", "check_valid"}


def _to_numpy_args(value, allow_numpy: bool = False):
    """Unwrap our arrays (recursively in lists/tuples); a NumPy array is CuPy's ``Unsupported type``."""
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, np.ndarray) and not allow_numpy:
        raise TypeError(f"Unsupported type {type(value)}")
    if isinstance(value, (list, tuple)):
        return type(value)(_to_numpy_args(v, allow_numpy) for v in value)
    if isinstance(value, dict):
        return {k: _to_numpy_args(v, allow_numpy) for k, v in value.items()}
    return value


def _wrap(value, source: "ndarray | None" = None):
    """NumPy results become our arrays (scalars from reductions become 0-d arrays, as in CuPy); a view of
    ``source``'s memory gets CuPy's ``base``: the array that owns the memory."""
    if isinstance(value, np.ndarray):
        if source is not None and value is source._a:  # the array itself (astype(copy=False)): CuPy returns self
            return source
        if source is not None and (np.may_share_memory(value, source._a) or
                                   (not value.size and _views(value, source._a))):
            # (an empty view shares no memory NumPy can see, but CuPy's view of an empty array has a base too)
            return ndarray(value, source._owner if source._owner is not None else source)
        return ndarray(value)
    if isinstance(value, np.generic):
        return ndarray(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_wrap(v, source) for v in value)
    if isinstance(value, list):
        return [_wrap(v, source) for v in value]
    return value


def _views(value: np.ndarray, source: np.ndarray) -> bool:
    """Whether NumPy made ``value`` as a view of ``source`` (or of its base), through as_strided's wrapper too."""
    owners, b = (source, source.base), value.base
    while b is not None:
        if any(b is o for o in owners if o is not None):
            return True
        b = getattr(b, "base", None)
    return False


def _first_array(args):
    return next((a for a in args if isinstance(a, ndarray)), None)


def _check_keywords(name: str, kwargs: dict) -> None:
    bad = NUMPY_ONLY_KEYWORDS.intersection(kwargs)
    if bad:
        raise TypeError(f"{name}() got an unexpected keyword argument '{sorted(bad)[0]}'")


def _wrap_index(index, axis_len: int):
    """CuPy wraps out-of-range integer indices around round_ (x[i % n]); NumPy would raise."""
    return index % axis_len if axis_len else index


def _wrapped_key(key, shape: tuple):
    """Apply CuPy's wrap-around to every integer-array component of an indexing key."""
    parts = key if isinstance(key, tuple) else (key,)
    if any(p is None or p is Ellipsis for p in parts):
        return _to_numpy_args(key, allow_numpy=True)  # positions shift; these keys keep NumPy's checks
    out = []
    for dim, p in enumerate(parts):
        p = _to_numpy_args(p, allow_numpy=True)
        if isinstance(p, list):
            p = np.asarray(p)
        if isinstance(p, np.ndarray) and p.dtype.kind in "iu" and dim < len(shape):
            p = _wrap_index(p, shape[dim])
        out.append(p)
    return tuple(out) if isinstance(key, tuple) else out[0]


class _Device:
    """cupy.cuda.Device: an id, a context manager, synchronize()."""

    def __init__(self, device_id: int = 0) -> None:
        if int(device_id) != 0:
            raise RuntimeError(f"CUDA error: invalid device ordinal (the strict stand-in has one device, 0)")
        self.id = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self) -> None:
        pass

    def __repr__(self) -> str:
        return "<CUDA Device 0>"


class _Memory:  # noqa: D101 - cupy.cuda.MemoryPointer's ptr
    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


# ndarray methods CuPy has (anything else on numpy.ndarray is missing here, e.g. itemset, resize, setflags).
METHODS = set("""
all any argmax argmin argsort astype clip copy cumprod cumsum diagonal dot fill flatten max mean min nonzero prod
ravel repeat reshape round sort squeeze std sum swapaxes take transpose var view conj
""".split())


class ndarray:
    """An array on the stand-in device: NumPy storage behind CuPy's interface."""

    __slots__ = ("_a", "_owner")

    def __init__(self, array: np.ndarray, owner: "ndarray | None" = None) -> None:
        # NumPy's 0-d arithmetic returns scalars; CuPy's gives 0-d arrays (whose reshape is a view, as any array's)
        self._a = np.asarray(array) if isinstance(array, np.generic) else array
        self._owner = owner  # CuPy's .base: the array owning the memory of this view, None for an owner

    # ---- the strictness -------------------------------------------------------------------------------------
    def __array__(self, *args, **kwargs):
        raise TypeError(IMPLICIT)

    def __array_function__(self, func, types, args, kwargs):
        raise TypeError(IMPLICIT)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """``numpy_scalar * x`` reaches here; it is computed (as CuPy does). Any other NumPy ufunc on these arrays
        (np.exp(x), np.isfinite(x)) raises: stricter than CuPy, which forwards them, as array math goes through xp."""
        if any(isinstance(i, np.ndarray) for i in inputs):
            raise TypeError(f"Unsupported type {np.ndarray}")
        if method == "__call__" and ufunc in _OPERATOR_UFUNCS and not kwargs and \
                all(isinstance(i, ndarray) or np.isscalar(i) for i in inputs):
            return _wrap(ufunc(*_to_numpy_args(inputs)))
        raise TypeError(IMPLICIT)

    def get(self, stream=None, order="C", out=None) -> np.ndarray:
        """Copy to the host."""
        return self._a.copy()

    def set(self, arr: np.ndarray) -> None:
        self._a[...] = arr

    def _scalar(self, kind):
        if self._a.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python scalars") if kind is not bool else \
                ValueError("The truth value of an array with more than one element is ambiguous. "
                           "Use a.any() or a.all()")
        return kind(self._a.reshape(()).item())

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __bool__(self):
        return self._scalar(bool)

    def __index__(self):
        if self._a.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return self._scalar(int)

    def item(self, *args):
        if args:
            return self._a.item(*args)
        if self._a.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self._a.item()

    def tolist(self):
        return self._a.tolist()

    # ---- attributes ----------------------------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: _wrap(self._a.T, self))
    real = property(lambda self: _wrap(self._a.real, self))
    device = property(lambda self: _Device(0))
    data = property(lambda self: _Memory(self._a.__array_interface__["data"][0]))
    base = property(lambda self: self._owner)

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.data.ptr, False), "version": 3}

    def __getattr__(self, name):
        if name not in METHODS:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
        method = getattr(self._a, name)

        def call(*args, **kwargs):
            _check_keywords(name, kwargs)
            if name == "take":  # CuPy wraps out-of-range indices around
                args = (_wrap_index(np.asarray(_to_numpy_args(args[0], allow_numpy=True)),
                                    self.size if kwargs.get("axis") is None else self.shape[kwargs["axis"]]),)
            return _wrap(method(*_to_numpy_args(args), **_to_numpy_args(kwargs)), self)

        return call

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(v, self) for v in self._a)

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __getitem__(self, key):
        return _wrap(self._a[_wrapped_key(key, self._a.shape)], self)

    def __setitem__(self, key, value):
        # CuPy fills from scalars and device arrays only: a NumPy array or a list is refused
        if isinstance(value, np.ndarray) and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        if isinstance(value, (list, tuple)):
            raise TypeError(f"Unsupported type {type(value)}")
        self._a[_wrapped_key(key, self._a.shape)] = _to_numpy_args(value, allow_numpy=True)

    def __copy__(self):
        return ndarray(self._a.copy())

    def __deepcopy__(self, memo):
        return ndarray(self._a.copy())

    def __reduce__(self):
        return (ndarray, (self._a,))


def _binary(op):
    def method(self, other):
        return _wrap(op(self._a, _to_numpy_args(other)))
    return method


def _reflected(op):
    def method(self, other):
        return _wrap(op(_to_numpy_args(other), self._a))
    return method


def _inplace(op):
    def method(self, other):
        op(self._a, _to_numpy_args(other), out=self._a)
        return self
    return method


_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
        "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "matmul": np.matmul,
        "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
for _name, _op in _OPS.items():
    setattr(ndarray, f"__{_name}__", _binary(_op))
    setattr(ndarray, f"__r{_name}__", _reflected(_op))
    setattr(ndarray, f"__i{_name}__", _inplace(_op))
for _name, _op in {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
                   "eq": np.equal, "ne": np.not_equal}.items():
    setattr(ndarray, f"__{_name}__", _binary(_op))
_OPERATOR_UFUNCS = set(_OPS.values()) | {np.less, np.less_equal, np.greater, np.greater_equal, np.equal,
                                          np.not_equal}
ndarray.__neg__ = lambda self: ndarray(-self._a)
ndarray.__pos__ = lambda self: ndarray(+self._a)
ndarray.__abs__ = lambda self: ndarray(abs(self._a))
ndarray.__invert__ = lambda self: ndarray(~self._a)
ndarray.__hash__ = None
