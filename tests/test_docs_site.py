"""The docs site's machinery (docs/hooks/): lessons run for real, graphs drawn without Graphviz, API families."""
import importlib.util
import os
import re

import pytest

import framework as torch
from framework import viz

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the hook runs the example scripts in their own process, as a user runs them (on the CPU)
pytestmark = pytest.mark.explicit_device


def _hook(name):
    path = os.path.join(ROOT, "docs", "hooks", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"docs_hooks_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_inplace_lesson_shows_the_explanation_because_it_ran():
    lessons = _hook("lessons")
    md = lessons.on_page_markdown("# t\n\n<!-- run: examples/inplace_errors.py --quick --out {out} -->\n",
                                  None, None, None)
    assert "<!-- run:" not in md
    assert "What happened:" in md and "How to fix it:" in md
    assert "modified by an inplace operation" in md
    assert 'class="autograd-graph"' in md and "STALE" in md  # the graph the script saved, drawn
    assert ROOT not in md  # no path of the building machine on the page


def test_a_failing_command_fails_the_build(tmp_path):
    lessons = _hook("lessons")
    with pytest.raises(lessons.RunError, match="exited with"):
        lessons.render_run("-c raise(SystemExit(3))")


def test_dot_to_svg_draws_every_node_and_edge():
    lessons = _hook("lessons")
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    loss = (a * w).exp().sum()
    dot = viz.to_dot(loss, params={"a": a, "w": w})
    nodes, edges = lessons.parse_dot(dot)
    assert len(nodes) == dot.count("[label=") and len(edges) == dot.count("->")
    svg = lessons.dot_to_svg(dot)
    assert svg.count("<rect") == len(nodes) and svg.count("<line") == len(edges)
    for label in ("SumBackward0", "ExpBackward0", "MulBackward0", "a", "w", "output ()"):
        assert f">{label}</text>" in svg
    # inputs are drawn below what consumes them (time flows upwards, as rankdir=BT): the output box is on top,
    # the leaves' boxes at the bottom
    boxes = re.findall(r'<rect x="[\d.]+" y="([\d.]+)"', svg)
    order = [n for n in nodes]
    top = {n: float(v) for n, v in zip(order, boxes)}
    out = next(n for n in order if n.startswith("out"))
    leaves = [n for n, (lines, _, _) in nodes.items() if lines[0] in ("a", "w")]
    assert top[out] == min(top.values()) and all(top[n] == max(top.values()) for n in leaves)


def test_families_name_only_public_paths_that_exist_in_torch():
    families = _hook("families")
    pytorch = pytest.importorskip("torch")
    missing = []
    for _, _, groups in families.FAMILIES:
        for ns, names in groups:
            module = importlib.import_module(ns)
            missing += [f"{ns}.{n}" for n in names if not hasattr(module, n)]
            assert ns.split(".")[0] == "torch"
    assert pytorch.__version__.startswith("2.") and not missing


def test_api_entries_use_public_paths():
    families = _hook("families")
    block = families.api_block("conv")
    assert "::: framework.nn.functional.conv2d" in block and "::: framework.nn.Conv2d" in block
    assert "framework.ops." not in block
    assert families.framework_object("torch.nn.functional", "conv2d") is torch.nn.functional.conv2d


def test_nav_pages_exist():
    yaml = pytest.importorskip("yaml")
    with open(os.path.join(ROOT, "mkdocs.yml")) as f:
        config = yaml.safe_load(f)

    def pages(nav):
        for item in nav:
            if isinstance(item, str):
                yield item
            else:
                for value in item.values():
                    yield from ([value] if isinstance(value, str) else pages(value))

    listed = list(pages(config["nav"]))
    assert len(listed) >= 12
    assert all(os.path.exists(os.path.join(ROOT, "docs", p)) for p in listed)
    keys = {f[0] for f in _hook("families").FAMILIES}
    for p in listed:
        with open(os.path.join(ROOT, "docs", p)) as f:
            for key in re.findall(r"<!-- api: (\w+) -->", f.read()):
                assert key in keys or key == "framework"
