"""Elementwise results of several tensors laid out as torch's TensorIterator lays them out: by the operands, the first
that orders a pair of dims deciding (a transposed first operand gives a transposed result, where NumPy lets C order
win), and their gradients likewise.  Observable through stride(), is_contiguous() and whether view() is allowed."""
import warnings

import numpy as np
import pytest

import framework as fw
from op_table import OPS

torch = pytest.importorskip("torch")


def _spec(kind: str, shape: tuple):
    """An operand: 't' a transposed (column-major) view, 's' a slice with steps, 'c' a contiguous tensor."""
    return kind, shape


# (3, 4) operands in each layout against each other, a broadcast row, column and 0-d operand on either side
PAIRS = [[_spec("t", (3, 4)), _spec("c", (3, 4))], [_spec("c", (3, 4)), _spec("t", (3, 4))],
         [_spec("t", (3, 4)), _spec("t", (3, 4))], [_spec("t", (3, 4)), _spec("c", (4,))],
         [_spec("c", (4,)), _spec("t", (3, 4))], [_spec("t", (3, 4)), _spec("c", ())],
         [_spec("c", ()), _spec("t", (3, 4))], [_spec("t", (3, 4)), _spec("c", (3, 1))],
         [_spec("c", (3, 1)), _spec("t", (3, 4))], [_spec("s", (3, 4)), _spec("c", (3, 4))],
         [_spec("c", (3, 4)), _spec("s", (3, 4))]]
TRIPLES = [p + [_spec("c", (3, 4))] for p in PAIRS] + [[_spec("c", (3, 4))] + p for p in PAIRS] + \
    [[p[0], _spec("c", (3, 4)), p[1]] for p in PAIRS]


def _loss(m):
    return m.nn.functional


def _ints(a):
    return (a * 10).long()


BINARY = {
    "add": lambda m, a, b: m.add(a, b, alpha=2), "sub": lambda m, a, b: a - b, "rsub": lambda m, a, b: m.rsub(a, b),
    "mul": lambda m, a, b: a * b, "div": lambda m, a, b: a / b, "pow": lambda m, a, b: a ** b,
    "div_floor": lambda m, a, b: m.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda m, a, b: m.div(a, b, rounding_mode="trunc"), "floor_divide": lambda m, a, b: a // b,
    "remainder": lambda m, a, b: a % b, "fmod": lambda m, a, b: m.fmod(a, b), "atan2": lambda m, a, b: m.atan2(a, b),
    "hypot": lambda m, a, b: m.hypot(a, b), "fmax": lambda m, a, b: m.fmax(a, b), "fmin": lambda m, a, b: m.fmin(a, b),
    "maximum": lambda m, a, b: m.maximum(a, b), "minimum": lambda m, a, b: m.minimum(a, b),
    "copysign": lambda m, a, b: m.copysign(a, b), "ldexp": lambda m, a, b: m.ldexp(a, b),
    "float_power": lambda m, a, b: m.float_power(a, b), "heaviside": lambda m, a, b: m.heaviside(a - 1, b),
    "xlogy": lambda m, a, b: m.xlogy(a, b), "special_xlogy": lambda m, a, b: m.special.xlogy(a, b),
    "xlog1py": lambda m, a, b: m.special.xlog1py(a, b), "zeta": lambda m, a, b: m.special.zeta(a + 1, b),
    "logaddexp": lambda m, a, b: m.logaddexp(a, b), "logaddexp2": lambda m, a, b: m.logaddexp2(a, b),
    "igamma": lambda m, a, b: m.igamma(a, b), "igammac": lambda m, a, b: m.igammac(a, b),
    "nextafter": lambda m, a, b: m.nextafter(a, b),
    "eq": lambda m, a, b: a == b, "lt": lambda m, a, b: a < b, "isclose": lambda m, a, b: m.isclose(a, b),
    "logical_and": lambda m, a, b: m.logical_and(a > 1, b > 1), "and": lambda m, a, b: (a > 1) & (b > 1),
    "bitwise_xor": lambda m, a, b: m.bitwise_xor(_ints(a), _ints(b)), "gcd": lambda m, a, b: m.gcd(_ints(a), _ints(b)),
    "left_shift": lambda m, a, b: m.bitwise_left_shift(_ints(a), (b * 2).long()),
    "clamp_min": lambda m, a, b: m.clamp_min(a, b), "clamp_max_kw": lambda m, a, b: m.clamp(a, max=b),
    "where": lambda m, a, b: m.where(b > 1, a, b), "lerp": lambda m, a, b: m.lerp(a, b, 0.3),
    "mse_loss": lambda m, a, b: _loss(m).mse_loss(a, b, reduction="none"),
    "smooth_l1_loss": lambda m, a, b: _loss(m).smooth_l1_loss(a, b, reduction="none"),
    "huber_loss": lambda m, a, b: _loss(m).huber_loss(a, b, reduction="none"),
    "binary_cross_entropy": lambda m, a, b: _loss(m).binary_cross_entropy(a / 3, b / 3, reduction="none"),
    "bce_with_logits": lambda m, a, b: _loss(m).binary_cross_entropy_with_logits(a, b, reduction="none"),
}
TERNARY = {
    "lerp_tensor": lambda m, a, b, c: m.lerp(a, b, c), "addcmul": lambda m, a, b, c: m.addcmul(a, b, c, value=0.5),
    "addcdiv": lambda m, a, b, c: m.addcdiv(a, b, c, value=0.5), "clamp": lambda m, a, b, c: m.clamp(a, b - 1, c + 1),
    "where": lambda m, a, b, c: m.where(c > 1.2, a, b),
}


