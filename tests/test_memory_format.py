"""Memory formats against torch: channels_last(_3d) strides, is_contiguous answers, aliasing, grad_fn, errors."""
import itertools

import numpy as np
import pytest

import framework as fw
from framework.autograd import gradcheck

torch = pytest.importorskip("torch")

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]
SHAPES = [(2, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1), (1, 3, 1, 4), (2, 3, 4, 5, 6), (2, 1, 3, 1, 2), (3, 4, 5)]


def _pair(shape, seed=0):
    x = np.random.RandomState(seed).randn(*shape).astype(np.float32)
    return fw.tensor(x), torch.tensor(x)


def _permuted(f, t, perm):
    """Both tensors laid out with dims ``perm`` outermost first (a permuted contiguous copy, permuted back)."""
    inv = [perm.index(i) for i in range(len(perm))]
    return f.permute(perm).contiguous().permute(inv), t.permute(perm).contiguous().permute(inv)


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # the error's class and text are compared
        return type(e).__name__, str(e)


def _strides_and_values(r):
    if isinstance(r, bool) or r is None:
        return r
    return tuple(r.stride()), r.detach().cpu().numpy().tolist()


def test_names_and_repr():
    for name in FORMATS:
        assert repr(getattr(fw, name)) == repr(getattr(torch, name)).replace("torch.", "framework.")
    assert isinstance(fw.channels_last, fw.memory_format)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["contiguous", "clone", "to", "is_contiguous"])
def test_methods_as_torch_on_every_layout(shape, method):
    f0, t0 = _pair(shape)
    for perm in itertools.permutations(range(len(shape))):
        f, t = _permuted(f0, t0, list(perm))
        assert f.stride() == t.stride()
        for name in FORMATS:
            got = _outcome(lambda: getattr(f, method)(memory_format=getattr(fw, name)))
            want = _outcome(lambda: getattr(t, method)(memory_format=getattr(torch, name)))
            assert got[0] == want[0], (perm, name, got, want)
            if got[0] != "ok":
                assert got[1] == want[1]
                continue
            assert _strides_and_values(got[1]) == _strides_and_values(want[1]), (perm, name)
            if method in ("contiguous", "to"):  # returns self exactly when torch does
                assert (got[1] is f) == (want[1] is t), (perm, name)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 4, 5, 6), (2, 3, 1, 1)])
def test_like_factories_and_empty_as_torch(shape):
    f0, t0 = _pair(shape, seed=1)
    last = (0, 2, 3, 1) if len(shape) == 4 else (0, 2, 3, 4, 1)
    perms = [tuple(range(len(shape))), last, tuple(reversed(range(len(shape))))]
    for perm in perms:
        f, t = _permuted(f0, t0, list(perm))
        for fn in ["empty_like", "zeros_like", "ones_like", "rand_like", "randn_like", "randint_like"]:
            args = (5,) if fn == "randint_like" else ()
            for name in FORMATS:
                got = _outcome(lambda: getattr(fw, fn)(f, *args, memory_format=getattr(fw, name)).stride())
                want = _outcome(lambda: getattr(torch, fn)(t, *args, memory_format=getattr(torch, name)).stride())
                assert got == want, (fn, perm, name)
            assert getattr(fw, fn)(f, *args).stride() == getattr(torch, fn)(t, *args).stride(), (fn, perm)
        assert fw.zeros_like(f).stride() == torch.zeros_like(t).stride()
        assert fw.full_like(f, 2.0).stride() == torch.full_like(t, 2.0).stride()
        assert (fw.ones_like(f, memory_format=fw.channels_last if len(shape) == 4 else fw.channels_last_3d)
                .cpu().numpy() == 1).all()
    for name in FORMATS:
        got = _outcome(lambda: fw.empty(*shape, memory_format=getattr(fw, name)).stride())
        want = _outcome(lambda: torch.empty(*shape, memory_format=getattr(torch, name)).stride())
        assert got == want, name


def test_like_result_is_a_leaf_that_requires_grad():
    x = fw.randn(2, 3, 4, 5).to(memory_format=fw.channels_last)
    z = fw.zeros_like(x, requires_grad=True)
    assert z.is_leaf and z.requires_grad and z.grad_fn is None and z.stride() == (60, 1, 15, 3)


