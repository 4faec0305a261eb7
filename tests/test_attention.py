"""MultiheadAttention, scaled_dot_product_attention and the Transformer layers against torch (float64, torch's
weights copied in through state_dict): outputs, attention weights and gradients."""
import re

import numpy as np
import pytest

import framework
from framework.testing import assert_close

torch = pytest.importorskip("torch")
TOL = dict(rtol=1e-9, atol=1e-11)


def _pair(cls_name, *args, **kwargs):
    torch.manual_seed(0)
    t = getattr(torch.nn, cls_name)(*args, **kwargs).double()
    f = getattr(framework.nn, cls_name)(*args, **kwargs).double()
    t_state = t.state_dict()
    assert list(f.state_dict()) == list(t_state)
    f.load_state_dict({k: framework.tensor(v.detach().cpu().numpy()) for k, v in t_state.items()})
    return t, f


def _compare_params(t, f):
    for (n, p), (tn, tp) in zip(f.named_parameters(), t.named_parameters()):
        assert n == tn
        if tp.grad is None:
            assert p.grad is None or not p.grad.cpu().numpy().any()
        else:
            assert_close(p.grad, tp.grad.cpu().numpy(), **TOL)


rng = np.random.default_rng(0)
X = rng.standard_normal((5, 2, 8))  # (L, N, E)
MEM = rng.standard_normal((3, 2, 8))
CAUSAL_BOOL = np.triu(np.ones((5, 5), dtype=bool), 1)  # True = not allowed (MHA's rule)
CAUSAL_FLOAT = np.where(CAUSAL_BOOL, -np.inf, 0.0)
PAD = np.array([[False, False, False, True, True], [False, False, False, False, False]])

