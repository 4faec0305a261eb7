"""The foreach Adam/AdamW update as one fused CuPy elementwise kernel per flat bucket (GPU only).

On a GPU, adam_foreach's dozen array calls are a dozen kernel launches, each reading and writing the whole
buffer; one kernel reads p, g, m, v once and writes them once.  The source repeats adam_step's formulas in
the same order, with every scalar computed in Python (double) and cast to the array's type, as NumPy does;
``--fmad=false`` stops the compiler from contracting a*b+c into an FMA, so the rounding is NumPy's.
If the kernel cannot be built (an old CuPy, no compiler), this returns False once, warns, and adam_foreach
runs its array calls instead.
"""
from __future__ import annotations

import warnings

from ..backend import elementwise_kernel

_broken = False
_ran: set = set()  # kernels that compiled and ran once: a later failure is a real error, not a missing compiler


def _source(amsgrad: bool, maximize: bool, wd_mode: str, lerp_low: bool) -> tuple[str, str, str]:
    """(in_params, out_params, operation) for one combination of options (each compiles to its own kernel)."""
    ops = ["T gi = " + ("-g" if maximize else "g") + ";"]
    if wd_mode == "coupled":
        ops.append("gi = gi + p * wd;")
    elif wd_mode == "decoupled":
        ops.append("p = p * decay;")
    # _lerp: avg += w * (target - avg) when w < 0.5, else avg = target - (target - avg) * (1 - w)
    ops.append("m = m + w1 * (gi - m);" if lerp_low else "m = gi - (gi - m) * om_w1;")
    ops.append("v = v * beta2;")
    ops.append("v = v + (om_beta2 * gi) * gi;")
    if amsgrad:
        ops.append("mx = (mx != mx || mx >= v) ? mx : v;")  # numpy.maximum: NaN wins
        ops.append("T denom = sqrt(mx) / bc2s + eps;")
    else:
        ops.append("T denom = sqrt(v) / bc2s + eps;")
    ops.append("p = p + (m / denom) * neg_step_size;")
    in_params = "T g, T wd, T decay, T w1, T om_w1, T beta2, T om_beta2, T bc2s, T eps, T neg_step_size"
    out_params = "T p, T m, T v" + (", T mx" if amsgrad else "")
    return in_params, out_params, "\n".join(ops)


def fused_adam_(bucket, step_size: float, bias_correction2_sqrt: float, *, lr: float, beta1: float, beta2: float,
                eps: float, weight_decay: float, amsgrad: bool, maximize: bool, decoupled: bool) -> bool:
    """Run the whole Adam(W) update of ``bucket`` as one kernel; False when it cannot (then nothing changed)."""
    global _broken
    if _broken or bucket.param.dtype.kind not in "fV" or bucket.param.dtype.itemsize < 4:
        return False
    wd_mode = "none" if weight_decay == 0 else ("decoupled" if decoupled else "coupled")
    w1 = 1 - beta1
    in_params, out_params, operation = _source(amsgrad, maximize, wd_mode, w1 < 0.5)
    name = f"framework_adam_{int(amsgrad)}{int(maximize)}{wd_mode}{int(w1 < 0.5)}"
    st, cast = bucket.state, bucket.param.dtype.type
    scalars = [cast(x) for x in (weight_decay, 1 - lr * weight_decay, w1, 1 - w1, beta2, 1 - beta2,
                                 bias_correction2_sqrt, eps, -step_size)]
    outs = [bucket.param, st["exp_avg"], st["exp_avg_sq"]] + ([st["max_exp_avg_sq"]] if amsgrad else [])
    try:  # CuPy compiles on the first call; a compile error raises before the kernel writes anything
        elementwise_kernel(in_params, out_params, operation, name, options=("--fmad=false",))(
            bucket.grad, *scalars, *outs)
    except Exception as exc:
        if name in _ran:
            raise
        _broken = True  # no nvrtc, an old cupy: keep training with the array calls
        warnings.warn(f"framework: the fused Adam kernel is unavailable ({exc}); using array calls instead")
        return False
    _ran.add(name)
    if decoupled and weight_decay != 0:
        bucket.bump("MulBackward0")  # the same version bumps as adam_step: param.mul_ ...
    bucket.bump("AddBackward0")  # ... and param.add_
    return True
