"""Module-level mappings: modules whose ONNX form is best written whole (Linear, MultiheadAttention, the RNNs).

Their ops run untraced; the mapping reads the module's call (args, kwargs) and its outputs, and emits the
nodes from the module's own parameters (so export_params=False turns them into graph inputs as usual).
"""
from __future__ import annotations

import inspect
import math

from ..nn import Linear, MultiheadAttention
from ..nn.modules.rnn import GRU, LSTM, RNN
from ._graph import UnsupportedOp

MODULE_SYMBOLIC = {}  # Module class -> mapping (used only where the module's forward is that class's own)


def maps_module(*classes):
    def register(fn):
        for cls in classes:
            MODULE_SYMBOLIC[cls] = fn
        return fn
    return register


def mapping_for(module):
    """The mapping of ``module``, or None (a subclass with its own forward is traced op by op)."""
    for cls in type(module).__mro__:
        if cls in MODULE_SYMBOLIC:
            return MODULE_SYMBOLIC[cls] if type(module).forward is cls.forward else None
    return None


def _bound(call) -> dict:
    """The module call's arguments by forward's parameter names, defaults filled in."""
    bound = inspect.signature(type(call.op).forward).bind(call.op, *call.args, **call.kwargs)
    bound.apply_defaults()
    return bound.arguments


def _linear(g, x: str, weight, bias) -> str:
    y = g.node("MatMul", [x, g.node("Transpose", [g.name(weight)], perm=[1, 0])])
    return g.node("Add", [y, g.name(bias)]) if bias is not None else y


@maps_module(Linear)
def _linear_module(g, call):
    m, x0 = call.op, call.args[0]
    if x0._array.ndim == 2 and m.bias is not None:
        return [g.node("Gemm", [g.name(x0), g.name(m.weight), g.name(m.bias)], transB=1)]
    return [_linear(g, g.name(x0), m.weight, m.bias)]


# ---- attention -------------------------------------------------------------------------------------

def _heads(g, x: str, heads: int, head_dim: int) -> str:
    """(L, N, E) -> (N, heads, L, head_dim)."""
    split = g.node("Reshape", [x, g.ints([0, 0, heads, head_dim])])
    return g.node("Transpose", [split], perm=[1, 2, 0, 3])


@maps_module(MultiheadAttention)
def _multihead_attention(g, call):
    m, a = call.op, _bound(call)
    query, key, value = a["query"], a["key"], a["value"]
    if query._array.ndim != 3:
        raise UnsupportedOp("unbatched (2-D) input has no mapping; export with a batch dimension")
    e, heads, hd = m.embed_dim, m.num_heads, m.head_dim
    q, k, v = (g.name(t) for t in (query, key, value))
    if m.batch_first:  # to (L, N, E)
        q, k, v = (g.node("Transpose", [t], perm=[1, 0, 2]) for t in (q, k, v))
    if m._qkv_same_embed_dim:
        weights = g.node("Split", [g.name(m.in_proj_weight), g.ints([e] * 3)], n_out=3, axis=0)
    else:
        weights = [g.name(w) for w in (m.q_proj_weight, m.k_proj_weight, m.v_proj_weight)]
    biases = g.node("Split", [g.name(m.in_proj_bias), g.ints([e] * 3)], n_out=3, axis=0) \
        if m.in_proj_bias is not None else [None] * 3
    projected = []
    for t, w, b in zip((q, k, v), weights, biases):
        y = g.node("MatMul", [t, g.node("Transpose", [w], perm=[1, 0])])
        projected.append(_heads(g, g.node("Add", [y, b]) if b is not None else y, heads, hd))
    qh, kh, vh = projected
    like = query
    scores = g.node("Mul", [g.node("MatMul", [qh, g.node("Transpose", [kh], perm=[0, 1, 3, 2])]),
                            g.name(1 / math.sqrt(hd), like)])  # (N, heads, L, S)
    scores = _add_masks(g, scores, a["attn_mask"], a["key_padding_mask"], heads, like)
    attn = g.node("Softmax", [scores], axis=-1)
    out = g.node("Transpose", [g.node("MatMul", [attn, vh])], perm=[2, 0, 1, 3])  # (L, N, heads, hd)
    out = _linear(g, g.node("Reshape", [out, g.ints([0, 0, e])]), m.out_proj.weight, m.out_proj.bias)
    if m.batch_first:
        out = g.node("Transpose", [out], perm=[1, 0, 2])
    weights_out = None
    if a["need_weights"]:
        weights_out = g.reduce("ReduceMean", attn, [1], False) if a["average_attn_weights"] else attn
    return [out, weights_out]


def _additive(g, mask, like) -> str:
    """A mask as what is added to the scores: a boolean mask's True is -inf, a float mask is added as it is."""
    if mask._array.dtype.kind == "b":
        return g.node("Where", [g.name(mask), g.name(float("-inf"), like), g.name(0.0, like)])
    return g.name(mask)