def test_grad_fn_and_gradients_as_torch():
    f, t = _pair((2, 3, 4, 5), seed=2)
    f.requires_grad_(True)
    t.requires_grad_(True)
    cases = [lambda x, m: x.to(memory_format=m.channels_last), lambda x, m: x.contiguous(memory_format=m.channels_last),
             lambda x, m: x.clone(memory_format=m.channels_last),
             lambda x, m: x.to(m.float64, memory_format=m.channels_last)]
    for case in cases:
        fo, to = case(f, fw), case(t, torch)
        assert type(fo.grad_fn).__name__ == type(to.grad_fn).__name__
        w = np.random.RandomState(3).randn(2, 3, 4, 5)
        (fo * fw.tensor(w, dtype=fo.dtype)).sum().backward()
        (to * torch.tensor(w, dtype=to.dtype)).sum().backward()
        np.testing.assert_allclose(f.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-6)
        assert f.grad.stride() == t.grad.stride()
        f.grad = None
        t.grad = None


def test_gradcheck_float64():
    x = fw.randn(2, 3, 2, 2, dtype=fw.float64, requires_grad=True)
    assert gradcheck(lambda a: a.to(memory_format=fw.channels_last) * 2, (x,))
    assert gradcheck(lambda a: a.contiguous(memory_format=fw.channels_last).sum(1), (x,))
    y = fw.randn(2, 3, 2, 2, 2, dtype=fw.float64, requires_grad=True)
    assert gradcheck(lambda a: a.clone(memory_format=fw.channels_last_3d).exp(), (y,))


def test_views_and_ops_follow_the_layout():
    f, t = _pair((2, 3, 4, 5), seed=4)
    f, t = f.to(memory_format=fw.channels_last), t.to(memory_format=torch.channels_last)
    assert (f * 2).stride() == (t * 2).stride()  # elementwise results keep the layout, as torch's
    with pytest.raises(RuntimeError):
        f.view(2, 60)
    np.testing.assert_array_equal(f.reshape(2, 60).cpu().numpy(), t.reshape(2, 60).numpy())
    np.testing.assert_array_equal(f.permute(0, 2, 3, 1).contiguous().cpu().numpy(), t.permute(0, 2, 3, 1).numpy())
    assert f.permute(0, 2, 3, 1).is_contiguous()


def test_module_to_memory_format():
    conv, tconv = fw.nn.Conv2d(3, 4, 3), torch.nn.Conv2d(3, 4, 3)
    weight = conv.weight
    conv.to(memory_format=fw.channels_last)
    tconv.to(memory_format=torch.channels_last)
    assert conv.weight is weight and isinstance(conv.weight, fw.nn.Parameter)
    assert conv.weight.stride() == tconv.weight.stride() and conv.bias.stride() == tconv.bias.stride()
    fw.nn.Linear(2, 3).to(memory_format=fw.channels_last)  # no 4-D tensor: nothing to lay out
    with pytest.raises(RuntimeError, match="^required rank 5 tensor to use channels_last_3d format$"):
        fw.nn.Conv2d(2, 3, 3).to(memory_format=fw.channels_last_3d)
    x = fw.randn(1, 3, 6, 6).to(memory_format=fw.channels_last)
    out = conv(x)
    out.sum().backward()
    assert out.shape == (1, 4, 4, 4) and conv.weight.grad.shape == conv.weight.shape


def test_errors_as_torch():
    f, t = _pair((3, 4, 5))
    with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last format$"):
        f.contiguous(memory_format=fw.channels_last)
    with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last format$"):
        fw.empty(2, 3, 4, memory_format=fw.channels_last)
    with pytest.raises(RuntimeError, match="^unsupported memory format Preserve$"):
        fw.empty(2, 3, 4, memory_format=fw.preserve_format)
    with pytest.raises(RuntimeError, match="^preserve memory format is unsupported by the contiguous operator$"):
        f.transpose(0, 1).contiguous(memory_format=fw.preserve_format)
    assert f.contiguous(memory_format=fw.preserve_format) is f  # already contiguous: torch returns it too
    assert t.contiguous(memory_format=torch.preserve_format) is t
    with pytest.raises(TypeError):
        f.to(memory_format=3)


