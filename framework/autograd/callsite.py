"""Find the user's source line that called into the framework (cheap: a frame walk, no formatting)."""
from __future__ import annotations

import linecache
import os
import sys

_FRAMEWORK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


# co_filename -> is it framework code? Keyed by the file name, whose string hash Python caches (a code
# object's own hash would hash its whole contents, and id() + a lookup costs twice the time).
_inside: dict = {}
_enabled = True


def set_source_tracking(enabled: bool) -> None:
    """Turn the recording of user source lines (used in error explanations) on or off (it is on by default)."""
    global _enabled
    _enabled = bool(enabled)


def user_site(depth: int = 2):
    """(code object, bytecode offset) of the innermost frame outside ``framework/``, or None.

    ``depth`` frames are skipped first (callers pass how many framework frames they know sit above them):
    since Python 3.11 every frame object the walk touches has to be created, and that is the cost here.
    The offset (f_lasti) is kept rather than the line number: it is a plain read, while f_lineno decodes
    the line table on every op; format_site() turns it into a line only when an error is explained.
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
        framework = inside.get(code.co_filename)
        if framework is None:
            framework = inside[code.co_filename] = code.co_filename.startswith(_FRAMEWORK_DIR)
        if not framework:
            return (code, f.f_lasti)  # formatted only if an error is ever explained
        f = f.f_back
    return None


def site_lineno(site) -> int:
    """The source line of a site from user_site() (the line whose bytecode holds the offset)."""
    code, lasti = site
    line = code.co_firstlineno
    for start, end, lineno in code.co_lines():
        if start <= lasti < end and lineno is not None:
            return lineno
        if lineno is not None and start <= lasti:
            line = lineno
    return line


def format_site(site) -> str:
    """'file.py:12 in main: <source line>' for a site from user_site()."""
    if site is None:
        return "<unknown location>"
    code = site[0]
    lineno = site_lineno(site)
    filename, func = code.co_filename, code.co_name
    line = linecache.getline(filename, lineno).strip()
    text = f"{filename}:{lineno} in {func}"
    return f"{text}: {line}" if line else text
