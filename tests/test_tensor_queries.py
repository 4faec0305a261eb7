"""Tensor queries and legacy constructors torch scripts use: new(), dim_order(), layout and torch.strided, the
sparse/quantized/... flags, is_pinned/pin_memory, share_memory_/is_shared, conj_physical(_), torch.fill,
is_same_size / is_signed / is_conj / is_neg / get_device. Against torch where torch's answer is the same here."""
import pickle
import warnings

import numpy as np
import pytest

import framework
from framework.testing import gradcheck
from scenario import outcome


def _both():
    torch = pytest.importorskip("torch")
    return framework, torch


NEW = {
    "sizes": lambda m, x: x.new(2, 3),
    "size_object": lambda m, x: x.new(m.Size([4])),
    "nothing": lambda m, x: x.new(),
    "zero": lambda m, x: x.new(0),
    "list": lambda m, x: x.new([1, 2]),
    "nested_list": lambda m, x: x.new([[1.5, 2]]),
    "tuple_is_data": lambda m, x: x.new((2, 3)),
    "device": lambda m, x: x.new(2, device="cpu"),
}


@pytest.mark.parametrize("name", sorted(NEW))
def test_legacy_new_matches_torch(name):
    for_both = []
    for m in _both():
        x = m.ones(2, 3, dtype=m.float64, device="cpu")
        r = NEW[name](m, x)
        for_both.append((tuple(r.shape), str(r.dtype).split(".")[-1], r.requires_grad,
                         r.tolist() if name in ("list", "nested_list", "tuple_is_data") else None))
    assert for_both[0] == for_both[1]


def test_new_of_a_tensor_is_an_alias_as_torch():
    outs = []
    for m in _both():
        x = m.ones(3, requires_grad=True)
        y = x.new(x)
        y.detach().add_(1)  # the alias shares x's memory
        outs.append((y.grad_fn.name(), y._base is x, x.tolist()))
    assert outs[0] == outs[1]


NEW_ERRORS = {
    "dtype_keyword": lambda m: m.ones(2).new(2, dtype=m.float64),
    "other_dtype_tensor": lambda m: m.ones(2, device="cpu").new(m.ones(2, dtype=m.float64, device="cpu")),
    "float_data": lambda m: m.ones(2).new(2.5),
    "str_data": lambda m: m.ones(2).new("ab"),
}


@pytest.mark.parametrize("name", sorted(NEW_ERRORS))
def test_new_errors_match_torch(name):
    fw, torch = _both()
    assert outcome(NEW_ERRORS[name], fw) == outcome(NEW_ERRORS[name], torch)


DIM_ORDERS = {
    "contiguous": lambda m: m.empty(2, 3, 4),
    "permuted": lambda m: m.empty(2, 3, 4).permute(2, 0, 1),
    "transposed": lambda m: m.empty(3, 4).t(),
    "channels_last": lambda m: m.empty(2, 3, 4, 5).to(memory_format=m.channels_last),
    "expanded": lambda m: m.empty(3, 1).expand(3, 4),
    "size_one": lambda m: m.empty(2, 1, 4).permute(1, 0, 2),
    "sliced": lambda m: m.empty(4, 6)[:, ::2].t(),
    "scalar": lambda m: m.empty(()),
}


@pytest.mark.parametrize("name", sorted(DIM_ORDERS))
def test_dim_order_matches_torch(name):
    outs = []
    for m in _both():
        t = DIM_ORDERS[name](m)
        outs.append((t.dim_order(), outcome(lambda _: t.dim_order(ambiguity_check=True), m)))
    assert outs[0] == outs[1]


def test_layout_and_flags_as_torch():
    outs = []
    for m in _both():
        x = m.ones(2)
        flags = [getattr(x, f) for f in ("is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested",
                                         "is_meta", "is_ipu", "is_maia", "is_mtia", "is_vulkan", "is_xla")]
        outs.append((x.layout == m.strided, repr(x.layout).split(".")[-1], isinstance(m.strided, m.layout),
                     x.new_zeros(2).layout is m.strided, flags))
    assert outs[0] == outs[1]
    assert pickle.loads(pickle.dumps(framework.strided)) is framework.strided