@pytest.mark.parametrize("shape", [(2, 3, 1, 1), (2, 1, 4, 5), (1, 3, 1, 4), (2, 3, 4, 1)])
def test_preserve_format_keeps_size1_strides_as_torch(shape):
    """torch's preserve_format copy of a dense tensor keeps its strides exactly, size-1 dims included."""
    f, t = _pair(shape, seed=5)
    f, t = f.to(memory_format=fw.channels_last), t.to(memory_format=torch.channels_last)
    assert f.stride() == t.stride()
    assert f.clone().stride() == t.clone().stride()
    assert f.to(fw.float64).stride() == t.to(torch.float64).stride()
    assert fw.zeros_like(f).stride() == torch.zeros_like(t).stride()
    assert fw.empty_like(f).stride() == torch.empty_like(t).stride()
    np.testing.assert_array_equal(f.clone().cpu().numpy(), t.clone().numpy())
    np.testing.assert_array_equal(f.to(fw.float64).cpu().numpy(), t.to(torch.float64).numpy())


def _laid_out(m, x, perm, keep):
    """``x`` (3-D) laid out with dims ``perm`` outermost first, then reduced to size 1 (keepdim) along ``keep``'s
    dims, which then broadcast in where."""
    inv = [perm.index(i) for i in range(len(perm))]
    t = m.tensor(x).permute(perm).contiguous().permute(inv)
    return t.amax(keep, keepdim=True) if keep else t


WHERE_LAYOUTS = [((0, 1, 2), ()), ((0, 2, 1), ()), ((2, 1, 0), ()), ((1, 0, 2), ()), ((0, 2, 1), (0,)),
                 ((2, 1, 0), (1,)), ((0, 1, 2), (0, 2))]


@pytest.mark.parametrize("cond_layout", WHERE_LAYOUTS)
@pytest.mark.parametrize("a_layout", WHERE_LAYOUTS)
def test_where_result_is_laid_out_by_its_operands_in_order_as_torchs(cond_layout, a_layout):
    """torch's where is a TensorIterator over (condition, a, b): the first operand whose strides order a pair of
    dims decides it, a broadcast one is skipped; NumPy's where gave its own (row-major) result, which a later
    view(-1) accepted where torch's refuses (fuzz seed 3901557: an inverse's column-major batch)."""
    rs = np.random.RandomState(0)
    xs = [rs.randn(2, 3, 4).astype(np.float32) for _ in range(3)]
    results = []
    for m in (fw, torch):
        cond = _laid_out(m, xs[0], *cond_layout) > 0
        for b_layout in ((0, 2, 1), ()), ((1, 0, 2), (2,)):
            a = _laid_out(m, xs[1], *a_layout)
            b = _laid_out(m, xs[2], *b_layout)
            for args in ((cond, a, b), (cond, b, a), (cond, a, 0.5), (cond, 0.5, b)):
                r = m.where(*args)
                results.append((tuple(r.stride()), r.cpu().numpy().tolist(), _outcome(lambda: r.view(-1).shape)[0]))
    n = len(results) // 2
    assert results[:n] == results[n:]


def test_where_of_an_inverse_and_a_broadcast_refuses_view_as_torchs():
    """The fuzzer's shrunk program (seed 3901557)."""
    x = np.array([[[-1.29, -0.65, -0.67], [1.26, 0.42, -1.13], [-0.96, -1.27, 1.06]],
                  [[-0.29, 1.86, 0.48], [0.75, 1.44, -0.83], [0.01, 0.65, -0.19]]])
    outcomes = []
    for m in (fw, torch):
        t1 = m.tensor(x, dtype=m.float32)
        t2 = m.linalg.inv(t1)
        t9 = m.where(t2 > 0, t2, t1.logsumexp(-3, keepdim=True))
        outcomes.append((tuple(t9.stride()), _outcome(lambda: t9.view(-1).shape)))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][1][0] == "RuntimeError"
