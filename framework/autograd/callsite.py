"""Find the user's source line that called into the framework (cheap: a frame walk, no formatting)."""
from __future__ import annotations

import os
import sys

_FRAMEWORK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


# id(code object) -> (code object, is it framework code?). Keyed by id because hashing a code object hashes
# its whole contents; the code object is kept in the value so its id cannot be reused by another one.
_inside: dict = {}
_enabled = True


def set_source_tracking(enabled: bool) -> None:
    """Turn the recording of user source lines (used in error explanations) on or off (it is on by default)."""
    global _enabled
    _enabled = bool(enabled)


def user_site(depth: int = 2):
    """(code object, lineno) of the innermost frame outside ``framework/``, or None.

    ``depth`` frames are skipped first (callers pass how many framework frames they know sit above them):
    since Python 3.11 every frame object the walk touches has to be created, and that is the cost here.
    """
    if not _enabled:
        return None
    try:
        f = sys._getframe(depth)
    except ValueError:  # a shallower stack than expected: start from the caller instead
        f = sys._getframe(1)
    inside = _inside
    while f is not None:
        code = f.f_code
        entry = inside.get(id(code))
        if entry is None:
            entry = inside[id(code)] = (code, code.co_filename.startswith(_FRAMEWORK_DIR))
        if not entry[1]:
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
