"""Find the user's source line that called into the framework (cheap: a frame walk, no formatting)."""
from __future__ import annotations

import os
import sys

_FRAMEWORK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_site():
    """(filename, lineno, function) of the innermost frame outside ``framework/``, or None."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_FRAMEWORK_DIR):
        f = f.f_back
    if f is None:
        return None
    return (f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


def format_site(site) -> str:
    """'file.py:12 in main: <source line>' for a site from user_site()."""
    if site is None:
        return "<unknown location>"
    import linecache

    filename, lineno, func = site
    line = linecache.getline(filename, lineno).strip()
    text = f"{filename}:{lineno} in {func}"
    return f"{text}: {line}" if line else text
