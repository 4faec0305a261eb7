"""Autocast's thread-local state, its per-device op lists and the casts an op gets under it (ATen's autocast_mode).

Each op that autocast touches starts with ``if _amp_state.on and autocast_applies("name", first_tensor):`` and
then returns ``autocast_run("name", op, ...)``: while autocast is off, that is one attribute read per call.
``autocast_run`` casts the op's tensor arguments by the op's policy and calls the op again with autocast
excluded (ATen's ExcludeDispatchKeyGuard), so the ops it calls inside run as they are, uncast.
Ops on neither list run as without autocast (a fallthrough), and the ops they call still see autocast on.
"""
from __future__ import annotations

import threading
import warnings

from .. import dtypes

# ---- which op runs in which dtype (aten/src/ATen/autocast_mode.cpp, autocast_mode.h), by the framework's names --
# lower: cast floating inputs to the autocast dtype; fp32: cast them to float32; fp32_set_opt_dtype: pass
# dtype=float32 unless a dtype was given (the op casts its input itself); promote: cast all to the widest type.
_CPU = {
    "lower": {"conv1d", "conv2d", "conv3d", "bmm", "mm", "vecdot", "baddbmm", "addmm", "addbmm", "linear",
              "matmul", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
              "scaled_dot_product_attention"},
    "fp32": {"avg_pool3d", "binary_cross_entropy", "grid_sample", "polar", "prod", "quantile", "nanquantile",
             "stft", "cdist", "trace", "cholesky", "cholesky_inverse", "cholesky_solve", "inverse", "lu_solve",
             "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d", "mse_loss",
             "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss",
             "cross_entropy", "l1_loss", "huber_loss", "margin_ranking_loss", "soft_margin_loss",
             "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div", "multilabel_margin_loss",
             "binary_cross_entropy_with_logits", "linalg.cond", "linalg.matrix_rank", "linalg.solve",
             "linalg.cholesky", "linalg.svdvals", "linalg.eigvals", "linalg.eigvalsh", "linalg.inv",
             "linalg.householder_product", "linalg.tensorinv", "linalg.tensorsolve", "geqrf", "qr", "svd",
             "triangular_solve", "fractional_max_pool2d", "fractional_max_pool3d", "adaptive_max_pool3d",
             "linalg.qr", "linalg.cholesky_ex", "linalg.svd", "linalg.eig", "linalg.eigh", "linalg.lstsq",
             "linalg.inv_ex"},
    "fp32_set_opt_dtype": set(),
    "promote": {"stack", "cat", "index_copy"},
}
_CUDA = {
    "lower": {"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
              "addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv", "vecdot", "linear", "addbmm", "baddbmm",
              "bmm", "chain_matmul", "multi_dot", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
              "scaled_dot_product_attention"},
    "fp32": {"acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal",
             "rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "rms_norm", "group_norm", "cosine_similarity",
             "poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss", "kl_div", "l1_loss",
             "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss", "multilabel_margin_loss",
             "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "binary_cross_entropy_with_logits",
             "dist", "pdist", "cdist", "renorm", "logsumexp", "interpolate"},
    "fp32_set_opt_dtype": {"prod", "softmax", "log_softmax", "cumprod", "cumsum", "linalg.vector_norm",
                           "linalg.matrix_norm", "sum"},
    "promote": {"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sample", "index_put",
                "tensordot", "scatter_add"},
    "banned": {"binary_cross_entropy"},  # raises: unsafe in float16 (ATen's binary_cross_entropy_banned)
}
# op name -> policy, per device type
POLICIES = {device: {name: policy for policy, names in lists.items() for name in names}
            for device, lists in (("cpu", _CPU), ("cuda", _CUDA))}
DEVICE_TYPES = ("cpu", "cuda")


class _State(threading.local):
    on = False  # some device type's autocast is enabled and not excluded: the one read each op makes
    cpu = False
    cuda = False
    cpu_dtype = dtypes.bfloat16  # torch's CPU default
    cuda_dtype = dtypes.float16
    cache_enabled = True
    nesting = 0


state = _State()
_cache: dict = {}  # id(fp32 leaf) -> (the leaf, kept alive so its id is not reused; its cast), as ATen's cached_casts
_cache_lock = threading.Lock()