MHA_CASES = {
    "plain": dict(),
    "bool_attn_mask": dict(attn_mask=CAUSAL_BOOL),
    "float_attn_mask": dict(attn_mask=CAUSAL_FLOAT),
    "causal_hint": dict(attn_mask=CAUSAL_FLOAT, is_causal=True),
    "3d_mask": dict(attn_mask=rng.standard_normal((4, 5, 5))),
    "key_padding_bool": dict(key_padding_mask=PAD),
    "key_padding_float": dict(key_padding_mask=np.where(PAD, -1e9, 0.0)),
    "both_masks": dict(attn_mask=CAUSAL_BOOL, key_padding_mask=PAD),
    "per_head_weights": dict(average_attn_weights=False),
    "no_weights": dict(need_weights=False),
}


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("case", list(MHA_CASES))
def test_multihead_attention_matches_torch(case, batch_first):
    t, f = _pair("MultiheadAttention", 8, 2, batch_first=batch_first)
    kwargs = MHA_CASES[case]
    outs = []
    for m, mod in ((framework, f), (torch, t)):
        x = m.tensor(X.transpose(1, 0, 2) if batch_first else X, requires_grad=True)
        kw = {k: (m.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        out, w = mod(x, x, x, **kw)
        loss = (out * out).sum() + ((w * w).sum() if w is not None else 0)
        loss.backward()
        outs.append((out, w, x))
    (out, w, x), (t_out, t_w, t_x) = outs
    assert_close(out.detach(), t_out.detach().cpu().numpy(), **TOL)
    assert (w is None) == (t_w is None)
    if w is not None:
        assert_close(w.detach(), t_w.detach().cpu().numpy(), **TOL)
    assert_close(x.grad, t_x.grad.cpu().numpy(), **TOL)
    _compare_params(t, f)


def test_multihead_attention_cross_kdim_vdim_and_unbatched():
    t, f = _pair("MultiheadAttention", 8, 4, kdim=6, vdim=5)
    q, k, v = rng.standard_normal((4, 8)), rng.standard_normal((3, 6)), rng.standard_normal((3, 5))
    out, w = f(framework.tensor(q), framework.tensor(k), framework.tensor(v))
    t_out, t_w = t(torch.tensor(q), torch.tensor(k), torch.tensor(v))
    assert_close(out, t_out.detach().cpu().numpy(), **TOL)
    assert_close(w, t_w.detach().cpu().numpy(), **TOL)


def test_multihead_attention_init_and_errors():
    m = framework.nn.MultiheadAttention(8, 2)
    assert not m.in_proj_bias.detach().cpu().numpy().any() and not m.out_proj.bias.detach().cpu().numpy().any()
    assert abs(m.in_proj_weight.detach().cpu().numpy()).max() <= np.sqrt(6 / (8 + 24))
    x = framework.ones(3, 1, 8)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is \\(2, 2\\), but should be \\(3, 3\\)."):
        m(x, x, x, attn_mask=framework.zeros(2, 2))


SDPA_CASES = {
    "plain": dict(),
    "causal": dict(is_causal=True),
    "bool_mask": dict(attn_mask=~CAUSAL_BOOL),  # SDPA's bool rule: True = allowed
    "float_mask": dict(attn_mask=rng.standard_normal((5, 5))),
    "scale": dict(scale=0.3),
}


@pytest.mark.parametrize("case", list(SDPA_CASES))
def test_scaled_dot_product_attention_matches_torch(case):
    q, k, v = (rng.standard_normal((2, 3, 5, 4)) for _ in range(3))
    kwargs = SDPA_CASES[case]
    res = []
    for m in (framework, torch):
        ts = [m.tensor(a, requires_grad=True) for a in (q, k, v)]
        kw = {key: (m.tensor(val) if isinstance(val, np.ndarray) else val) for key, val in kwargs.items()}
        out = m.nn.functional.scaled_dot_product_attention(*ts, **kw)
        (out * out).sum().backward()
        res.append((out, ts))
    (out, ts), (t_out, t_ts) = res
    assert_close(out.detach(), t_out.detach().cpu().numpy(), **TOL)
    for a, b in zip(ts, t_ts):
        assert_close(a.grad, b.grad.cpu().numpy(), **TOL)


def test_sdpa_dropout_keeps_the_expectation():
    framework.manual_seed(0)
    q = framework.zeros(1, 1, 4, 8, dtype=framework.float64)  # uniform attention over 4 keys
    v = framework.ones(2000, 1, 4, 8, dtype=framework.float64)
    q = q.expand(2000, 1, 4, 8)
    out = framework.nn.functional.scaled_dot_product_attention(q, q, v, dropout_p=0.5).cpu().numpy()
    assert abs(out.mean() - 1.0) < 0.02 and out.std() > 0.2
    q3 = framework.zeros(1, 4, 8, dtype=framework.float64)  # 3-D: torch's math composition refuses the pair
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        framework.nn.functional.scaled_dot_product_attention(q3, q3, q3, attn_mask=framework.zeros(4, 4),
                                                             is_causal=True)


LAYER_CASES = {
    "post_norm_relu": dict(),
    "pre_norm_gelu": dict(norm_first=True, activation="gelu"),
    "batch_first": dict(batch_first=True),
}


@pytest.mark.parametrize("case", list(LAYER_CASES))
def test_transformer_encoder_matches_torch(case):
    kwargs = LAYER_CASES[case]
    torch.manual_seed(0)
    t = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kwargs), 2,
                                    norm=torch.nn.LayerNorm(8), enable_nested_tensor=False).double()
    f = framework.nn.TransformerEncoder(framework.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kwargs), 2,
                                        norm=framework.nn.LayerNorm(8), enable_nested_tensor=False).double()
    assert list(f.state_dict()) == list(t.state_dict())
    f.load_state_dict({k: framework.tensor(v.cpu().numpy()) for k, v in t.state_dict().items()})
    x = X.transpose(1, 0, 2) if kwargs.get("batch_first") else X
    pad = PAD
    res = []
    for m, mod in ((framework, f), (torch, t)):
        xs = m.tensor(x, requires_grad=True)
        mask = m.nn.Transformer.generate_square_subsequent_mask(5, dtype=m.float64) == float("-inf")
        out = mod(xs, mask=mask, src_key_padding_mask=m.tensor(pad))
        (out * out.detach().sin()).sum().backward()
        res.append((out, xs))
    (out, xs), (t_out, t_xs) = res
    assert_close(out.detach(), t_out.detach().cpu().numpy(), **TOL)
    assert_close(xs.grad, t_xs.grad.cpu().numpy(), **TOL)
    _compare_params(t, f)
    f.eval(), t.eval()  # eval without a padding mask: torch's fast path gives the same values
    assert_close(f(framework.tensor(x)), t(torch.tensor(x)).detach().cpu().numpy(), **TOL)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # torch's own construction warning
