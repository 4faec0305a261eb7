"""Recurrent layers (torch.nn.modules.rnn): RNN, LSTM, GRU and their cells."""
from __future__ import annotations

import math

import numpy as np

from ...ops.indexing import unsafe_chunk
from ...ops.recurrent import lstm_layer
from ... import creation, dtypes, ops
from ...tensor import Tensor
from ..utils.rnn import PackedSequence, pad_packed_sequence
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module


__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]


def _rnn_tanh_cell(x_proj, h, w_hh, b_hh):
    return ops.tanh(F.linear(h, w_hh, b_hh) + x_proj)


def _rnn_relu_cell(x_proj, h, w_hh, b_hh):
    return ops.relu(F.linear(h, w_hh, b_hh) + x_proj)


def _lstm_cell(x_proj, state, w_hh, b_hh):
    h, c = state
    i, f, g, o = unsafe_chunk(F.linear(h, w_hh, b_hh) + x_proj, 4, -1)
    c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
    return ops.sigmoid(o) * ops.tanh(c), c


def _gru_cell(x_proj, h, w_hh, b_hh):
    xr, xz, xn = unsafe_chunk(x_proj, 3, -1)
    hr, hz, hn = unsafe_chunk(F.linear(h, w_hh, b_hh), 3, -1)
    r = ops.sigmoid(hr + xr)
    z = ops.sigmoid(hz + xz)
    n = ops.tanh(xn + hn * r)
    return (h - n) * z + n  # torch's h' = (1 - z) n + z h, in its three ops


# the dtypes whose LSTM layers torch's CPU runs through oneDNN as one node (float64 and float16 go step by step
# there, and so here: the recorded graphs are torch's)
_FUSED_DTYPES = (dtypes.float32,)


_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


_CELLS = {"RNN_TANH": _rnn_tanh_cell, "RNN_RELU": _rnn_relu_cell, "LSTM": _lstm_cell, "GRU": _gru_cell}


