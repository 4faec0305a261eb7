"""One LSTM layer over a whole sequence as one autograd node (torch's CPU ``mkldnn_rnn_layer``).

The work has the shape of cuDNN's and oneDNN's RNN primitives: the input projection of every time step is one
GEMM, each step adds one (N, H) @ (H, 4H) product and applies the gate nonlinearities in place, and the backward
through time mirrors it: one product per step for the recurrent gradient, then the input gradient and both
weight gradients (summed over time) as one large GEMM each. On the host each step's product runs in row blocks
that BLAS multiplies without packing the weight (``_row_blocks``). Under ``create_graph=True`` the backward recomputes the
layer with ordinary ops and differentiates that, so higher derivatives work, as torch's differentiable backward."""
from __future__ import annotations

from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from .. import backend
from ..autograd import grad as autograd_grad
from ..backend import get_array_module
from ..tensor import Tensor
from .pointwise import unary
from .shape import joining as combine


# OpenBLAS's unpacked "small matrix" kernels run a product of at most 100**3 multiply-adds (rows x columns x inner
# size); larger ones pack both operands first. A step's product has only a batch of columns, so packing its whole
# weight (1 MB at H = 256) every step costs more than the product itself: in row blocks under that size it runs
# about 1.3x faster on one thread, and on two it stays on one instead of waking a second (~4x slower there).
_SMALL_PRODUCT = 100 ** 3


def _row_blocks(w, v_shape: tuple) -> list:
    """[(rows, w[rows])]: the row blocks in which a step's product w @ v (w: many rows, v: a batch of columns)
    runs, taken once per layer: on the host the most rows (a multiple of 8) small enough for BLAS's unpacked
    kernels, then the rest (faster than equal blocks of odd sizes); all of w at once on the GPU, or where blocks
    would be too thin."""
    size = _SMALL_PRODUCT // (v_shape[0] * v_shape[1])
    if size >= w.shape[0] or size < 16 or backend._on_gpu(w):
        return [(slice(None), w)]
    size -= size % 8
    return [(slice(start, start + size), w[start:start + size]) for start in range(0, w.shape[0], size)]


def _step_matmul(xp, blocks: list, v, out) -> None:
    """out[...] = w @ v, one product per row block of w (``_row_blocks``)."""
    for rows, w in blocks:
        xp.matmul(w, v, out=out[rows])


def _gate_scale(xp, hidden: int, dtype):
    """(4H, 1) column: sigmoid(z) = 0.5 tanh(z / 2) + 0.5 for the i, f, o gates and tanh(z) for g, so all four
    activations are one tanh of the scaled pre-activations. The halving is folded into the weights (exact in
    binary floating point)."""
    half = xp.full(hidden, 0.5, dtype=dtype)
    return xp.concatenate([half, half, xp.ones(hidden, dtype=dtype), half])[:, None]


def _lstm_forward(xp, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse: bool):
    """(y, work) for x (T, N, I); work = (gates, c, tanh(c)) of every step, step-major and feature-major:
    (T, 4H or H, N), so each step reads and writes one contiguous block.

    The steps run feature-major (the state as (H, N)): the recurrent product is then W (4H, H) @ h (H, N), a
    product with many rows, which BLAS runs about twice as fast as the few-row h (N, H) @ W.T (N is a batch).
    Each step's gates are one product [W_hh | W_ih | b] @ [h; x_t; 1] written straight into its (4H, N) block of
    ``gates`` (the same flops as one input-projection GEMM over all steps, without reading that projection back
    from a strided slice each step, which costs more than the GEMM saves), and every later pass of the step runs
    in place in that block or in (H, N) blocks of the records: no temporaries."""
    steps, batch, hidden = x.shape[0], x.shape[1], w_hh.shape[1]
    parts = [w_hh, w_ih] + ([(b_ih + b_hh)[:, None]] if b_ih is not None else [])
    w = xp.concatenate(parts, axis=1)
    w *= _gate_scale(xp, hidden, x.dtype)
    gates = xp.empty((steps, 4 * hidden, batch), dtype=x.dtype)
    c_all = xp.empty((steps, hidden, batch), dtype=x.dtype)
    tanh_c = xp.empty_like(c_all)
    y = xp.empty((steps, batch, hidden), dtype=x.dtype)
    ig = xp.empty((hidden, batch), dtype=x.dtype)  # i * g of one step
    hx = xp.empty((w.shape[1], batch), dtype=x.dtype)  # [h; x_t; 1], the product's right operand
    h, x_t = hx[:hidden], hx[hidden:hidden + x.shape[2]]  # h: the state, written each step (never h0 itself)
    h[...] = h0.T
    if b_ih is not None:
        hx[-1] = 1
    c = c0.T
    blocks = _row_blocks(w, hx.shape)
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        g = gates[t]
        x_t[...] = x[t].T
        _step_matmul(xp, blocks, hx, g)  # the four gates from one product
        xp.tanh(g, out=g)
        i, f, gg, o = g[:hidden], g[hidden:2 * hidden], g[2 * hidden:3 * hidden], g[3 * hidden:]
        for s in (g[:2 * hidden], o):  # sigmoid = 0.5 tanh + 0.5 on the i, f and o rows (scalar passes: about
            s *= 0.5  # twice as fast as one multiply-add by (4H, 1) columns)
            s += 0.5
        c_t, tc = c_all[t], tanh_c[t]
        xp.multiply(f, c, out=c_t)
        xp.multiply(i, gg, out=ig)
        c_t += ig
        xp.tanh(c_t, out=tc)
        xp.multiply(o, tc, out=h)
        y[t] = h.T
        c = c_t
    return y, (gates, c_all, tanh_c)