def test_pinning_and_sharing():
    fw, torch = _both()
    outs = []
    for m in (fw, torch):
        x = m.ones(2, device="cpu")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pinned_with_device = x.is_pinned("cpu")
        outs.append((x.is_pinned(), pinned_with_device, [type(w.message) for w in caught][:1],
                     x.share_memory_() is x))
    assert outs[0] == outs[1]
    if not framework.accelerator.is_available():  # torch's CPU-only answer; with a GPU framework refuses plainly
        assert outcome(lambda m: m.ones(2).pin_memory(), fw) == outcome(lambda m: m.ones(2).pin_memory(), torch)
    else:
        with pytest.raises(NotImplementedError, match="pin_memory"):
            framework.ones(2, device="cpu").pin_memory()
    assert framework.ones(2).is_shared() is False  # (torch's True after share_memory_: no shared storage here)


def test_conj_physical_of_a_real_tensor_as_torch():
    outs = []
    for m in _both():
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 1
        v = y._version
        r = m.conj_physical_(y)
        s = y.conj_physical_()
        (r * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        i = m.arange(3)
        outs.append((m.conj_physical(x) is x, x.conj_physical() is x, r is y, s is y, y._version - v,
                     r.grad_fn.name(), x.grad.tolist(), m.conj_physical(i) is i, i.conj_physical_() is i))
    assert outs[0] == outs[1]


FILLS = {
    "number": lambda m, x: m.fill(x, 2.5),
    "int_input": lambda m, x: m.fill(m.arange(3), 2.7),
    "bool_input": lambda m, x: m.fill(m.ones(2, dtype=m.bool), 2),
    "tensor_value": lambda m, x: m.fill(x, m.tensor(1.5, dtype=x.dtype)),
    "transposed": lambda m, x: m.fill(x.t(), -1),
}


@pytest.mark.parametrize("name", sorted(FILLS))
def test_fill_matches_torch(name):
    outs = []
    for m in _both():
        x = m.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        r = FILLS[name](m, x)
        outs.append((r.tolist(), str(r.dtype).split(".")[-1], r.stride(), None if r.grad_fn is None else
                     r.grad_fn.name(), x._version))
    assert outs[0] == outs[1]


def test_fill_gradients_and_gradcheck():
    outs = []
    for m in _both():
        x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
        v = m.tensor(0.5, dtype=m.float64, requires_grad=True)
        (m.fill(x, v) * m.arange(6.0, dtype=m.float64).view(2, 3)).sum().backward()
        outs.append((x.grad.tolist(), v.grad.item()))
    assert outs[0] == outs[1]
    x = framework.ones(2, 3, dtype=framework.float64, requires_grad=True)
    v = framework.tensor(0.5, dtype=framework.float64, requires_grad=True)
    assert gradcheck(lambda a, b: framework.fill(a * 2, b * b), [x, v])


FILL_ERRORS = {
    "value_not_0d": lambda m: m.fill(m.ones(2), m.ones(2)),
    "value_str": lambda m: m.fill(m.ones(2), "a"),
}


@pytest.mark.parametrize("name", sorted(FILL_ERRORS))
def test_fill_errors_match_torch(name):
    fw, torch = _both()
    assert outcome(FILL_ERRORS[name], fw) == outcome(FILL_ERRORS[name], torch)


def test_top_level_queries_as_torch():
    outs = []
    for m in _both():
        x, u = m.ones(2, 3, device="cpu"), m.ones(2, dtype=m.uint8, device="cpu")
        outs.append((m.is_same_size(x, x), m.is_same_size(x, u), m.is_signed(x), m.is_signed(u), m.is_conj(x),
                     m.is_neg(x), m.get_device(x)))
    assert outs[0] == outs[1]