def _make(m, kind: str, values: np.ndarray):
    """The leaf (which gets the gradient) and the operand laid out as ``kind`` asks."""
    if kind == "t":
        leaf = m.tensor(np.ascontiguousarray(values.T), dtype=m.float64, requires_grad=True)
        return leaf, leaf.t()
    if kind == "s":
        wide = np.repeat(values, 2, axis=-1)
        leaf = m.tensor(wide, dtype=m.float64, requires_grad=True)
        return leaf, leaf[:, ::2]
    leaf = m.tensor(values, dtype=m.float64, requires_grad=True)
    return leaf, leaf


def _strides(m, fn, specs, seed: int):
    """The result's strides and each leaf's gradient's strides (None where it has none), or the error's class."""
    rng = np.random.default_rng(seed)
    values = [rng.uniform(0.5, 2.0, shape) for _, shape in specs]
    leaves, operands = zip(*[_make(m, kind, v) for (kind, _), v in zip(specs, values)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(m, *operands)
        except (RuntimeError, NotImplementedError, TypeError, ValueError) as e:
            return type(e).__name__
        found = [tuple(out.stride())]
        if out.requires_grad:
            g = m.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)), dtype=out.dtype)
            try:
                grads = m.autograd.grad(out, leaves, g, allow_unused=True)
            except (RuntimeError, NotImplementedError):
                return found
            found.append([None if x is None else tuple(x.stride()) for x in grads])
    return found


def _label(specs) -> str:
    return ",".join(f"{k}{list(s)}" for k, s in specs)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("specs", PAIRS, ids=[_label(p) for p in PAIRS])
def test_binary_layout_as_torch(name, specs):
    theirs = _strides(torch, BINARY[name], specs, 0)
    if isinstance(theirs, str):
        pytest.skip(f"torch refuses: {theirs}")
    assert _strides(fw, BINARY[name], specs, 0) == theirs


@pytest.mark.parametrize("name", sorted(TERNARY))
@pytest.mark.parametrize("specs", TRIPLES, ids=[_label(p) for p in TRIPLES])
def test_ternary_layout_as_torch(name, specs):
    theirs = _strides(torch, TERNARY[name], specs, 0)
    if isinstance(theirs, str):
        pytest.skip(f"torch refuses: {theirs}")
    assert _strides(fw, TERNARY[name], specs, 0) == theirs


def _elementwise_rows():
    """The op-table rows of 2+ tensor operands whose result has their broadcast shape (an elementwise op)."""
    rows = []
    for case in OPS:
        if len(case.shapes) < 2 or case.nondiff:
            continue
        try:
            shape = np.broadcast_shapes(*[tuple(s) for s in case.shapes])
        except ValueError:
            continue
        if len(shape) < 2:
            continue
        xs = [torch.rand(s, dtype=torch.float64) + 0.5 for s in case.shapes]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = case.fn(torch, *xs)
            except Exception:  # noqa: BLE001  (not an op of these operands: not a row for this test)
                continue
        if isinstance(out, torch.Tensor) and tuple(out.shape) == tuple(shape):
            rows.append(case)
    return rows


ROWS = _elementwise_rows()


def _row_layouts(case):
    """Each operand of 2+ dims transposed in memory alone, then all of them."""
    big = [i for i, s in enumerate(case.shapes) if len(s) >= 2]
    return [[i] for i in big] + ([big] if len(big) > 1 else [])


def _row_strides(m, case, moved):
    rng = np.random.default_rng(7)
    lo, hi = case.domain
    leaves, operands = [], []
    for i, shape in enumerate(case.shapes):
        if i in moved:  # the same values, stored with the dims in reverse order
            leaf = m.tensor(np.ascontiguousarray(rng.uniform(lo, hi, shape).T), dtype=m.float64, requires_grad=True)
            operands.append(leaf.permute(*range(len(shape) - 1, -1, -1)))
        else:
            leaf = m.tensor(rng.uniform(lo, hi, shape), dtype=m.float64, requires_grad=True)
            operands.append(leaf)
        leaves.append(leaf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = case.fn(m, *operands)
        g = m.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)), dtype=out.dtype)
        grads = m.autograd.grad(out, leaves, g, allow_unused=True) if out.requires_grad else ()
    return tuple(out.stride()), [None if x is None else tuple(x.stride()) for x in grads]


def test_the_table_has_elementwise_rows():
    assert len(ROWS) >= 10


@pytest.mark.parametrize("case", ROWS, ids=[c.name for c in ROWS])
def test_op_table_row_layout_as_torch(case):
    for moved in _row_layouts(case):
        assert _row_strides(fw, case, moved) == _row_strides(torch, case, moved), f"operands {moved} transposed"