def check_device_type(device_type: str) -> None:
    if device_type not in DEVICE_TYPES:
        raise RuntimeError("Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                           "xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device "
                           f"string: {device_type}")


def is_enabled(device_type: str = "cuda") -> bool:
    check_device_type(device_type)
    return getattr(state, device_type)


def set_enabled(device_type: str, enabled: bool) -> None:
    check_device_type(device_type)
    setattr(state, device_type, bool(enabled))
    state.on = state.cpu or state.cuda


def get_dtype(device_type: str) -> dtypes.dtype:
    check_device_type(device_type)
    return getattr(state, f"{device_type}_dtype")


def set_dtype(device_type: str, dtype) -> None:
    check_device_type(device_type)
    setattr(state, f"{device_type}_dtype", dtype)


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


# ---- the casts -------------------------------------------------------------------------------------------


def _device_type(t) -> str:
    return "cpu" if t.device == "cpu" else "cuda"


def _is_tensor(x) -> bool:
    return hasattr(x, "_array") and hasattr(x, "grad_fn")  # (a Tensor: this floor does not import tensor.py)


def _eligible(x, device_type: str) -> bool:
    """A floating tensor on the device type, not float64 (ATen's is_eligible)."""
    return (_is_tensor(x) and x.dtype.is_floating_point and x.dtype is not dtypes.float64
            and _device_type(x) == device_type)


def _cached_cast(to_type, x, device_type: str):
    """x cast to to_type if eligible; fp32 leaf weights cast to the autocast dtype once per region (cached)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_cached_cast(to_type, v, device_type) for v in x)
    if not _eligible(x, device_type) or x.dtype is to_type:
        return x
    if (to_type is getattr(state, f"{device_type}_dtype") and x.dtype is dtypes.float32 and x.requires_grad
            and x.is_leaf and x._base is None and state.cache_enabled):
        with _cache_lock:
            hit = _cache.get(id(x))
            if hit is not None:
                return hit[1]
            cast = x.to(to_type)
            _cache[id(x)] = (x, cast)
            return cast
    return x.to(to_type)


def _first_tensor(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            a = _first_tensor(a)
        if a is not None and _is_tensor(a):
            return a
    return None


def autocast_applies(name: str, *tensors) -> bool:
    """True when ``name`` has a policy under the autocast enabled for the device of the first tensor given."""
    t = _first_tensor(tensors)
    if t is None:
        return False
    device_type = _device_type(t)
    return getattr(state, device_type) and name in POLICIES[device_type]


def autocast_run(name: str, op, *args, **kwargs):
    """op(*args, **kwargs) with its tensors cast by ``name``'s policy, autocast excluded while op runs."""
    device_type = _device_type(_first_tensor(args))
    policy = POLICIES[device_type][name]
    if policy == "banned":
        raise RuntimeError(
            "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
            "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
            "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
            "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
            "safe to autocast.")
    if policy == "fp32_set_opt_dtype":
        first = _first_tensor(args)
        if _eligible(first, device_type) and kwargs.get("dtype") is None:
            kwargs["dtype"] = dtypes.float32
    else:
        if policy == "lower":
            to_type = getattr(state, f"{device_type}_dtype")
        elif policy == "fp32":
            to_type = dtypes.float32
        else:  # promote: float32 if any eligible input is float32, else the autocast dtype (float64 ignored)
            to_type = getattr(state, f"{device_type}_dtype")
            if any(_eligible(x, device_type) and x.dtype is dtypes.float32 for x in _flat(args, kwargs)):
                to_type = dtypes.float32
        args = tuple(_cached_cast(to_type, a, device_type) for a in args)
        kwargs = {k: _cached_cast(to_type, v, device_type) for k, v in kwargs.items()}
    state.on = False
    try:
        return op(*args, **kwargs)
    finally:
        state.on = state.cpu or state.cuda


def _flat(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, (list, tuple)):
            yield from _flat(a, {})
        else:
            yield a


def deprecation_warning(device_type: str, name: str) -> None:
    """torch's FutureWarning for torch.cuda.amp.X / torch.cpu.amp.X, word for word."""
    new = "amp.autocast" if name == "autocast" else "amp.GradScaler"
    warnings.warn(f"`torch.{device_type}.amp.{name}(args...)` is deprecated. "
                  f"Please use `torch.{new}('{device_type}', args...)` instead.", FutureWarning, stacklevel=3)
