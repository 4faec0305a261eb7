"""repr() of tensors equals torch's over a generated, seeded set of cases: shapes up to 4-d, sizes around the line
wrap (linewidth 80) and the summarising threshold (1000 elements, 3 edge items), each dtype, value mixes (signs, nan,
inf, large and small values that switch to scientific notation), requires_grad/grad_fn suffixes and
set_printoptions variants."""
import re

import numpy as np
import pytest

import framework as fw

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]
SHAPES = [(), (1,), (5,), (8,), (9,), (12,), (13,), (16,), (17,), (25,), (2, 8), (8, 2), (3, 9), (2, 13),
          (4, 4), (6, 6), (7, 7), (1, 1, 5), (2, 3, 4), (3, 1, 7), (2, 2, 2, 3), (1, 2, 1, 9), (1001,),
          (999,), (32, 32), (31, 33), (10, 101), (2, 7, 72), (3, 3, 3, 40), (0,), (2, 0), (0, 3, 2)]
VALUES = ["pos", "neg", "mixed", "ints", "small", "large", "huge", "tiny", "nan_inf", "zeros", "spread"]
OPTIONS = [{}, {"precision": 2}, {"precision": 6}, {"linewidth": 40}, {"linewidth": 120}, {"sci_mode": True},
           {"sci_mode": False}, {"threshold": 10}, {"threshold": 50, "edgeitems": 1}, {"edgeitems": 2},
           {"profile": "short"}, {"profile": "full"}, {"edgeitems": 0, "threshold": 5}]


def _values(kind: str, shape, rng) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    base = rng.random(n)
    out = {
        "pos": base * 10,
        "neg": -base * 10,
        "mixed": (base - 0.5) * 20,
        "ints": np.round((base - 0.5) * 200),
        "small": (base - 0.5) * 1e-3,
        "large": base * 1e5,
        "huge": (base - 0.3) * 1e9,
        "tiny": base * 1e-6,
        "zeros": np.zeros(n),
        "spread": base * 10.0 ** rng.integers(-6, 7, n),
        "nan_inf": np.where(base < 0.2, np.nan, np.where(base > 0.85, -np.inf, (base - 0.5) * 8)),
    }[kind]
    if kind == "nan_inf" and n:
        out[0] = np.inf
    return out.reshape(shape)


def _cases():
    rng = np.random.default_rng(2033)
    cases = []
    for i in range(360):
        dtype = DTYPES[i % len(DTYPES)]
        shape = SHAPES[int(rng.integers(len(SHAPES)))]
        kind = VALUES[int(rng.integers(len(VALUES)))]
        opts = OPTIONS[int(rng.integers(len(OPTIONS)))] if i % 3 == 0 else {}
        grad = "none"
        if dtype in ("float32", "float64") and i % 5 == 0:
            grad = ("leaf", "fn")[int(rng.integers(2))]
        cases.append((i, dtype, shape, kind, opts, grad))
    return cases


def _pair(dtype, shape, kind, grad, rng):
    vals = _values(kind, shape, rng)
    t = torch.tensor(vals, dtype=torch.float64).to(getattr(torch, dtype))
    if dtype == "bfloat16":
        ours = fw.tensor(vals).to(fw.bfloat16)
    else:
        ours = fw.tensor(t.to(torch.float64).numpy() if dtype != "bool" else t.numpy()).to(getattr(fw, dtype))
    if grad == "leaf":
        t.requires_grad_(True)
        ours.requires_grad_(True)
    elif grad == "fn":
        t = t.requires_grad_(True) * 2
        ours = ours.requires_grad_(True) * 2
    return ours, t


def _expected(t, device: str = "cpu") -> str:
    """torch's repr with our spelling of dtypes (framework.int32), its suffixes wrapped by torch's own rule for the
    longer name (a `dtype=` suffix that fits on torch's line may not fit on ours)."""
    full = repr(t)
    body = "tensor(" + torch._tensor_str._tensor_str(t.detach(), len("tensor(")) if t.numel() else "tensor([]"
    assert full.startswith(body)
    suffixes = [s for s in re.split(r",\s+(?=[a-z_]+=)", full[len(body):-1]) if s]
    suffixes = [s.replace("torch.", "framework.") for s in suffixes]
    if device != "cpu":  # torch's own tensor on that device: its device suffix comes first
        suffixes.insert(0, f"device='{device}'")
    return torch._tensor_str._add_suffixes(body, suffixes, len("tensor("), False)


@pytest.fixture
def restore_printoptions():
    yield
    torch.set_printoptions(profile="default")
    fw.set_printoptions(profile="default")


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c[0]}-{c[1]}-{c[3]}")
def test_repr_matches_torch(case, device, restore_printoptions):
    i, dtype, shape, kind, opts, grad = case
    if dtype == "bfloat16" and device != "cpu":
        pytest.skip("CuPy has no bfloat16")
    rng = np.random.default_rng(i)
    ours, theirs = _pair(dtype, shape, kind, grad, rng)
    torch.set_printoptions(**opts)
    fw.set_printoptions(**opts)
    assert repr(ours) == _expected(theirs, str(ours.device))


def test_two_by_eight_prints_on_two_lines():
    """The reported case: a 2x8 float tensor whose widest value is narrower than the first one's digits."""
    vals = np.array([[0.1, -1.2, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8], [9.9, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -7.5]])
    ours = fw.tensor(vals, dtype=fw.float32)
    assert repr(ours) == _expected(torch.tensor(vals, dtype=torch.float32), str(ours.device))


def test_printoptions_round_trip(restore_printoptions):
    fw.set_printoptions(precision=3, linewidth=60)
    torch.set_printoptions(precision=3, linewidth=60)
    assert fw.get_printoptions() == torch._tensor_str.get_printoptions()