def test_transformer_encoder_decoder_matches_torch():
    torch.manual_seed(0)
    t = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0).double()
    f = framework.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0).double()
    assert list(f.state_dict()) == list(t.state_dict())
    f.load_state_dict({k: framework.tensor(v.cpu().numpy()) for k, v in t.state_dict().items()})
    tgt = rng.standard_normal((4, 2, 8))
    mask = np.triu(np.full((4, 4), -np.inf), 1)
    out = f(framework.tensor(X), framework.tensor(tgt), tgt_mask=framework.tensor(mask))
    t_out = t(torch.tensor(X), torch.tensor(tgt), tgt_mask=torch.tensor(mask))
    assert_close(out, t_out.detach().cpu().numpy(), **TOL)


def test_dropout1d_2d_zero_whole_channels():
    framework.manual_seed(0)
    x = framework.ones(50, 8, 3, 4)
    y = framework.nn.Dropout2d(0.5)(x).cpu().numpy()
    per_channel = y.reshape(50, 8, -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()
    assert 0.4 < (per_channel[..., 0] == 0).mean() < 0.6
    z = framework.nn.Dropout1d(0.3)(framework.ones(40, 6, 5)).cpu().numpy()
    assert ((z == 0).all(-1) | np.isclose(z, 1 / 0.7).all(-1)).all()
    m = framework.nn.Dropout2d(0.5).eval()
    assert m(x) is x
    # torch 2.13 warns (not raises) on a 2-D input and drops single elements (mnist_rnn's Dropout2d on (N, 64))
    with pytest.warns(UserWarning, match="^dropout2d: Received a 2-D input to dropout2d, which is deprecated"):
        y = framework.nn.functional.dropout2d(framework.ones(40, 30)).cpu().numpy()
    assert ((y == 0) | (y == 2)).all() and len({tuple(row) for row in y == 0}) > 2
    with pytest.warns(UserWarning), pytest.raises(RuntimeError,
                                                  match="^Feature dropout requires at least 2 dimensions in the input$"):
        framework.nn.functional.dropout2d(framework.ones(3))


def test_functional_multi_head_attention_forward_signature_matches_torch():
    t, f = _pair("MultiheadAttention", 8, 2)
    outs = []
    for m, mod in ((framework, f), (torch, t)):
        x = m.tensor(X)
        out, w = m.nn.functional.multi_head_attention_forward(
            x, x, x, 8, 2, mod.in_proj_weight, mod.in_proj_bias, None, None, False, 0.0, mod.out_proj.weight,
            mod.out_proj.bias, training=False, attn_mask=m.tensor(CAUSAL_BOOL))
        outs.append((out, w))
    assert_close(outs[0][0], outs[1][0].detach().cpu().numpy(), **TOL)
    assert_close(outs[0][1], outs[1][1].detach().cpu().numpy(), **TOL)


def test_dropout2d_on_3d_input_follows_torchs_transitional_rule():
    framework.manual_seed(0)
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input to dropout2d"):
        y = framework.nn.functional.dropout2d(framework.ones(30, 4, 5), 0.5).cpu().numpy()
    assert ((y == 0).all(-1) | (y == 2).all(-1)).all()  # (N, C, L): whole (n, c) rows dropped
    assert len({tuple(row) for row in (y[:, :, 0] == 0)}) > 2  # channels drop independently, not whole samples


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("mode", ["self", "encoder-decoder", "separate"])
def test_in_projection_graph_as_torch(batch_first, mode):
    """torch's _in_projection_packed: self-attention (query is key is value) is one product with the packed
    weight, split by unflatten/transpose/contiguous; key is value projects key and value together. The graph's
    node names (every node, counted) and the values and gradients equal torch's."""
    from collections import Counter

    def nodes(out):
        seen, count, stack = set(), Counter(), [out.grad_fn]
        while stack:
            f = stack.pop()
            if f is None or id(f) in seen:
                continue
            seen.add(id(f))
            count[type(f).__name__] += 1
            stack.extend(n for n, _ in f.next_functions)
        return count

    rng = np.random.default_rng(3)
    xa, ya = rng.standard_normal((3, 5, 8)), rng.standard_normal((3, 5, 8))
    results = []
    for m in (torch, framework):
        m.manual_seed(0)
        mha = m.nn.MultiheadAttention(8, 2, batch_first=batch_first)
        if m is framework:
            mha.load_state_dict({k: framework.tensor(v.detach().numpy()) for k, v in state.items()})
            mha = mha.to(framework.tensor([0.0]).device)
        else:
            state = mha.state_dict()
        x = m.tensor(xa, dtype=m.float32, requires_grad=True)
        y = m.tensor(ya, dtype=m.float32, requires_grad=True)
        q, k, v = {"self": (x, x, x), "encoder-decoder": (x, y, y), "separate": (x, y, y * 1)}[mode]
        out, _ = mha(q, k, v)
        out.sum().backward()
        results.append((nodes(out),) + tuple(t.detach().cpu().numpy() for t in (out, x.grad, mha.in_proj_weight.grad)))
    assert results[0][0] == results[1][0]
    for theirs, ours in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


# ---- the CPU flash kernel: torch's node, its choice of kernel, layouts, errors ----------------------------------

def _graph_names(out) -> list:
    """Node names of out's graph in depth-first order (AccumulateGrad left out: its name differs by design)."""
    names, stack, seen = [], [out.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        name = node.name() if hasattr(node, "name") else type(node).__name__
        if "AccumulateGrad" not in name:
            names.append(name)
        stack.extend(f[0] for f in node.next_functions)
    return names


FLASH_CASES = {  # (q, k, v shapes, kwargs): which kernel torch takes is checked through the graph's names
    "flash": ([(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)], dict()),
    "flash_causal": ([(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)], dict(is_causal=True)),
    "flash_causal_tall": ([(1, 2, 6, 4), (1, 2, 3, 4), (1, 2, 3, 4)], dict(is_causal=True)),
    "flash_mask_2d": ([(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)], dict(attn_mask=rng.standard_normal((5, 6)))),
    "flash_mask_bool": ([(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)], dict(attn_mask=rng.random((5, 6)) > 0.4)),
    "flash_mask_4d": ([(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)], dict(attn_mask=rng.standard_normal((2, 1, 5, 6)))),
    "flash_mask_and_causal": ([(1, 2, 4, 3), (1, 2, 4, 3), (1, 2, 4, 3)],
                              dict(attn_mask=rng.standard_normal((4, 4)), is_causal=True)),
    "flash_masked_row": ([(1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4)],
                         dict(attn_mask=np.array([[True] * 4, [False] * 4, [True, False] * 2]))),
    "math_3d": ([(3, 5, 4), (3, 6, 4), (3, 6, 4)], dict()),
    "math_mask_3d": ([(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)], dict(attn_mask=rng.standard_normal((3, 5, 6)))),
    "math_value_dim": ([(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7)], dict()),
    "math_heads_broadcast": ([(2, 3, 5, 4), (2, 1, 6, 4), (2, 1, 6, 4)], dict()),
}


@pytest.mark.parametrize("case", list(FLASH_CASES))
def test_sdpa_kernel_choice_values_and_layouts_as_torch(case):
    shapes, kwargs = FLASH_CASES[case]
    arrays = [rng.standard_normal(s) for s in shapes]
    res = []
    for m in (framework, torch):
        ts = [m.tensor(a, requires_grad=True) for a in arrays]
        kw = {key: (m.tensor(val) if isinstance(val, np.ndarray) else val) for key, val in kwargs.items()}
        out = m.nn.functional.scaled_dot_product_attention(*ts, **kw)
        weight = m.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        grads = m.autograd.grad((out * weight).sum(), ts)
        res.append((out, grads))
    (out, grads), (t_out, t_grads) = res
    assert out.grad_fn.name() == t_out.grad_fn.name()
    assert len(out.grad_fn.next_functions) == len(t_out.grad_fn.next_functions)
    assert_close(out.detach(), t_out.detach().numpy(), **TOL)
    assert out.stride() == t_out.stride()
    for g, tg in zip(grads, t_grads):
        assert_close(g, tg.numpy(), **TOL)
        if case.startswith("flash"):
            assert g.stride() == tg.stride()  # torch's (B, L, H, D) gradient buffers


def test_flash_output_laid_out_as_query_and_mha_graph_as_torch():
    q = rng.standard_normal((5, 2, 3, 4))  # (L, B, H, D) memory seen as (B, H, L, D): MultiheadAttention's views
    kv = [rng.standard_normal((2, 3, 6, 4)) for _ in range(2)]
    strides = []
    for m in (framework, torch):
        t = m.tensor(q, requires_grad=True).permute(1, 2, 0, 3)
        strides.append(m.nn.functional.scaled_dot_product_attention(t, *[m.tensor(a) for a in kv]).stride())
    assert strides[0] == strides[1]
    names = []
    for m in (framework, torch):
        m.manual_seed(0)
        layer = m.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True, norm_first=True).double()
        x = m.tensor(rng.standard_normal((2, 6, 16)), requires_grad=True)
        mask = m.nn.Transformer.generate_square_subsequent_mask(6).double()
        names.append(sorted(_graph_names(layer(x, src_mask=mask, is_causal=True))))
    assert names[0] == names[1]
    assert "ScaledDotProductFlashAttentionForCpuBackward0" in names[0]


def test_flash_double_backward_raises_torchs_error():
    q, k, v = (framework.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True) for _ in range(3))
    out = framework.nn.functional.scaled_dot_product_attention(q, k, v)
    gq, gk, gv = framework.autograd.grad(out.sum(), (q, k, v), create_graph=True)
    assert gq.grad_fn.name() == "torch::autograd::NotImplemented" and gq.grad_fn is gv.grad_fn
    with pytest.raises(RuntimeError, match="derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward "
                                           "is not implemented"):
        framework.autograd.grad(gq.sum(), q)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_flash_half_and_single_precision_as_torch(dtype):
    if dtype == "bfloat16" and str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")
    arrays = [rng.standard_normal(s).astype(np.float32) for s in [(2, 2, 5, 8), (2, 2, 7, 8), (2, 2, 7, 8)]]
    res = []
    for m in (framework, torch):
        ts = [m.tensor(a).to(getattr(m, dtype)).requires_grad_() for a in arrays]
        # (causal in float32 only: a causal first row's query gradient is a pure cancellation, in bfloat16 noise)
        out = m.nn.functional.scaled_dot_product_attention(*ts, is_causal=dtype == "float32")
        grads = m.autograd.grad(out.float().sum(), ts)
        res.append([out.float()] + [g.float() for g in grads])
        assert out.dtype == getattr(m, dtype) and all(g.dtype == getattr(m, dtype) for g in grads)
    tol = dict(rtol=2e-2, atol=2e-2) if dtype == "bfloat16" else dict(rtol=1e-5, atol=1e-6)
    for a, b in zip(*res):
        assert_close(a.detach(), b.detach().numpy(), **tol)