class RNNBase(Module):
    """The stacked, optionally bidirectional recurrence shared by RNN, LSTM and GRU."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if hidden_size <= 0 or num_layers <= 0:
            raise ValueError("hidden_size must be greater than zero" if hidden_size <= 0 else
                             "num_layers must be greater than zero")
        if proj_size:
            raise NotImplementedError("LSTM(proj_size=...) is not supported")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout, self.bidirectional = bias, batch_first, float(dropout), \
            bidirectional
        self.proj_size = 0
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_in = input_size if layer == 0 else hidden_size * directions
            for suffix in ("", "_reverse")[:directions]:
                shapes = {"weight_ih": (gate_size, layer_in), "weight_hh": (gate_size, hidden_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(creation.empty(*shape, dtype=dtype, device=device)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """A cuDNN memory-layout hint in torch; nothing to do here."""

    @property
    def all_weights(self) -> list:
        names = self._flat_weights_names
        per = 4 if self.bias else 2
        return [[getattr(self, n) for n in names[i:i + per]] for i in range(0, len(names), per)]

    def _weights(self, layer: int, suffix: str):
        get = lambda kind: getattr(self, f"{kind}_l{layer}{suffix}", None)  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")

    def _check_input(self, x: Tensor) -> bool:
        if x.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {x.ndim}D instead")
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{x.shape[-1]}")
        return x.ndim == 3

    def _zeros_state(self, x: Tensor) -> Tensor:
        directions = 2 if self.bidirectional else 1
        return creation.zeros(self.num_layers * directions, x.shape[1], self.hidden_size, dtype=x.dtype,
                              device=x.device)

    def _check_hidden(self, h: Tensor, x: Tensor) -> None:
        expected = (self.num_layers * (2 if self.bidirectional else 1), x.shape[1], self.hidden_size)
        if tuple(h.shape) != expected:
            raise RuntimeError(f"Expected hidden size {expected}, got {list(h.shape)}")

    def _run_direction(self, x: Tensor, state, layer: int, reverse: bool, running=None):
        """One layer, one direction over (T, N, *) x. ``running[t]`` (packed input): the (N, 1) mask of the
        sequences still running at step t; the others keep their state (so a finished sequence's last state is
        its final one, and the reverse direction starts at each sequence's own last step)."""
        w_ih, w_hh, b_ih, b_hh = self._weights(layer, "_reverse" if reverse else "")
        if self.mode == "LSTM" and running is None and x.dtype in _FUSED_DTYPES:
            # torch's CPU LSTM (oneDNN) runs a float32 layer as one node: MkldnnRnnLayerBackward0
            out, h_n, c_n = lstm_layer(x, w_ih, w_hh, b_ih, b_hh, state[0], state[1], reverse)
            return out, (h_n, c_n)
        cell = _CELLS[self.mode]
        x_proj = F.linear(x, w_ih, b_ih)  # all time steps at once: (T, N, gates)
        steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
        outputs = [None] * x.shape[0]
        x_steps = x_proj.unbind(0)  # one UnbindBackward0 node, as torch (T selects would each fill a T-step zero)
        for t in steps:
            new = cell(x_steps[t], state, w_hh, b_hh)
            if running is not None:
                keep = running[t]
                new = tuple(ops.where(keep, n, o) for n, o in zip(new, state)) if self.mode == "LSTM" else \
                    ops.where(keep, new, state)
            state = new
            outputs[t] = state[0] if self.mode == "LSTM" else state
        return ops.stack(outputs, 0), state

    def forward(self, input: Tensor, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        batched = self._check_input(input)
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        lstm = self.mode == "LSTM"
        if hx is None:
            h0 = self._zeros_state(x)
            c0 = self._zeros_state(x) if lstm else None
        else:
            h0, c0 = hx if lstm else (hx, None)
            if not batched:
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1) if lstm else None
            self._check_hidden(h0, x)
            if lstm:
                self._check_hidden(c0, x)
        output, h_n, c_n = self._layers(x, h0, c0)
        if not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
            c_n = c_n.squeeze(1) if lstm else None
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, ((h_n, c_n) if lstm else h_n)

    def _forward_packed(self, packed: PackedSequence, hx):
        """A PackedSequence in, a PackedSequence out: the padded steps (sorted by length) with running masks."""
        lstm = self.mode == "LSTM"
        data, sizes = packed.data, packed.batch_sizes.detach().cpu().numpy()
        if data.ndim != 2 or data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{data.shape[-1]}")
        x, _ = pad_packed_sequence(PackedSequence(data, packed.batch_sizes))  # (T, N, *), sorted order
        if hx is None:
            h0 = self._zeros_state(x)
            c0 = self._zeros_state(x) if lstm else None
        else:
            h0, c0 = hx if lstm else (hx, None)
            if packed.sorted_indices is not None:  # the states come in the caller's order
                h0 = h0.index_select(1, packed.sorted_indices.to(h0.device))
                c0 = c0.index_select(1, packed.sorted_indices.to(c0.device)) if lstm else None
            self._check_hidden(h0, x)
        rows = np.arange(x.shape[1])
        xp_running = [creation.tensor((rows < b).reshape(-1, 1), device=x.device) for b in sizes]
        output, h_n, c_n = self._layers(x, h0, c0, xp_running)
        out_data = ops.cat([output[t, :int(b)] for t, b in enumerate(sizes)], 0)
        if packed.unsorted_indices is not None:
            h_n = h_n.index_select(1, packed.unsorted_indices.to(h_n.device))
            c_n = c_n.index_select(1, packed.unsorted_indices.to(c_n.device)) if lstm else None
        out = PackedSequence(out_data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        return out, ((h_n, c_n) if lstm else h_n)

    def _layers(self, x: Tensor, h0: Tensor, c0, running=None):
        """Every layer and direction over (T, N, *) x from the initial states: (output, h_n, c_n)."""
        lstm = self.mode == "LSTM"
        directions = 2 if self.bidirectional else 1
        h_n, c_n = [], []
        layer_input = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                state = (h0[k], c0[k]) if lstm else h0[k]
                out, state = self._run_direction(layer_input, state, layer, reverse=d == 1, running=running)
                outs.append(out)
                h_n.append(state[0] if lstm else state)
                if lstm:
                    c_n.append(state[1])
            layer_input = outs[0] if directions == 1 else ops.cat(outs, dim=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, ops.stack(h_n, 0), (ops.stack(c_n, 0) if lstm else None)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh) (or relu)."""

    def __init__(self, *args, nonlinearity: str = "tanh", **kwargs) -> None:
        if len(args) > 3:  # torch's positional order: input_size, hidden_size, num_layers, nonlinearity, ...
            nonlinearity, args = args[3], args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory; returns output, (h_n, c_n)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit (torch's formula: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)))."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    """One step of a recurrence; parameters weight_ih, weight_hh, bias_ih, bias_hh as torch."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(creation.empty(num_chunks * hidden_size, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(creation.empty(num_chunks * hidden_size, hidden_size, dtype=dtype,
                                                  device=device))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _prepare(self, input: Tensor, hx):
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        return x, batched

    def _zeros(self, x: Tensor) -> Tensor:
        return creation.zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._prepare(input, hx)
        h = self._zeros(x) if hx is None else (hx if batched else hx.unsqueeze(0))
        cell = _rnn_tanh_cell if self.nonlinearity == "tanh" else _rnn_relu_cell
        h = cell(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx=None):
        x, batched = self._prepare(input, hx)
        if hx is None:
            hx = (self._zeros(x), self._zeros(x))
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = _lstm_cell(F.linear(x, self.weight_ih, self.bias_ih), hx, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._prepare(input, hx)
        h = self._zeros(x) if hx is None else (hx if batched else hx.unsqueeze(0))
        h = _gru_cell(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
