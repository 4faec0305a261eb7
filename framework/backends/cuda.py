"""torch.backends.cuda's flags (TF32 and reduced-precision matmuls, the scaled-dot-product-attention kernels).

framework's GPU path is CuPy's, whose kernels these switches do not reach, and on the CPU they mean nothing: the flags
are kept, read back and scoped (``sdp_kernel``) exactly as torch keeps them, with torch's defaults, and change nothing.
"""
from __future__ import annotations

import contextlib
import enum
import warnings
from typing import Any, Iterator

from .. import backend


class SDPBackend(enum.IntEnum):
    """The kernels scaled_dot_product_attention may choose (torch.nn.attention.SDPBackend)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"


# every attention kernel starts enabled, as torch's
_SDP_ENABLED = {SDPBackend.MATH: True, SDPBackend.FLASH_ATTENTION: True, SDPBackend.EFFICIENT_ATTENTION: True,
                SDPBackend.CUDNN_ATTENTION: True, SDPBackend.OVERRIDEABLE: True}
_fp16_bf16_reduction_math_sdp = False


def _check_bool(value: Any, attr_name: str, which: str) -> bool:
    if isinstance(value, bool):
        return value
    raise TypeError(f"{attr_name} expects a bool for {which}, but got {type(value)!r}")


class cuBLASModule:
    """torch.backends.cuda.matmul: cuBLAS's precision switches, with torch's defaults."""

    _DEFAULTS = {"allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
                 "allow_fp16_reduced_precision_reduction_split_k": True,
                 "allow_bf16_reduced_precision_reduction": True,
                 "allow_bf16_reduced_precision_reduction_split_k": True,
                 "allow_fp16_accumulation": False, "fp32_precision": "none"}

    def __init__(self) -> None:
        object.__setattr__(self, "_values", dict(self._DEFAULTS))

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
            reduced, split_k = self._parse_reduction_setting(value, name)
            if reduced and not split_k:
                raise RuntimeError("allow_splitk=False is not supported when reduced precision reductions are enabled")
            self._values[name], self._values[name + "_split_k"] = reduced, split_k
        elif name in ("allow_tf32", "allow_fp16_accumulation"):
            self._values[name] = bool(value)
        elif name == "fp32_precision":
            if value not in ("none", "ieee", "tf32"):
                raise RuntimeError(f"{value} is not supported in cuda matmul: use 'ieee', 'tf32' or 'none'")
            self._values[name] = value
        else:
            raise AttributeError("Unknown attribute " + name)

    @staticmethod
    def _parse_reduction_setting(value: Any, attr_name: str) -> tuple[bool, bool]:
        """A bool, or (allow_reduced_precision[, allow_splitk]) as torch accepts."""
        if isinstance(value, bool):
            return value, True
        if isinstance(value, (list, tuple)):
            if not value:
                raise TypeError(f"{attr_name} expects at least one boolean argument")
            if len(value) > 2:
                raise TypeError(f"{attr_name} expects at most two boolean arguments")
            reduced = _check_bool(value[0], attr_name, "allow_reduced_precision")
            return reduced, (True if len(value) == 1 else _check_bool(value[1], attr_name, "allow_splitk"))
        raise TypeError(f"{attr_name} expects a bool or a tuple/list of bools, but got {type(value)!r}")


matmul = cuBLASModule()


def is_built() -> bool:
    """Whether framework can run on CUDA at all (CuPy importable with a device; torch: built with CUDA)."""
    return backend.cupy_available()


def enable_flash_sdp(enabled: bool) -> None:
    """Allow (or not) the flash-attention kernel (on the CPU too: off, scaled_dot_product_attention composes its math
    kernel, as torch's)."""
    _SDP_ENABLED[SDPBackend.FLASH_ATTENTION] = bool(enabled)


def flash_sdp_enabled() -> bool:
    return _SDP_ENABLED[SDPBackend.FLASH_ATTENTION]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Allow (or not) the memory-efficient attention kernel; no effect here."""
    _SDP_ENABLED[SDPBackend.EFFICIENT_ATTENTION] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _SDP_ENABLED[SDPBackend.EFFICIENT_ATTENTION]


def enable_math_sdp(enabled: bool) -> None:
    """Allow (or not) the math attention kernel (framework takes it wherever the flash kernel does not apply)."""
    _SDP_ENABLED[SDPBackend.MATH] = bool(enabled)


def math_sdp_enabled() -> bool:
    return _SDP_ENABLED[SDPBackend.MATH]


def enable_cudnn_sdp(enabled: bool) -> None:
    """Allow (or not) the cuDNN attention kernel; no effect here."""
    _SDP_ENABLED[SDPBackend.CUDNN_ATTENTION] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    return _SDP_ENABLED[SDPBackend.CUDNN_ATTENTION]


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    """Let the math attention kernel reduce in float16/bfloat16; no effect here."""
    global _fp16_bf16_reduction_math_sdp
    _fp16_bf16_reduction_math_sdp = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    return _fp16_bf16_reduction_math_sdp


@contextlib.contextmanager
def sdpa_kernel(backends: list[SDPBackend] | SDPBackend, set_priority: bool = False) -> Iterator[dict]:
    """torch.nn.attention.sdpa_kernel: only ``backends`` enabled inside, the previous switches restored after."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    chosen = {backends} if isinstance(backends, SDPBackend) else set(backends)
    previous = dict(_SDP_ENABLED)
    try:
        for kernel in _SDP_ENABLED:
            _SDP_ENABLED[kernel] = kernel in chosen
        yield {}
    finally:
        _SDP_ENABLED.update(previous)


def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True) -> contextlib.AbstractContextManager:
    """The deprecated form of ``sdpa_kernel`` with one switch per kernel (torch warns with a FutureWarning)."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=2)
    chosen = [kernel for kernel, on in ((SDPBackend.FLASH_ATTENTION, enable_flash),
                                        (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                                        (SDPBackend.MATH, enable_math), (SDPBackend.CUDNN_ATTENTION, enable_cudnn))
              if on]
    return sdpa_kernel(chosen)