def test_sdpa_input_errors_as_torch():
    q = framework.zeros(1, 1, 3, 4)
    for args, kwargs, text in [
            ((q, q.double(), q), {}, "Expected query, key, and value to have the same dtype, but got query.dtype: "
                                     "float key.dtype: double and value.dtype: float instead."),
            ((q, q, q), dict(attn_mask=framework.zeros(3, 3, dtype=framework.float64)),
             "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: double "
             "and  query.dtype: float instead."),
            ((q[0, 0, 0], q[0, 0, 0], q[0, 0, 0]), {}, "Expected query, key, and value to all be  at least 2 "
                                                         "dimensional, but got query.dim: 1 key.dim: 1")]:
        with pytest.raises(RuntimeError, match=re.escape(text)):
            framework.nn.functional.scaled_dot_product_attention(*args, **kwargs)
        t_args = [torch.tensor(a.cpu().numpy()) for a in args]
        t_kwargs = {k: torch.tensor(v.cpu().numpy()) for k, v in kwargs.items()}
        with pytest.raises(RuntimeError, match=re.escape(text)):
            torch.nn.functional.scaled_dot_product_attention(*t_args, **t_kwargs)


def test_flash_gradcheck_float64():
    from framework.testing import gradcheck
    mask = framework.tensor(rng.standard_normal((3, 4)))
    q, k, v = (framework.tensor(rng.standard_normal(s), requires_grad=True)
               for s in [(1, 2, 3, 2), (1, 2, 4, 2), (1, 2, 4, 2)])
    fn = framework.nn.functional.scaled_dot_product_attention
    assert fn(q, k, v).grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert gradcheck(lambda a, b, c: fn(a, b, c, attn_mask=mask, is_causal=True), (q, k, v))


def test_kernel_switches_choose_the_math_composition_as_torch():
    shapes = [(1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)]
    arrays = [rng.standard_normal(s) for s in shapes]
    for m in (framework, torch):
        ts = [m.tensor(a, requires_grad=True) for a in arrays]
        fn = m.nn.functional.scaled_dot_product_attention
        assert fn(*ts).grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
        with m.nn.attention.sdpa_kernel(m.nn.attention.SDPBackend.MATH):
            assert fn(*ts).grad_fn.name() == "UnsafeViewBackward0"
        m.backends.cuda.enable_flash_sdp(False)
        try:
            assert fn(*ts).grad_fn.name() == "UnsafeViewBackward0"
        finally:
            m.backends.cuda.enable_flash_sdp(True)
        assert fn(*ts).grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
