"""torch.backends.cuda / cudnn flags: the same names, defaults, setters and scoping as torch's (no effect here)."""
import warnings

import pytest

import framework as fw
import framework.backends.cuda
import framework.backends.cudnn
from framework.backends.cuda import SDPBackend, sdpa_kernel

torch = pytest.importorskip("torch")
import torch.backends.cuda  # noqa: E402
import torch.backends.cudnn  # noqa: E402
from torch.nn.attention import SDPBackend as TorchSDPBackend  # noqa: E402

MATMUL = ["allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_fp16_reduced_precision_reduction_split_k",
          "allow_bf16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction_split_k",
          "allow_fp16_accumulation"]
SDP = ["flash", "mem_efficient", "math", "cudnn"]
CUDNN = ["enabled", "benchmark", "deterministic", "allow_tf32", "benchmark_limit"]


@pytest.mark.parametrize("name", MATMUL)
def test_matmul_defaults(name):
    assert getattr(fw.backends.cuda.matmul, name) == getattr(torch.backends.cuda.matmul, name)


@pytest.mark.parametrize("kernel", SDP)
def test_sdp_defaults_and_switches(kernel):
    ours, theirs = fw.backends.cuda, torch.backends.cuda
    assert getattr(ours, f"{kernel}_sdp_enabled")() == getattr(theirs, f"{kernel}_sdp_enabled")()
    try:
        getattr(ours, f"enable_{kernel}_sdp")(False)
        assert getattr(ours, f"{kernel}_sdp_enabled")() is False
    finally:
        getattr(ours, f"enable_{kernel}_sdp")(True)
    assert getattr(ours, f"{kernel}_sdp_enabled")() is True


def test_fp16_bf16_reduction_math_sdp():
    assert fw.backends.cuda.fp16_bf16_reduction_math_sdp_allowed() == \
        torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    fw.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)
    assert fw.backends.cuda.fp16_bf16_reduction_math_sdp_allowed() is True
    fw.backends.cuda.allow_fp16_bf16_reduction_math_sdp(False)


@pytest.mark.parametrize("name", CUDNN)
def test_cudnn_defaults(name):
    assert getattr(fw.backends.cudnn, name) == getattr(torch.backends.cudnn, name)


def test_cudnn_availability_and_flags_context():
    assert fw.backends.cudnn.is_available() == torch.backends.cudnn.is_available() is False
    assert fw.backends.cudnn.version() is None
    with fw.backends.cudnn.flags(enabled=False, benchmark=True, deterministic=True):
        assert (fw.backends.cudnn.enabled, fw.backends.cudnn.benchmark, fw.backends.cudnn.deterministic) == \
            (False, True, True)
    assert (fw.backends.cudnn.enabled, fw.backends.cudnn.benchmark, fw.backends.cudnn.deterministic) == \
        (True, False, False)


def test_matmul_setters_as_torch():
    m, tm = fw.backends.cuda.matmul, torch.backends.cuda.matmul
    try:
        for value in (True, (False,), (False, False), [True]):
            m.allow_bf16_reduced_precision_reduction = value
            tm.allow_bf16_reduced_precision_reduction = value
            assert (m.allow_bf16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction_split_k) == \
                (tm.allow_bf16_reduced_precision_reduction, tm.allow_bf16_reduced_precision_reduction_split_k)
        for ours_or_theirs in (m, tm):
            with pytest.raises(RuntimeError, match="^allow_splitk=False is not supported when reduced precision"):
                ours_or_theirs.allow_bf16_reduced_precision_reduction = (True, False)
        m.allow_tf32 = True
        assert m.allow_tf32 is True
        for bad in ((), (True, True, True), 1, ("x",)):
            with pytest.raises(TypeError) as ours:
                m.allow_fp16_reduced_precision_reduction = bad
            with pytest.raises(TypeError) as theirs:
                tm.allow_fp16_reduced_precision_reduction = bad
            assert str(ours.value) == str(theirs.value)
        with pytest.raises(AttributeError, match="Unknown attribute nope"):
            m.nope
        with pytest.raises(AttributeError, match="Unknown attribute nope"):
            m.nope = 1
    finally:
        m.allow_tf32 = False
        m.allow_bf16_reduced_precision_reduction = True
        tm.allow_bf16_reduced_precision_reduction = True


def test_sdpa_kernel_scopes_the_switches_as_torch():
    assert [(b.name, int(b)) for b in SDPBackend] == [(b.name, int(b)) for b in TorchSDPBackend.__members__.values()]
    for chosen in (SDPBackend.MATH, [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
        theirs = getattr(TorchSDPBackend, chosen.name) if isinstance(chosen, SDPBackend) else \
            [getattr(TorchSDPBackend, b.name) for b in chosen]
        with sdpa_kernel(chosen), torch.nn.attention.sdpa_kernel(theirs):
            for kernel in SDP:
                assert getattr(fw.backends.cuda, f"{kernel}_sdp_enabled")() == \
                    getattr(torch.backends.cuda, f"{kernel}_sdp_enabled")()
        assert all(getattr(fw.backends.cuda, f"{kernel}_sdp_enabled")() for kernel in SDP)
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with sdpa_kernel("math"):
            pass


def test_sdp_kernel_is_deprecated_as_torch():
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        ctx = fw.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch_ctx = torch.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False)
    assert [(w.category, str(w.message)) for w in ours] == [(w.category, str(w.message)) for w in theirs]
    with ctx, torch_ctx:
        for kernel in SDP:
            assert getattr(fw.backends.cuda, f"{kernel}_sdp_enabled")() == \
                getattr(torch.backends.cuda, f"{kernel}_sdp_enabled")()
    assert fw.backends.cuda.flash_sdp_enabled() is True
