"""Import direction: each module of framework/ imports only its own floor or the floors below, with no cycles.

The floors (docs/design/layout.md): a reader can start at floor 1 and climb.  The checker
reads the import statements with ``ast`` (no import is run), so a planted bad import is caught before it can
hide behind the import order; two subprocess tests then check what really gets loaded.
"""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "framework"

# module (or package prefix) -> floor; the longest matching prefix wins
FLOORS = {
    "framework.backend": 1, "framework.dtypes": 1, "framework.random": 1, "framework.cuda": 1,
    "framework.cpu": 1, "framework.accelerator": 1, "framework.vmap_state": 1, "framework.backends": 1,
    "framework.memory_layout": 1,
    # floor 2: the data object and the autograd state it carries (grad mode, graph node, version counter)
    "framework.autograd.grad_mode": 2, "framework.autograd.node": 2, "framework.autograd.version": 2,
    "framework.autograd.view_meta": 2, "framework.autograd.as_strided": 2,
    "framework.autograd.callsite": 2, "framework._tensor_str": 2, "framework.tensor": 2, "framework.creation": 2,
    "framework.autograd": 3, "framework.diagnostics": 3,
    # autocast's state and casts (read by the ops above) and the GradScaler, which acts on Tensors only
    "framework.amp": 3, "framework.cuda.amp": 3, "framework.cpu.amp": 3,
    # process groups and collectives act on Tensors only; nn.parallel (DDP, floor 5) builds on them
    "framework.distributed": 3,
    "framework.ops": 4, "framework._tensor_methods": 4, "framework._nn_aliases": 8,
    # dtype and shape queries sit beside the factories; the global switches read autograd's anomaly mode
    "framework.type_info": 2, "framework.windows": 2, "framework.settings": 3,
    "framework.nn": 5,
    "framework.optim": 6,
    "framework.utils": 7, "framework.serialization": 7, "framework.viz": 7, "framework.testing": 7,
    "framework.distributions": 7, "framework.torch_format": 7, "framework.special": 7,
    "framework.linalg": 7,
    "framework.compile": 7,
    "framework.onnx": 7,  # the export tracer wraps the ops' Function.apply and maps nn modules
    "framework.func": 7,
    "framework": 8,
}
# imports allowed inside a function: optional dependencies only (each with a comment saying so)
LAZY_OK = {"cupy", "cupyx", "graphviz", "mpi4py", "matplotlib", "threadpoolctl", "onnx"}


def floor_of(module: str, floors: dict = FLOORS) -> int:
    # a prefix covers its submodules, except the top package's own entry: a new module must be placed
    best = max((p for p in floors if module == p or ("." in p and module.startswith(p + "."))), key=len,
               default=None)
    if best is None:
        raise KeyError(f"{module} is on no floor: add it to FLOORS")
    return floors[best]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str, root: Path) -> bool:
    rel = Path(*name.split(".")[1:]) if "." in name else Path()
    return (root / rel).with_suffix(".py").is_file() or (root / rel / "__init__.py").is_file()


def imports_of(path: Path, root: Path):
    """Yield (target module, line, inside a function, line text) for each import of a module under ``root``."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    in_function = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            in_function.update(id(n) for n in ast.walk(fn) if n is not fn)
    top = root.name
    for node in ast.walk(tree):
        nested = id(node) in in_function
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, nested, lines[node.lineno - 1]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target != top and not target.startswith(top + "."):
                yield target, node.lineno, nested, lines[node.lineno - 1]
                continue
            for alias in node.names:  # `from . import ops` imports the submodule framework.ops
                sub = f"{target}.{alias.name}"
                yield (sub if _is_module(sub, root) else target), node.lineno, nested, lines[node.lineno - 1]


def import_graph(root: Path) -> dict:
    """module -> {imported module of the same package: (line, inside a function)}."""
    graph = {}
    for path in sorted(root.rglob("*.py")):
        edges = graph.setdefault(module_name(path, root), {})
        for target, line, nested, _ in imports_of(path, root):
            if target == root.name or target.startswith(root.name + "."):
                edges.setdefault(target, (line, nested))
    return graph


def upward_imports(root: Path, floors: dict = FLOORS) -> list:
    return [f"{mod}:{line} (floor {floor_of(mod, floors)}) imports {tgt} (floor {floor_of(tgt, floors)})"
            for mod, edges in import_graph(root).items() for tgt, (line, _) in edges.items()
            if floor_of(tgt, floors) > floor_of(mod, floors)]


def cycles(root: Path) -> list:
    """Strongly connected groups of more than one module (Tarjan), and modules that import themselves."""
    graph = import_graph(root)
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in graph.get(v, {}):
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def function_level_imports(root: Path) -> list:
    """Imports inside functions other than of an optional dependency named in LAZY_OK with a comment."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        for target, line, nested, text in imports_of(path, root):
            if nested and not (target.split(".")[0] in LAZY_OK and "#" in text):
                bad.append(f"{module_name(path, root)}:{line} imports {target} inside a function")
    return bad


