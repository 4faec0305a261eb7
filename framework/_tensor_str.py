"""repr() of tensors, formatted like torch's (torch/_tensor_str.py, ported onto numpy arrays)."""
from __future__ import annotations

import math

import numpy as np

from . import dtypes

PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80
SCI_MODE = None  # None: chosen from the values, as torch's; True/False: forced (set_printoptions(sci_mode=))


def set_printoptions(precision: int | None = None, threshold: int | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """torch.set_printoptions: digits, summarising threshold, edge items, line width, a profile ('default',
    'short', 'full') and forced scientific notation; unset options keep their value (sci_mode: back to auto)."""
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    if profile == "default":
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80
    elif profile == "short":
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 2, 1000, 2, 80
    elif profile == "full":
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, math.inf, 3, 80
    if precision is not None:
        PRECISION = precision
    if threshold is not None:
        THRESHOLD = threshold
    if edgeitems is not None:
        EDGEITEMS = edgeitems
    if linewidth is not None:
        LINEWIDTH = linewidth
    SCI_MODE = sci_mode


def get_printoptions() -> dict:
    """The options set_printoptions sets (torch._tensor_str.get_printoptions)."""
    return {"precision": PRECISION, "threshold": THRESHOLD, "edgeitems": EDGEITEMS, "linewidth": LINEWIDTH,
            "sci_mode": SCI_MODE}


class _Formatter:
    """Chooses int mode ('2.'), fixed ('1.5000') or scientific ('1.0000e+05') and a common width."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind in "fV"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        vals = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if vals.size == 0:
            return
        absv = np.abs(vals)
        vmin, vmax = absv.min(), absv.max()
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
        if SCI_MODE is not None:
            self.sci_mode = SCI_MODE
        for v in vals.tolist():
            if self.sci_mode:
                s = f"{v:.{PRECISION}e}"
            elif self.int_mode:
                s = f"{v:.0f}" + " "
            else:
                s = f"{v:.{PRECISION}f}"
            self.max_width = max(self.max_width, len(s))

    def format(self, value) -> str:
        if self.floating:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRECISION}f}"
        else:
            ret = str(value)
        return " " * (self.max_width - len(ret)) + ret


def _summarized(a: np.ndarray) -> np.ndarray:
    if a.ndim == 0:
        return a
    if a.ndim > 1 and not EDGEITEMS:  # nothing is shown (torch's 1-d case keeps all: a[-0:] is the whole)
        return a[(slice(0, 0),) * a.ndim]
    if a.shape[0] > 2 * EDGEITEMS:
        parts = [a[:EDGEITEMS], a[-EDGEITEMS:]]
    else:
        parts = [a]
    if a.ndim == 1:
        return np.concatenate(parts)
    return np.stack([_summarized(x) for p in parts for x in p])


def _vector_str(a, indent, summarize, fmt) -> str:
    per_line = max(1, math.floor((LINEWIDTH - indent) / (fmt.max_width + 2)))
    if summarize and not EDGEITEMS:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * EDGEITEMS:
        data = [fmt.format(v) for v in a[:EDGEITEMS].tolist()] + [" ..."] + \
               [fmt.format(v) for v in a[-EDGEITEMS:].tolist()]
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _array_str(a, indent, summarize, fmt) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        rows = [_array_str(a[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)] + ["..."] + \
               [_array_str(a[i], indent + 1, summarize, fmt) for i in range(len(a) - EDGEITEMS, len(a))]
    else:
        rows = [_array_str(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def tensor_str(t, prefix: str = "tensor(") -> str:
    """torch-style repr: ``tensor([[1., 2.]], requires_grad=True)``."""
    a = t._numpy_view()
    indent = len(prefix)
    if a.size == 0:
        body = "[]"
    else:
        summarize = a.size > THRESHOLD
        fmt = _Formatter(_summarized(a) if summarize else a)
        body = _array_str(a, indent, summarize, fmt)
    suffixes = []
    if t.device != "cpu":
        suffixes.append(f"device='{t.device}'")
    if (a.size == 0 and a.shape != (0,)) or (a.size and not EDGEITEMS):
        suffixes.append(f"size={tuple(a.shape)}")
    default = (dtypes.default_float.np, np.dtype(np.int64), np.dtype(np.bool_))
    if a.dtype not in default or (a.size == 0 and a.dtype != dtypes.default_float.np):
        suffixes.append(f"dtype={t.dtype!r}")
    try:
        fn_name = None if t.grad_fn is None else type(t.grad_fn).__name__  # as torch: the class, not name()
    except RuntimeError:  # a view whose history cannot be rebuilt (made under no_grad, base changed): as torch
        fn_name = "Invalid"
    if fn_name is not None:
        suffixes.append(f"grad_fn=<{fn_name}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    out = prefix + body
    last_len = len(out) - out.rfind("\n") + 1
    for s in suffixes:
        if last_len + len(s) + 2 > LINEWIDTH:
            out += ",\n" + " " * indent + s
            last_len = indent + len(s)
        else:
            out += ", " + s
            last_len += len(s) + 2
    return out + ")"
