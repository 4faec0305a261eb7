"""torch's top-level utilities (framework/type_info.py, _tensor_str.set_printoptions) against torch: finfo/iinfo,
promotion queries, typename, window functions, factories, unravel_index, the global switches, print options."""
import warnings

import numpy as np
import pytest

import framework

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().cpu().numpy()


def test_finfo_and_iinfo_match_torch():
    for name in ("float16", "float32", "float64"):
        ours, theirs = framework.finfo(getattr(framework, name)), torch.finfo(getattr(torch, name))
        for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert getattr(ours, attr) == getattr(theirs, attr), (name, attr)
        assert repr(ours) == repr(theirs)
    assert repr(framework.finfo()) == repr(torch.finfo())
    for name in ("int8", "uint8", "int16", "int32", "int64"):
        ours, theirs = framework.iinfo(getattr(framework, name)), torch.iinfo(getattr(torch, name))
        assert (ours.bits, ours.min, ours.max, repr(ours)) == (theirs.bits, theirs.min, theirs.max, repr(theirs))
    for fn in (lambda m: m.finfo(m.int32), lambda m: m.iinfo(m.float32)):
        errors = []
        for m in (framework, torch):
            with pytest.raises(TypeError) as e:
                fn(m)
            errors.append(str(e.value))
        assert errors[0] == errors[1]


def test_promotion_queries_and_typename_match_torch():
    for m_args in [lambda m: (m.tensor([1]), 1.0), lambda m: (m.tensor([1], dtype=m.int8), m.tensor([1], dtype=m.uint8)),
                   lambda m: (m.tensor([1.0], dtype=m.float16), m.tensor(2.0)), lambda m: (m.tensor([True]), 3)]:
        ours = framework.result_type(*m_args(framework))
        theirs = torch.result_type(*m_args(torch))
        assert str(ours).split(".")[-1] == str(theirs).split(".")[-1]
    names = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]
    for a in names:
        for b in names:
            assert framework.can_cast(getattr(framework, a), getattr(framework, b)) == \
                torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)
    assert tuple(framework.broadcast_shapes((2, 1), (3,), (4, 1, 1))) == tuple(torch.broadcast_shapes((2, 1), (3,),
                                                                                                   (4, 1, 1)))
    with pytest.raises(RuntimeError, match="Shape mismatch: objects cannot be broadcast to a single shape"):
        framework.broadcast_shapes((2, 3), (4,))
    for fn in (lambda m: m.zeros(1), lambda m: m.zeros(1, dtype=m.int64), lambda m: 3, lambda m: "x"):
        assert framework.typename(fn(framework)) == torch.typename(fn(torch))


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(name, n, periodic):
    for dt in ("float32", "float64"):
        ours = getattr(framework, name)(n, periodic, dtype=getattr(framework, dt))
        theirs = getattr(torch, name)(n, periodic, dtype=getattr(torch, dt))
        assert str(ours.dtype).split(".")[-1] == dt and tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(_np(ours), _np(theirs), rtol=0, atol=2e-7 if dt == "float32" else 1e-15)


def test_factories_match_torch():
    for fn in (lambda m: m.logspace(0, 2, 5), lambda m: m.logspace(-1, 1, 3, base=2.0, dtype=m.float64),
               lambda m: m.scalar_tensor(3), lambda m: m.scalar_tensor(2, dtype=m.int64),
               lambda m: m.rsub(m.tensor([1.0, 2.0]), 5, alpha=2), lambda m: m.rsub(m.tensor([1, 2]), m.tensor([3, 3])),
               lambda m: m.asarray([1, 2, 3]), lambda m: m.asarray(np.array([1.5]), dtype=m.float64)):
        ours, theirs = fn(framework), fn(torch)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-6)
    assert framework.empty_strided((2, 3), (1, 2)).stride() == torch.empty_strided((2, 3), (1, 2)).stride()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert framework.range(1, 4).tolist() == torch.range(1, 4).tolist()
        assert framework.range(0, 1, 0.25).tolist() == torch.range(0, 1, 0.25).tolist()
    x = framework.arange(12.0)
    shared = framework.asarray(x)
    assert shared is x and framework.asarray(x, copy=True) is not x


def test_unravel_index_matches_torch():
    for idx, shape in (([4, 5, 0], (2, 3)), (7, (2, 2, 2)), ([-1, 3], (4,))):
        ours = framework.unravel_index(framework.tensor(idx), shape)
        theirs = torch.unravel_index(torch.tensor(idx), shape)
        assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]
    for m in (framework, torch):
        with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
            m.unravel_index(m.tensor([1.0]), (2,))


def test_random_factories_follow_the_framework_generator():
    framework.manual_seed(5)
    a = framework.normal(framework.zeros(3000) + 2.0, 0.5)
    b = framework.normal(0.0, 1.0, size=(2, 3))
    r = framework.randint_like(framework.zeros(500, dtype=framework.int32), 3, 6)
    p = framework.poisson(framework.full((4000,), 3.0))
    framework.manual_seed(5)
    assert np.array_equal(_np(framework.normal(framework.zeros(3000) + 2.0, 0.5)), _np(a))
    assert abs(_np(a).mean() - 2.0) < 0.05 and abs(_np(a).std() - 0.5) < 0.05
    assert tuple(b.shape) == (2, 3) and str(r.dtype) == "framework.int32" and set(_np(r).tolist()) == {3, 4, 5}
    assert abs(_np(p).mean() - 3.0) < 0.1 and (_np(p) == np.round(_np(p))).all()


def test_global_switches_round_trip():
    n = framework.get_num_threads()
    assert n >= 1
    framework.use_deterministic_algorithms(True, warn_only=True)
    assert framework.are_deterministic_algorithms_enabled() and framework.is_deterministic_algorithms_warn_only_enabled()
    framework.use_deterministic_algorithms(False)
    assert not framework.are_deterministic_algorithms_enabled()
    assert framework.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    framework.set_float32_matmul_precision("high")
    assert framework.get_float32_matmul_precision() == "high"
    framework.set_float32_matmul_precision("highest")
    framework.set_anomaly_enabled(True)
    assert framework.is_anomaly_enabled()
    framework.set_anomaly_enabled(False)
    assert not framework.is_anomaly_enabled()
    with framework.inference_mode():
        t = framework.ones(1)
    assert framework.is_inference(t) and not framework.is_inference(framework.ones(1))


@pytest.mark.explicit_device  # (a device suffix would change the line breaks; the options are what is tested)
@pytest.mark.parametrize("options", [dict(precision=2), dict(sci_mode=False), dict(sci_mode=True),
                                     dict(threshold=5, edgeitems=1), dict(linewidth=30), dict(profile="short"),
                                     dict(profile="full")])
def test_print_options_change_reprs_as_torchs(options):
    # float32, the default dtype: no dtype= suffix, whose name ('framework.' vs 'torch.') would move line breaks
    a = np.array([[1.123456789, 2e-5, 300.0, -4.5]] * 3, dtype=np.float32)
    b = np.arange(40.0, dtype=np.float32) / 7
    outs = []
    for m in (framework, torch):
        m.set_printoptions(**options)
        try:
            outs.append(tuple(repr(m.tensor(x)).replace("torch.", "framework.") for x in (a, b)))
        finally:
            m.set_printoptions(profile="default", sci_mode=None)
    assert outs[0] == outs[1]
