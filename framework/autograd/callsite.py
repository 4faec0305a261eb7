"""Find the user's source line that called into the framework (cheap: a frame walk, no formatting)."""
from __future__ import annotations

import os
import sys

_FRAMEWORK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


_inside: dict = {}  # code object -> is it framework code? (so the walk does no string work after warm-up)
_enabled = True


def set_source_tracking(enabled: bool) -> None:
    """Turn the recording of user source lines (used in error explanations) on or off (it is on by default)."""
    global _enabled
    _enabled = bool(enabled)


def user_site():
    """(code object, lineno) of the innermost frame outside ``framework/``, or None."""
    if not _enabled:
        return None
    f = sys._getframe(2)
    inside = _inside
    while f is not None:
        code = f.f_code
        flag = inside.get(code)
        if flag is None:
            flag = inside[code] = code.co_filename.startswith(_FRAMEWORK_DIR)
        if not flag:
            return (code, f.f_lineno)  # formatted only if an error is ever explained
        f = f.f_back
    return None


def format_site(site) -> str:
    """'file.py:12 in main: <source line>' for a site from user_site()."""
    if site is None:
        return "<unknown location>"
    import linecache

    code, lineno = site
    filename, func = code.co_filename, code.co_name
    line = linecache.getline(filename, lineno).strip()
    text = f"{filename}:{lineno} in {func}"
    return f"{text}: {line}" if line else text