def _lstm_backward(xp, gy, ghn, gcn, x, w_ih, w_hh, h0, c0, y, gates, c_all, tanh_c, reverse: bool, needs):
    """(gx, gw_ih, gw_hh, gb_ih, gb_hh, gh0, gc0) of one LSTM layer (None where not needed).

    dgates_t = [dc_t g i (1-i), dc_t c_{t-1} f (1-f), dc_t i (1-g^2), dh_t tanh(c_t) o (1-o)] with
    dc_t = dc_{t+1} f_{t+1} + dh_t o (1 - tanh(c_t)^2). Every factor that does not depend on dh or dc is computed
    for all steps at once before the loop (a few whole-array passes instead of a dozen small ones per step); the
    loop over time (feature-major, as the forward, the steps the other way round) then carries dh and dc with
    five in-place passes and one product per step. The input gradient and both weight gradients (summed over
    time) come from the gate gradients of all steps, (4H, T*N), as one large GEMM each."""
    steps, batch, hidden = y.shape
    h2, h3 = 2 * hidden, 3 * hidden
    dtype = y.dtype
    c0_t = xp.ascontiguousarray(c0.T)
    w_hh_t = w_hh.T  # a view: BLAS reads the transposed operand as it is (its row blocks too), no 1 MB copy
    # dgates holds the factors first, step-major ((T, 4H, N): each step one contiguous block); the loop multiplies
    # each step's block by dc or dh in place
    dgates = xp.subtract(1, gates)
    dgates *= gates  # s (1 - s), the sigmoid's derivative, for the i, f, o rows
    fg = dgates[:, h2:h3]
    xp.multiply(gates[:, h2:h3], gates[:, h2:h3], out=fg)
    xp.subtract(1, fg, out=fg)  # 1 - g^2, tanh's, for the g rows
    dgates[:, :hidden] *= gates[:, h2:h3]  # i rows: times g
    fc = dgates[:, hidden:h2]  # f rows: times the previous cell state
    if reverse:
        fc[:-1] *= c_all[1:]
        fc[-1] *= c0_t
    else:
        fc[1:] *= c_all[:-1]
        fc[0] *= c0_t
    fg *= gates[:, :hidden]  # g rows: times i
    dgates[:, h3:] *= tanh_c  # o rows: times tanh(c)
    through_h = xp.multiply(tanh_c, tanh_c)
    xp.subtract(1, through_h, out=through_h)
    through_h *= gates[:, h3:]  # d c_t / d h_t = o (1 - tanh(c_t)^2)
    gy_t = None if gy is None else xp.ascontiguousarray(gy.transpose(0, 2, 1))  # (T, H, N), as the state
    a = xp.empty((hidden, batch), dtype=dtype)
    # dh and dc are updated in place: fresh arrays, never the incoming gradients themselves
    dh = xp.zeros((hidden, batch), dtype=dtype) if ghn is None else ghn.T.copy()
    dc = xp.zeros((hidden, batch), dtype=dtype) if gcn is None else gcn.T.copy()
    blocks = _row_blocks(w_hh_t, (4 * hidden, batch))
    for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
        if gy_t is not None:
            dh += gy_t[t]
        d = dgates[t]
        xp.multiply(through_h[t], dh, out=a)
        dc += a
        d[h3:] *= dh
        d[:h3].reshape(3, hidden, batch)[...] *= dc
        dc *= gates[t, hidden:h2]  # f
        _step_matmul(xp, blocks, d, dh)
    # gate-major, columns in (t, n) order as the rows of x and y: one copy after the loop costs less than writing
    # each step's block into a strided slice of it
    flat = xp.ascontiguousarray(dgates.transpose(1, 0, 2)).reshape(4 * hidden, steps * batch)
    gx = backend.matmul(flat.T, w_ih).reshape(x.shape) if needs[0] else None
    gw_ih = backend.matmul(flat, x.reshape(steps * batch, -1)) if needs[1] else None
    gw_hh = None
    if needs[2]:  # every step's previous h against its gate gradient: one product summed over time
        h_prev = xp.concatenate([y[1:], h0[None]]) if reverse else xp.concatenate([h0[None], y[:-1]])
        gw_hh = backend.matmul(flat, h_prev.reshape(steps * batch, hidden))
    gb = flat.sum(axis=1) if needs[3] or needs[4] else None
    return (gx, gw_ih, gw_hh, gb if needs[3] else None, gb.copy() if needs[4] else None,
            xp.ascontiguousarray(dh.T) if needs[5] else None, xp.ascontiguousarray(dc.T) if needs[6] else None)


