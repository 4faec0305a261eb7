"""MkDocs hook: run the lessons' example scripts at build time and put their real output and graphs on the page.

A page asks for a run with a line of its own:

    <!-- run: examples/inplace_errors.py --quick --out {out} -->
    <!-- run: -m train gan --pitfalls -->

The hook runs ``python <args>`` from the repository root (``{out}`` becomes a fresh temporary folder), fails the
build if the command exits non-zero, and replaces the line with the script's source (folded), its output, every
graph the script wrote with ``framework.viz.save_graph`` (``*.dot``, drawn here as inline SVG) and every PNG it
wrote. Graphviz's ``dot`` program is not needed: the DOT text that ``framework.viz.to_dot`` writes is laid out
by the small layered drawing below, so the site builds on any machine that runs the tests.

Other placeholders, filled from the code itself so they cannot drift: ``<!-- api: FAMILY -->`` (mkdocstrings
entries for a family of public names, from ``docs/hooks/families.py``), ``<!-- coverage -->`` (the table of
torch names present in framework, per family) and ``<!-- tensor-methods -->`` (Tensor's methods as imported).
"""
from __future__ import annotations

import base64
import html
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = re.compile(r"^<!-- run: (.+?) -->$", re.M)
API = re.compile(r"^<!-- api: ([\w/ -]+?) -->$", re.M)
COVERAGE = re.compile(r"^<!-- coverage -->$", re.M)
METHODS = re.compile(r"^<!-- tensor-methods -->$", re.M)
TIMEOUT_S = 300


class RunError(Exception):
    """A lesson's command failed: the site must not show a lesson that did not run."""


def run_command(args: str, timeout: float = TIMEOUT_S) -> tuple[str, dict, dict]:
    """Run ``python <args>`` from the repo root; return (output, {name: svg}, {name: png bytes})."""
    with tempfile.TemporaryDirectory() as out:
        argv = [a.replace("{out}", out) for a in args.split()]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p),
                   MPLBACKEND="Agg", COLUMNS="110")
        proc = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=timeout)
        text = (proc.stdout + proc.stderr).replace(ROOT + os.sep, "").replace(out + os.sep, "")
        if proc.returncode != 0:
            raise RunError(f"`python {args}` exited with {proc.returncode}:\n{text[-3000:]}")
        svgs, pngs = {}, {}
        for name in sorted(os.listdir(out)):
            path = os.path.join(out, name)
            if name.endswith(".dot"):
                with open(path) as f:
                    svgs[name[:-4]] = dot_to_svg(f.read())
            elif name.endswith(".png"):
                with open(path, "rb") as f:
                    pngs[name[:-4]] = f.read()
    return text, svgs, pngs


def _fence(text: str, lang: str = "text", indent: str = "") -> str:
    body = "\n".join(indent + line for line in text.rstrip("\n").splitlines())
    return f"{indent}```{lang}\n{body}\n{indent}```"


def render_run(args: str) -> str:
    """The markdown that replaces one ``<!-- run: ... -->`` line."""
    text, svgs, pngs = run_command(args)
    parts = []
    script = args.split()[0]
    if script.endswith(".py"):
        with open(os.path.join(ROOT, script)) as f:
            source = f.read()
        parts.append(f'??? example "The script: `{script}`"\n\n{_fence(source, "python", "    ")}\n')
    shown = " ".join(a for a in args.split() if "{out}" not in a and a != "--out")
    parts.append(f"Output of `python {shown}`, run when this page was built:\n\n{_fence(text)}\n")
    for name, svg in svgs.items():
        parts.append(f'<figure class="autograd-graph" markdown="0">\n{svg}\n'
                     f"<figcaption>{html.escape(name)}: drawn from the DOT text of "
                     f"<code>framework.viz.save_graph</code></figcaption>\n</figure>\n")
    for name, png in pngs.items():
        data = base64.b64encode(png).decode()
        parts.append(f'<figure markdown="0"><img alt="{html.escape(name)}" src="data:image/png;base64,{data}">'
                     f"<figcaption>{html.escape(name)}.png, written by the script</figcaption></figure>\n")
    return "\n".join(parts)


# --- DOT (as framework.viz.to_dot writes it) to SVG, without Graphviz -----------------------------------------
_NODE = re.compile(r'^\s*"([^"]+)" \[label="((?:[^"\\]|\\.)*)", ([^\]\n]*)\]\s*$', re.M)
_EDGE = re.compile(r'^\s*"([^"]+)" -> "([^"]+)"\s*$', re.M)
_FILL = re.compile(r'fillcolor="([^"]+)"')
_COLORS = {"lightblue": "#add8e6", "lightgrey": "#d3d3d3", "darkolivegreen1": "#caff70"}
CHAR_W, LINE_H, PAD, GAP_X, GAP_Y = 6.7, 14, 8, 18, 36


