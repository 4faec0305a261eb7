"""The strict CuPy stand-in fails where CuPy fails for NumPy-written code, and a NumPy-ism planted in any op makes
the stand-in run fail. These tests install the stand-in themselves, so they run in every CI pass."""
import numpy as np
import pytest

import framework
import strict_cupy as cp
from framework import backend
from framework.autograd.function import Function
from framework.ops.pointwise import Exp
from op_table import OPS

pytestmark = pytest.mark.explicit_device


@pytest.fixture
def strict():
    """The stand-in as framework's GPU module (and cuda:0 the default device) for one test."""
    saved = backend._cupy, backend._cupyx
    backend.use_cupy(cp)
    framework.set_default_device("cuda:0")
    yield cp
    framework.set_default_device("cpu")
    backend._cupy, backend._cupyx = saved


def test_implicit_conversions_raise_cupys_type_error():
    x = cp.asarray(np.arange(6.0).reshape(2, 3))
    for numpy_call in (lambda: np.asarray(x), lambda: np.array(x), lambda: np.where(x > 0, x, 0),
                       lambda: np.float32(x), lambda: np.exp(x), lambda: np.isfinite(x), lambda: np.concatenate([x])):
        with pytest.raises(TypeError, match=r"^Implicit conversion to a NumPy array is not allowed\. Please use "
                                            r"\.get\(\) to construct a NumPy array explicitly\.$"):
            numpy_call()
    with pytest.raises(TypeError, match="Unsupported type <class 'numpy.ndarray'>"):
        x + np.ones(3)
    with pytest.raises(TypeError, match="Unsupported type <class 'numpy.ndarray'>"):
        np.ones(3) * x
    with pytest.raises(ValueError, match="non-scalar numpy.ndarray cannot be used for fill"):
        x[0] = np.ones(3)
    with pytest.raises(TypeError, match="Unsupported type <class 'list'>"):
        x[0] = [1.0, 2.0, 3.0]
    x[0] = cp.asarray(np.ones(3))
    x[1, 1] = np.float32(7.0)
    assert x.get().tolist() == [[1.0, 1.0, 1.0], [3.0, 7.0, 5.0]]


def test_scalars_only_where_cupy_allows_them():
    x = cp.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match="only size-1 arrays"):
        float(x)
    with pytest.raises(ValueError, match="truth value of an array with more than one element is ambiguous"):
        bool(x > 0)
    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        x.item()
    total = x.sum()
    assert isinstance(total, cp.ndarray) and total.shape == ()  # reductions give 0-d device arrays, as CuPy's
    assert float(total) == 15.0 and int(x[1, 2]) == 5 and bool(total) and total.item() == 15.0
    assert (np.float32(2) * x).get().tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]