def closure(module: str, root: Path) -> set:
    """Every module that ``module``'s own import statements pull in, transitively."""
    graph, seen, todo = import_graph(root), set(), [module]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, {}))
    return seen


# ---- the framework's own floors ------------------------------------------------------------------------

# ---- families inside ops/ and nn/: the same rule one level down ---------------------------------------
# a family (a subpackage or module of ops/ or nn/) imports only families of its own rank or below; "" is the
# package's own __init__ (its face), which may import everything
RANKS = {
    "framework.ops": {"_util": 0, "_twin": 0, "_sliding": 0, "_separable": 0, "scalar_ops": 0,
                      "backward_ops": 0, "pointwise": 1, "conversion": 1, "creation": 1, "shape": 2, "indexing": 3,
                      "sorting": 4, "search": 4, "sampling": 4, "reduction": 5, "linalg": 6, "activation": 7,
                      "loss": 7, "normalization": 7, "attention": 8, "dropout": 7, "sparse": 7, "recurrent": 7, "pooling": 7, "vision": 8,
                      "conv": 9, "": 10},
    # torch's layout: modules/rnn.py imports utils/rnn.py (PackedSequence), the rest of utils builds on modules
    "framework.nn": {"parameter": 0, "init": 0, "attention": 0, "functional": 1, "utils.rnn": 1, "modules": 2, "utils": 3,
                     "parallel": 3, "": 4},
}


def family_of(module: str, package: str) -> str:
    """The RANKS key of ``module`` inside ``package`` (the longest matching one)."""
    rest = module[len(package) + 1:] if module != package else ""
    table = RANKS[package]
    best = max((k for k in table if k and (rest == k or rest.startswith(k + "."))), key=len, default=None)
    if best is None:
        if rest:
            raise KeyError(f"{module} is in no family of {package}: add it to RANKS")
        best = ""
    return best


def upward_family_imports(root: Path, package: str) -> list:
    bad = []
    for mod, edges in import_graph(root).items():
        if not mod.startswith(package + ".") and mod != package:
            continue
        for tgt, (line, _) in edges.items():
            if tgt.startswith(package + ".") and family_of(tgt, package) != family_of(mod, package):
                if RANKS[package][family_of(tgt, package)] > RANKS[package][family_of(mod, package)]:
                    bad.append(f"{mod}:{line} ({family_of(mod, package)}) imports {tgt} ({family_of(tgt, package)})")
    return bad


@pytest.mark.parametrize("package", sorted(RANKS))
def test_no_family_imports_a_higher_family(package):
    assert upward_family_imports(PACKAGE, package) == []


def test_no_accretion_names():
    """Files are named for what they hold, never for the round that added them."""
    bad = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
           if re.search(r"_(more|extra|misc|\d+|\d\d+[a-z])$", p.stem)]
    assert bad == []


def public_definitions(root: Path, skip: tuple = ()) -> dict:
    """public top-level name -> modules under ``root`` that define it (def, class or assignment)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        if path.name == "__init__.py" or any(part in skip for part in path.relative_to(root).parts):
            continue
        for node in ast.parse(path.read_text()).body:
            names = []
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            for name in names:
                if not name.startswith("_"):
                    found.setdefault(name, set()).add(module_name(path, PACKAGE))
    return found


@pytest.mark.parametrize("folder, skip", [("ops", ()), ("nn", ("utils",))])
def test_each_public_name_defined_once(folder, skip):
    """No public name is defined in two modules, where the last import would silently win (torch itself has two
    spectral_norm's in nn/utils, which is skipped)."""
    twice = {n: sorted(m) for n, m in public_definitions(PACKAGE / folder, skip).items() if len(m) > 1}
    assert twice == {}


def test_no_file_over_700_lines():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 700}
    assert long == {}