def parse_dot(dot: str) -> tuple[dict, list]:
    """{id: (label lines, fill colour, stale)}, [(from, to)] from to_dot's output."""
    nodes = {}
    for nid, label, attrs in _NODE.findall(dot):
        label = label.replace('\\"', '"').replace("\\\\", "\\")
        fill = _FILL.search(attrs)
        colour = fill.group(1) if fill else "white"
        nodes[nid] = (label.split("\n"), _COLORS.get(colour, colour), "color=red" in attrs)
    return nodes, _EDGE.findall(dot)


def dot_to_svg(dot: str) -> str:
    """A layered drawing (inputs at the bottom, the output on top, as rankdir=BT) of a DOT graph as SVG text."""
    nodes, edges = parse_dot(dot)
    consumers = {n: [] for n in nodes}
    for a, b in edges:
        consumers[a].append(b)
    rank: dict = {}

    def rank_of(n):  # longest path to the output: every input sits below everything that consumes it
        if n not in rank:
            rank[n] = 1 + max((rank_of(c) for c in consumers[n]), default=-1)
        return rank[n]

    for n in nodes:
        rank_of(n)
    rows: list[list] = [[] for _ in range(max(rank.values(), default=0) + 1)]
    for n in nodes:  # dict order is the walk's order: stable
        rows[rank[n]].append(n)
    size = {n: (max(len(s) for s in lines) * CHAR_W + 2 * PAD, len(lines) * LINE_H + 2 * PAD)
            for n, (lines, _, _) in nodes.items()}
    x: dict = {}
    for r, row in enumerate(rows):  # order each row by where its consumers sit (barycentre), then pack it
        if r:
            row.sort(key=lambda n: sum(x[c] for c in consumers[n]) / max(len(consumers[n]), 1))
        cursor = 0.0
        for n in row:
            x[n] = cursor + size[n][0] / 2
            cursor += size[n][0] + GAP_X
    width = max(sum(size[n][0] for n in row) + GAP_X * (len(row) - 1) for row in rows) + 2 * GAP_X
    y, top = {}, GAP_Y / 2
    for row in rows:
        shift = (width - (sum(size[n][0] for n in row) + GAP_X * (len(row) - 1))) / 2
        row_h = max(size[n][1] for n in row)
        for n in row:
            x[n] += shift
            y[n] = top + (row_h - size[n][1]) / 2
        top += row_h + GAP_Y
    height = top - GAP_Y / 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
           f'width="{width:.0f}" style="max-width:100%;height:auto" font-family="monospace" font-size="11">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>']
    for a, b in edges:  # from the input's top edge up to the consumer's bottom edge
        out.append(f'<line x1="{x[a]:.1f}" y1="{y[a]:.1f}" x2="{x[b]:.1f}" y2="{y[b] + size[b][1]:.1f}" '
                   'stroke="#555" marker-end="url(#arrow)"/>')
    for n, (lines, fill, stale) in nodes.items():
        w, h = size[n]
        out.append(f'<rect x="{x[n] - w / 2:.1f}" y="{y[n]:.1f}" width="{w:.1f}" height="{h:.1f}" rx="3" '
                   f'fill="{fill}" stroke="{"red" if stale else "#333"}"/>')
        for i, line in enumerate(lines):
            out.append(f'<text x="{x[n]:.1f}" y="{y[n] + PAD + (i + 0.8) * LINE_H:.1f}" text-anchor="middle">'
                       f"{html.escape(line)}</text>")
    out.append("</svg>")
    return "\n".join(out)


# --- mkdocs events ----------------------------------------------------------------------------------------
def on_page_markdown(markdown: str, page, config, files) -> str:
    """Expand the run, api and coverage placeholders of one page."""
    if RUN.search(markdown):
        markdown = RUN.sub(lambda m: render_run(m.group(1)), markdown)
    if API.search(markdown) or COVERAGE.search(markdown) or METHODS.search(markdown):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import families  # docs/hooks/families.py: the public names of each family

        markdown = API.sub(lambda m: families.api_block(m.group(1).strip()), markdown)
        markdown = COVERAGE.sub(lambda m: families.coverage_table(), markdown)
        markdown = METHODS.sub(lambda m: families.tensor_methods(), markdown)
    return markdown