def test_numpy_only_keywords_and_functions_raise():
    x = cp.asarray(np.arange(6.0))
    with pytest.raises(TypeError, match="as_strided\\(\\) got an unexpected keyword argument 'writeable'"):
        cp.lib.stride_tricks.as_strided(x, (3,), (8,), writeable=False)
    with pytest.raises(TypeError, match="unexpected keyword argument 'initial'"):
        cp.max(x, initial=0.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'where'"):
        x.sum(where=x > 1)
    for missing in ("errstate", "vectorize", "add_at", "frompyfunc"):
        with pytest.raises(AttributeError, match=f"module 'cupy' has no attribute '{missing}'"):
            getattr(cp, missing)
    with pytest.raises(AttributeError, match="'cupy.ndarray' object has no attribute 'itemset'"):
        x.itemset(0, 1.0)


def test_results_device_host_copy_and_views():
    x = cp.asarray(np.arange(6.0).reshape(2, 3))
    for result in (cp.exp(x), cp.where(x > 1, x, 0.0), x.T, x[0], x.reshape(3, 2), cp.maximum(x, 1.0)):
        assert isinstance(result, cp.ndarray)
    host = x.get()
    assert type(host) is np.ndarray and host.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x.device.id == 0 and cp.cuda.runtime.getDeviceCount() == 1
    view = x.reshape(3, 2)
    assert view.base is x and view.reshape(6).base is x and x.base is None and (x + 1).base is None


def test_grids_tri_and_elementwise_kernels_as_in_cupy():
    rows, cols = cp.ogrid[0:2, 0:3]
    assert isinstance(rows, cp.ndarray) and rows.shape == (2, 1) and cols.get().tolist() == [[0, 1, 2]]
    assert cp.tri(2, 3, 0, dtype=bool).get().tolist() == [[True, False, False], [True, True, False]]
    kernel = cp.ElementwiseKernel("T x, T a", "T y, T z", "T t = x * a;\ny = (t != t || t >= a) ? t : a;\nz = sqrt(y);",
                                  "clip_sqrt", options=("--fmad=false",))
    x = cp.asarray(np.array([1.0, 4.0, np.nan], np.float32))
    y, z = cp.zeros_like(x), cp.zeros_like(x)
    kernel(x, np.float32(2), y, z)  # the outputs are written in place, in the arrays' type
    assert y.dtype == np.float32 and y.get()[:2].tolist() == [2.0, 8.0] and np.isnan(y.get()[2])
    np.testing.assert_array_equal(z.get()[:2], np.sqrt(np.array([2.0, 8.0], np.float32)))
    with pytest.raises(TypeError, match="Unsupported type"):
        kernel(x.get(), np.float32(2), y, z)  # a NumPy array is not a kernel argument


def test_integer_array_indices_wrap_around_as_in_cupy():
    x = cp.asarray(np.arange(3.0))
    assert x[cp.asarray(np.array([3, -4]))].get().tolist() == [0.0, 2.0]  # NumPy would raise IndexError
    assert cp.take(x, cp.asarray(np.array([4]))).get().tolist() == [1.0]


def test_tensors_on_the_stand_in(strict):
    t = framework.tensor([1.0, -2.0], requires_grad=True)
    assert t.device == "cuda:0" and isinstance(t._array, cp.ndarray) and framework.cuda.is_available()
    (t.exp() * t).sum().backward()
    assert isinstance(t.grad._array, cp.ndarray) and t.grad.cpu().tolist() == pytest.approx(
        [np.exp(1.0) * 2, np.exp(-2.0) * -1])
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        t.detach().numpy()


def _plant_numpy_asarray(monkeypatch) -> list:
    """Make every op's forward call np.asarray on its first device array (the NumPy-ism CI must catch)."""
    planted, stack = [], [Function]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if "forward" in vars(cls):
            raw = vars(cls)["forward"]
            if not isinstance(raw, (staticmethod, classmethod)):
                continue
            original, wrap = raw.__func__, type(raw)  # a classmethod forward takes cls first

            def forward(*args, _original=original, **kwargs):
                arrays = [a for a in args if isinstance(a, cp.ndarray)]
                if arrays:
                    np.asarray(arrays[0])  # the planted NumPy-ism
                return _original(*args, **kwargs)

            monkeypatch.setattr(cls, "forward", wrap(forward))
            planted.append(cls.__name__)
    return planted


def _run_row(case):
    rng = np.random.default_rng(0)
    xs = [framework.tensor(rng.uniform(*case.domain, size=s), requires_grad=True) for s in case.shapes]
    out = case.fn(framework, *xs)
    out.backward(framework.ones(*out.shape, dtype=out.dtype))
    return out


@pytest.mark.parametrize("case", OPS, ids=[c.name for c in OPS])
def test_planted_numpy_asarray_in_an_op_fails_the_stand_in_run(case, strict, monkeypatch):
    assert _run_row(case).device == "cuda:0"  # the row passes on the stand-in as the code is
    planted = _plant_numpy_asarray(monkeypatch)
    assert any(cls.__name__ in planted for cls in Exp.__mro__)  # Exp's forward (its own or inherited) is planted
    with pytest.raises(TypeError, match="^Implicit conversion to a NumPy array is not allowed"):
        _run_row(case)
