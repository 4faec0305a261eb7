"""Run one scenario against framework and torch and compare what a user would observe."""
from __future__ import annotations

import re
import warnings


def outcome(fn, m):
    """('ok', value) or ('error', class name, torch's first sentence, versions) for fn(m)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", fn(m))
    except Exception as e:  # noqa: BLE001 - we compare whatever was raised
        first = str(e).split("\n")[0]
        first = first.replace("torch.", "framework.")
        versions = tuple(re.findall(r"version (\d+)", first))
        head = first.split(":")[0] if "modified by an inplace operation" in first else first
        return ("error", type(e).__name__, head, versions)


def same_outcome(fn, torch_module):
    import framework

    ours, theirs = outcome(fn, framework), outcome(fn, torch_module)
    return ours, theirs


def error_of(fn):
    """("ok",) or (error class name, first line of its message) for fn(), torch's names and device kernel names
    ('_cuda"') made comparable with framework's."""
    try:
        fn()
        return ("ok",)
    except Exception as e:  # noqa: BLE001 - we compare whatever was raised
        text = str(e).replace("torch.", "framework.").replace('_cuda"', '_cpu"')
        return (type(e).__name__, text.split("\n")[0])