def _add_masks(g, scores: str, attn_mask, key_padding_mask, heads: int, like) -> str:
    if attn_mask is not None:
        mask = _additive(g, attn_mask, like)
        if attn_mask._array.ndim == 3:  # (N * heads, L, S) -> (N, heads, L, S)
            mask = g.node("Reshape", [mask, g.node("Concat", [g.ints([-1, heads]), g.dim(mask, 1), g.dim(mask, 2)],
                                                   axis=0)])
        scores = g.node("Add", [scores, mask])
    if key_padding_mask is not None:  # (N, S) -> (N, 1, 1, S)
        mask = g.node("Unsqueeze", [_additive(g, key_padding_mask, like), g.ints([1, 2])])
        scores = g.node("Add", [scores, mask])
    return scores


# ---- recurrent layers ------------------------------------------------------------------------------

# the gate blocks of torch's stacked weights in ONNX's order: LSTM i,f,g,o -> i,o,f,c; GRU r,z,n -> z,r,h
_GATE_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0]}


def _reorder(g, weight, mode: str, hidden: int) -> str:
    order = _GATE_ORDER[mode]
    if len(order) == 1:
        return g.name(weight)
    parts = g.node("Split", [g.name(weight), g.ints([hidden] * len(order))], n_out=len(order), axis=0)
    return g.node("Concat", [parts[i] for i in order], axis=0)


def _direction_weights(g, m, layer: int, suffix: str):
    w_ih, w_hh, b_ih, b_hh = m._weights(layer, suffix)
    w = _reorder(g, w_ih, m.mode, m.hidden_size)
    r = _reorder(g, w_hh, m.mode, m.hidden_size)
    b = g.node("Concat", [_reorder(g, b_ih, m.mode, m.hidden_size), _reorder(g, b_hh, m.mode, m.hidden_size)],
               axis=0) if b_ih is not None else None
    return w, r, b


def _stack_directions(g, per_direction: list) -> str:
    return g.node("Concat", [g.node("Unsqueeze", [t, g.ints([0])]) for t in per_direction], axis=0) \
        if len(per_direction) > 1 else g.node("Unsqueeze", [per_direction[0], g.ints([0])])


@maps_module(LSTM, GRU, RNN)
def _rnn(g, call):
    m, args = call.op, call.args
    x0 = args[0]
    hx = args[1] if len(args) > 1 else call.kwargs.get("hx")
    if not hasattr(x0, "_array") or x0._array.ndim != 3:
        raise UnsupportedOp("only a batched (3-D) input tensor has a mapping (not a PackedSequence or 2-D input)")
    lstm = m.mode == "LSTM"
    h0, c0 = (hx if lstm else (hx, None)) if hx is not None else (None, None)
    directions = 2 if m.bidirectional else 1
    x = g.name(x0)
    if m.batch_first:
        x = g.node("Transpose", [x], perm=[1, 0, 2])
    op_type = {"LSTM": "LSTM", "GRU": "GRU"}.get(m.mode, "RNN")
    attrs = {"hidden_size": m.hidden_size, "direction": "bidirectional" if directions == 2 else "forward"}
    if m.mode == "GRU":
        attrs["linear_before_reset"] = 1  # torch's n gate: r * (W_hn h + b_hn)
    if op_type == "RNN":
        attrs["activations"] = ["Tanh" if m.mode == "RNN_TANH" else "Relu"] * directions
    hs, cs = [], []
    for layer in range(m.num_layers):
        suffixes = ["", "_reverse"][:directions]
        ws = [_direction_weights(g, m, layer, s) for s in suffixes]
        w, r = _stack_directions(g, [t[0] for t in ws]), _stack_directions(g, [t[1] for t in ws])
        b = _stack_directions(g, [t[2] for t in ws]) if ws[0][2] is not None else ""
        span = [g.ints([layer * directions]), g.ints([(layer + 1) * directions]), g.ints([0])]
        inputs = [x, w, r, b, "", g.node("Slice", [g.name(h0)] + span) if h0 is not None else ""]
        if lstm:
            inputs.append(g.node("Slice", [g.name(c0)] + span) if c0 is not None else "")
        while inputs[-1] == "":
            inputs.pop()
        outs = g.node(op_type, inputs, n_out=3 if lstm else 2, **attrs)
        y = outs[0]  # (T, directions, N, H) -> (T, N, directions * H)
        x = g.node("Reshape", [g.node("Transpose", [y], perm=[0, 2, 1, 3]), g.ints([0, 0, -1])])
        hs.append(outs[1])
        if lstm:
            cs.append(outs[2])
    output = g.node("Transpose", [x], perm=[1, 0, 2]) if m.batch_first else x
    h_n = g.node("Concat", hs, axis=0) if len(hs) > 1 else hs[0]
    if lstm:
        return [output, (h_n, g.node("Concat", cs, axis=0) if len(cs) > 1 else cs[0])]
    return [output, h_n]