def lstm_layer_reference(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse: bool = False):
    """The same layer written step by step with ordinary differentiable ops: (y, h_n, c_n)."""
    proj = x @ w_ih.T
    if b_ih is not None:
        proj = proj + b_ih + b_hh
    h, c = h0, c0
    outs = [None] * x.shape[0]
    for t in (range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])):
        i, f, g, o = (proj[t] + h @ w_hh.T).chunk(4, dim=-1)
        c = unary.sigmoid(f) * c + unary.sigmoid(i) * unary.tanh(g)
        h = unary.sigmoid(o) * unary.tanh(c)
        outs[t] = h
    return combine.stack(outs, 0), h, c


class LstmLayer(Function):
    """(y, h_n, c_n) of one LSTM layer and direction over (T, N, I) x from (N, H) states h0, c0.
    Saves x, the weights, h0, c0 and y, and the gate activations and cell states of every step."""

    node_name, array_forward = "MkldnnRnnLayerBackward0", True
    none_edges = True  # no bias: (None, 0) edges in their places, as torch's node

    @staticmethod
    def forward(ctx, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
        xp = get_array_module(x)
        y, work = _lstm_forward(xp, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse)
        ctx.save_for_backward(x, w_ih, w_hh, b_ih, b_hh, h0, c0, y)
        ctx.work, ctx.reverse = work, reverse
        ctx.set_materialize_grads(False)
        last = 0 if reverse else -1
        return y, y[last].copy(), xp.ascontiguousarray(work[1][last].T)

    @staticmethod
    def backward(ctx, gy, ghn, gcn):
        x, w_ih, w_hh, b_ih, b_hh, h0, c0, y = ctx.saved_tensors
        needs = tuple(ctx.needs_input_grad[:7])
        if gy is None and ghn is None and gcn is None:
            return (None,) * 8
        if is_grad_enabled():  # create_graph: differentiate the step-by-step recomputation instead
            return _differentiable_backward(ctx, (gy, ghn, gcn), (x, w_ih, w_hh, b_ih, b_hh, h0, c0), needs)
        arr = lambda t: None if t is None else t._array  # noqa: E731
        grads = _lstm_backward(get_array_module(x._array), arr(gy), arr(ghn), arr(gcn), x._array, w_ih._array,
                               w_hh._array, h0._array, c0._array, y._array, *ctx.work, ctx.reverse, needs)
        return tuple(None if g is None else Tensor._make(g) for g in grads) + (None,)


def _differentiable_backward(ctx, grads, inputs, needs):
    """The gradients as differentiable tensors: recompute the layer with ordinary ops, then autograd.grad."""
    wanted = [t for t, n in zip(inputs, needs) if n]
    with enable_grad():
        outs = lstm_layer_reference(*inputs, ctx.reverse)
    pairs = [(o, g) for o, g in zip(outs, grads) if g is not None]
    got = iter(autograd_grad([o for o, _ in pairs], wanted, [g for _, g in pairs], create_graph=True,
                             allow_unused=True))
    return tuple(next(got) if n else None for n in needs) + (None,)


def lstm_layer(x: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None, b_hh: Tensor | None, h0: Tensor,
               c0: Tensor, reverse: bool = False) -> tuple:
    """(y, h_n, c_n): one LSTM layer and direction over (T, N, I) x, as one autograd node."""
    return LstmLayer.apply(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse)
