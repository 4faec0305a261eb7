"""One LSTM layer over a whole sequence as one autograd node (torch's CPU ``mkldnn_rnn_layer``).

The work has the shape of cuDNN's and oneDNN's RNN primitives: the input projection of every time step is one
GEMM, each step adds one (N, H) @ (H, 4H) product and applies the gate nonlinearities in place, and the backward
through time mirrors it: one product per step for the recurrent gradient, then the input gradient and both
weight gradients (summed over time) as one large GEMM each. Under ``create_graph=True`` the backward recomputes the
layer with ordinary ops and differentiates that, so higher derivatives work, as torch's differentiable backward.
"""
from __future__ import annotations

from .. import backend
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..backend import get_array_module
from ..tensor import Tensor


def _sigmoid_(a):
    """a <- sigmoid(a) in place, as 0.5 * tanh(a / 2) + 0.5 (one transcendental, stable on both tails)."""
    a *= 0.5
    get_array_module(a).tanh(a, out=a)
    a *= 0.5
    a += 0.5
    return a


def _lstm_forward(xp, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse: bool):
    """(y, gates, c_all, tanh_c_all) for x (T, N, I): gates holds the activated i, f, g, o of every step."""
    steps, batch, hidden = x.shape[0], x.shape[1], w_hh.shape[1]
    gates = backend.matmul(x.reshape(steps * batch, -1), w_ih.T)  # all steps' input projections: one GEMM
    if b_ih is not None:
        gates += b_ih
        gates += b_hh
    gates = gates.reshape(steps, batch, 4 * hidden)
    y = xp.empty((steps, batch, hidden), dtype=x.dtype)
    c_all = xp.empty_like(y)
    tanh_c = xp.empty_like(y)
    w_hh_t = w_hh.T
    h, c = h0, c0
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        g = gates[t]
        g += backend.matmul(h, w_hh_t)  # the four gates from one product
        _sigmoid_(g[:, :2 * hidden])  # i, f
        xp.tanh(g[:, 2 * hidden:3 * hidden], out=g[:, 2 * hidden:3 * hidden])
        _sigmoid_(g[:, 3 * hidden:])  # o
        i, f, gg, o = g[:, :hidden], g[:, hidden:2 * hidden], g[:, 2 * hidden:3 * hidden], g[:, 3 * hidden:]
        c_t = c_all[t]
        xp.multiply(f, c, out=c_t)
        c_t += i * gg
        xp.tanh(c_t, out=tanh_c[t])
        xp.multiply(o, tanh_c[t], out=y[t])
        h, c = y[t], c_t
    return y, gates, c_all, tanh_c


def _lstm_backward(xp, gy, ghn, gcn, x, w_ih, w_hh, h0, c0, y, gates, c_all, tanh_c, reverse: bool, needs):
    """(gx, gw_ih, gw_hh, gb_ih, gb_hh, gh0, gc0) of one LSTM layer (None where not needed)."""
    steps, batch, hidden = y.shape
    dgates = xp.empty_like(gates)
    dh = xp.zeros_like(h0) if ghn is None else ghn.copy()
    dc = xp.zeros_like(c0) if gcn is None else gcn.copy()
    order = range(steps) if reverse else range(steps - 1, -1, -1)  # backward runs the steps the other way
    first = steps - 1 if reverse else 0
    for t in order:
        if gy is not None:
            dh += gy[t]
        g, d = gates[t], dgates[t]
        i, f, gg, o = g[:, :hidden], g[:, hidden:2 * hidden], g[:, 2 * hidden:3 * hidden], g[:, 3 * hidden:]
        tc = tanh_c[t]
        c_prev = c0 if t == first else c_all[t + 1 if reverse else t - 1]
        # do = dh * tanh(c) * o (1 - o);  dc += dh * o * (1 - tanh(c)^2)
        xp.multiply(dh, tc, out=d[:, 3 * hidden:])
        d[:, 3 * hidden:] *= o * (1 - o)
        dc += dh * o * (1 - tc * tc)
        xp.multiply(dc, gg, out=d[:, :hidden])
        d[:, :hidden] *= i * (1 - i)
        xp.multiply(dc, c_prev, out=d[:, hidden:2 * hidden])
        d[:, hidden:2 * hidden] *= f * (1 - f)
        xp.multiply(dc, i, out=d[:, 2 * hidden:3 * hidden])
        d[:, 2 * hidden:3 * hidden] *= 1 - gg * gg
        dc *= f
        dh = backend.matmul(d, w_hh)
    flat = dgates.reshape(steps * batch, 4 * hidden)
    gx = backend.matmul(flat, w_ih).reshape(x.shape) if needs[0] else None
    gw_ih = backend.matmul(flat.T, x.reshape(steps * batch, -1)) if needs[1] else None
    gw_hh = None
    if needs[2]:  # every step's previous h against its gate gradient: one product summed over time
        h_prev = xp.concatenate([y[1:], h0[None]]) if reverse else xp.concatenate([h0[None], y[:-1]])
        gw_hh = backend.matmul(flat.T, h_prev.reshape(steps * batch, hidden))
    gb = flat.sum(axis=0) if needs[3] or needs[4] else None
    return (gx, gw_ih, gw_hh, gb if needs[3] else None, gb.copy() if needs[4] else None,
            dh if needs[5] else None, dc if needs[6] else None)


def lstm_layer_reference(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse: bool = False):
    """The same layer written step by step with ordinary differentiable ops: (y, h_n, c_n)."""
    from . import combine, unary  # (the differentiable ops; imported here: this module sits beside them)

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
        y, gates, c_all, tanh_c = _lstm_forward(xp, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse)
        ctx.save_for_backward(x, w_ih, w_hh, b_ih, b_hh, h0, c0, y)
        ctx.work, ctx.reverse = (gates, c_all, tanh_c), reverse
        ctx.set_materialize_grads(False)
        last = 0 if reverse else -1
        return y, y[last].copy(), c_all[last].copy()

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
    from ..autograd import grad as autograd_grad

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
