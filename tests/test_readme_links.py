"""README.md is a front page: at most 300 lines, every relative link resolves, and its test command is CI's."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _readme() -> str:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


def _relative_links(text: str) -> list[str]:
    return [t for t in LINK.findall(text) if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_readme_is_a_front_page():
    assert len(_readme().splitlines()) <= 300


def test_every_relative_link_resolves():
    links = _relative_links(_readme())
    assert len(links) >= 20, "the front page links into the docs site"
    missing = [t for t in links if not os.path.exists(os.path.join(ROOT, t.split("#")[0]))]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_link_checker_sees_a_broken_link():
    assert _relative_links("[a](docs/nope.md) [b](https://x.org) [c](#top) ![d](docs/gan/x.png)") == \
        ["docs/nope.md", "docs/gan/x.png"]


def test_ci_runs_the_readmes_test_command():
    command = next(line for line in _readme().splitlines() if line.startswith('pip install -e ".[test'))
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    assert 'python -m pytest -q && FRAMEWORK_TEST_DEVICE=strict python -m pytest -q' in command
    assert command.split("&&", 1)[1].strip() in ci