def test_no_family_module_is_shadowed_by_a_function():
    """Each family module stays reachable by its dotted name: no function the face exports has its name."""
    import importlib
    import pkgutil
    import types
    code = (
        "import importlib, pkgutil, types, framework, framework.nn, framework.nn.functional\n"
        "bad = []\n"
        "for name in ['framework.ops', 'framework.nn.functional', 'framework.nn.modules']:\n"
        "    stack = [importlib.import_module(name)]\n"
        "    while stack:\n"
        "        p = stack.pop()\n"
        "        for info in pkgutil.iter_modules(p.__path__):\n"
        "            mod = importlib.import_module(p.__name__ + '.' + info.name)\n"
        "            if getattr(p, info.name, None) is not mod:\n"
        "                bad.append(mod.__name__)\n"
        "            if info.ispkg:\n"
        "                stack.append(mod)\n"
        "print(bad)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_every_module_is_on_a_floor():
    for mod in import_graph(PACKAGE):
        floor_of(mod)


def test_no_module_imports_a_higher_floor():
    assert upward_imports(PACKAGE) == []


def test_no_import_cycles():
    assert cycles(PACKAGE) == []


def test_no_function_level_imports_except_optional_dependencies():
    assert function_level_imports(PACKAGE) == []


def test_tensor_imports_no_op_and_autograd_no_nn():
    tensor_deps = closure("framework.tensor", PACKAGE)
    assert not [m for m in tensor_deps if m.startswith(("framework.ops", "framework._tensor_methods"))]
    assert {"framework.autograd.engine", "framework.autograd.function"}.isdisjoint(tensor_deps)
    autograd_deps = closure("framework.autograd", PACKAGE)
    assert not [m for m in autograd_deps if m.startswith(("framework.nn", "framework.ops", "framework.optim"))]


def _loaded_after(code: str) -> set:
    """framework.* modules in sys.modules after ``code`` runs in a fresh interpreter."""
    script = code + "\nimport sys\nprint(' '.join(m for m in sys.modules if m.startswith('framework')))"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


# the package's own __init__ imports every floor up to ops, so these stand in an empty `framework` package:
# what gets loaded is then only what the floor itself imports
_STUB = ("import sys, types\n"
         "for name, sub in {stubs}:\n"
         "    m = types.ModuleType(name); m.__path__ = [{root!r} + sub]; sys.modules[name] = m\n")


def test_importing_autograd_loads_no_nn_and_no_ops():
    assert not [m for m in _loaded_after("import framework.autograd") if m.startswith("framework.nn")]
    stub = _STUB.format(stubs=[("framework", "")], root=str(PACKAGE))
    loaded = _loaded_after(stub + "import framework.autograd")
    assert "framework.tensor" in loaded and "framework.autograd.engine" in loaded
    assert not [m for m in loaded if m.startswith(("framework.nn", "framework.ops", "framework.optim"))]


def test_importing_tensor_loads_no_op_module():
    stub = _STUB.format(stubs=[("framework", ""), ("framework.autograd", "/autograd")], root=str(PACKAGE))
    loaded = _loaded_after(stub + "import framework.tensor")
    assert "framework.tensor" in loaded
    assert not [m for m in loaded if m.startswith(("framework.ops", "framework._tensor_methods", "framework.nn"))]
    assert "framework.autograd.engine" not in loaded and "framework.autograd.function" not in loaded


# ---- the checker itself can fail -----------------------------------------------------------------------

def _plant(tmp_path: Path, files: dict) -> Path:
    root = tmp_path / "framework"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_checker_catches_an_upward_import(tmp_path):
    root = _plant(tmp_path, {"__init__.py": "", "tensor.py": "from .ops import add\n",
                             "ops/__init__.py": "def add(a, b):\n    return a\n"})
    assert upward_imports(root) == ["framework.tensor:1 (floor 2) imports framework.ops (floor 4)"]
    assert "framework.ops" in closure("framework.tensor", root)


def test_checker_catches_a_cycle_and_a_function_level_import(tmp_path):
    root = _plant(tmp_path, {
        "__init__.py": "",
        "autograd/__init__.py": "from .engine import run\n",
        "autograd/engine.py": "from ..diagnostics import explain\ndef run():\n    pass\n",
        "diagnostics.py": """\
            def explain():
                from .autograd import engine
                import graphviz
                import cupy  # optional dependency
                return engine
            """})
    assert cycles(root) == [["framework.autograd.engine", "framework.diagnostics"]]
    assert function_level_imports(root) == ["framework.diagnostics:2 imports framework.autograd.engine inside a "
                                            "function", "framework.diagnostics:3 imports graphviz inside a function"]


def test_checker_knows_no_floor_for_a_new_module():
    with pytest.raises(KeyError, match="on no floor"):
        floor_of("framework.jit")  # no such module yet: a new module must be given a floor
    assert floor_of("framework.autograd.grad_mode") == 2 and floor_of("framework.autograd.engine") == 3


def test_family_checker_catches_an_upward_import_and_a_duplicate(tmp_path, monkeypatch):
    root = _plant(tmp_path, {"__init__.py": "", "ops/__init__.py": "",
                             "ops/pointwise/__init__.py": "", "ops/pointwise/unary.py": "from ..linalg.blas import mm\n",
                             "ops/linalg/__init__.py": "", "ops/linalg/blas.py": "def mm(a, b):\n    return a\n",
                             "ops/shape/__init__.py": "", "ops/shape/views.py": "def mm(a, b):\n    return a\n"})
    assert upward_family_imports(root, "framework.ops") == [
        "framework.ops.pointwise.unary:1 (pointwise) imports framework.ops.linalg.blas (linalg)"]
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", root)
    assert {n: sorted(m) for n, m in public_definitions(root / "ops").items() if len(m) > 1} == {
        "mm": ["framework.ops.linalg.blas", "framework.ops.shape.views"]}
    with pytest.raises(KeyError, match="in no family"):
        family_of("framework.ops.jit", "framework.ops")
