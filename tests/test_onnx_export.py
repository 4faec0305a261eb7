"""framework.onnx.export: every covered module family exports to a model that onnx's checker accepts and that
onnxruntime runs to our outputs, at the export batch size and at another one through a dynamic axis."""
from __future__ import annotations

import io
import sys

import numpy as np
import pytest

import framework
from framework import nn
from framework.autograd import Function

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from models.cnn import SmallCNN  # noqa: E402
from models.gan import BNGenerator, ConvDiscriminator, ConvGenerator, Discriminator, Generator  # noqa: E402
from models.mlp import MLP  # noqa: E402

RTOL, ATOL = 1e-5, 1e-6


def host(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def flat(value) -> list:
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flat(v)]
    return [] if value is None else [value]


def export_bytes(model, args, **kw) -> bytes:
    buf = io.BytesIO()
    framework.onnx.export(model, args, buf, **kw)
    data = buf.getvalue()
    onnx.checker.check_model(onnx.load_from_string(data))
    return data


def run(data: bytes, feeds: dict) -> list:
    opts = ort.SessionOptions()
    opts.log_severity_level = 3  # (a fixed output shape met at another batch size is only a warning)
    session = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def roundtrip(model, args, other=None, axes=None, atol=ATOL):
    """Export ``model(*args)`` with ``axes`` ({input index: [dims]}) dynamic; compare onnxruntime's outputs with
    ours at ``args`` and at ``other`` (inputs of another size along those dims). Returns the exported bytes."""
    model.eval()
    args = args if isinstance(args, tuple) else (args,)
    names = [f"x{i}" for i in range(len(args))]
    with framework.no_grad():
        n_out = len(flat(model(*args)))
    out_names = [f"y{i}" for i in range(n_out)]
    dynamic = {names[i]: dims for i, dims in (axes or {}).items()}
    for name in out_names:  # every output's dim 0 (and 1 when the batch is there): as its shape says
        dynamic[name] = [0, 1] if axes and any(1 in d for d in axes.values()) else [0]
    data = export_bytes(model, args, input_names=names, output_names=out_names,
                        dynamic_axes=dynamic if axes else None)
    for inputs in [args] + ([other if isinstance(other, tuple) else (other,)] if other is not None else []):
        with framework.no_grad():
            ours = flat(model(*inputs))
        theirs = run(data, {n: host(t) for n, t in zip(names, inputs)})
        assert len(theirs) == len(ours)
        for a, b in zip(theirs, ours):
            assert a.shape == tuple(b.shape)
            np.testing.assert_allclose(a, host(b), rtol=RTOL, atol=atol)
    return data


def randn(*shape):
    return framework.randn(*shape)


BATCH = {0: [0]}  # input 0's dim 0 is the batch


# ---- module families -------------------------------------------------------------------------------

def test_linear_on_2d_and_3d_inputs():
    framework.manual_seed(0)
    roundtrip(nn.Sequential(nn.Linear(5, 7), nn.Linear(7, 3, bias=False)), randn(4, 5), randn(9, 5), BATCH)
    roundtrip(nn.Linear(5, 3), randn(4, 6, 5), randn(2, 6, 5), BATCH)


@pytest.mark.parametrize("conv", [
    lambda: nn.Conv1d(3, 4, 3),
    lambda: nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2),
    lambda: nn.Conv2d(3, 4, 3, padding=1),
    lambda: nn.Conv2d(4, 8, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=4),
    lambda: nn.Conv2d(4, 4, 3, padding="same", bias=False)])
def test_convolutions(conv):
    framework.manual_seed(1)
    m = conv()
    c = m.in_channels
    shape = (c, 11) if isinstance(m, nn.Conv1d) else (c, 9, 8)
    roundtrip(m, randn(2, *shape), randn(5, *shape), BATCH)


@pytest.mark.parametrize("kw", [dict(stride=2, padding=1), dict(stride=2, padding=1, output_padding=1),
                                dict(stride=1, groups=2, dilation=2), dict(stride=3, bias=False)])
def test_conv_transpose2d(kw):
    framework.manual_seed(2)
    m = nn.ConvTranspose2d(4, 6, 3, **kw)
    roundtrip(m, randn(2, 4, 5, 5), randn(3, 4, 5, 5), BATCH)


def _with_running_stats(bn):
    """Running statistics away from 0 and 1, so that eval mode's use of them is seen."""
    framework.manual_seed(3)
    c = bn.num_features
    with framework.no_grad():
        bn.running_mean.copy_(framework.randn(c))
        bn.running_var.copy_(framework.rand(c) + 0.5)
        if bn.affine:
            bn.weight.copy_(framework.randn(c))
            bn.bias.copy_(framework.randn(c))
    return bn


def test_batch_norm_1d_and_2d_use_running_stats():
    roundtrip(_with_running_stats(nn.BatchNorm1d(6)), randn(4, 6), randn(7, 6), BATCH)
    roundtrip(_with_running_stats(nn.BatchNorm1d(6, affine=False)), randn(4, 6, 5), randn(2, 6, 5), BATCH)
    roundtrip(_with_running_stats(nn.BatchNorm2d(3)), randn(2, 3, 4, 5), randn(6, 3, 4, 5), BATCH)


def test_batch_norm_without_running_stats_uses_the_batch():
    roundtrip(nn.BatchNorm2d(3, track_running_stats=False), randn(4, 3, 2, 2), randn(6, 3, 2, 2), BATCH)


def test_layer_norm_and_group_norm():
    framework.manual_seed(4)
    ln = nn.LayerNorm((4, 5))
    with framework.no_grad():
        ln.weight.copy_(framework.randn(4, 5))
        ln.bias.copy_(framework.randn(4, 5))
    roundtrip(ln, randn(3, 4, 5), randn(6, 4, 5), BATCH)
    roundtrip(nn.LayerNorm(5, elementwise_affine=False), randn(3, 2, 5), randn(1, 2, 5), BATCH)
    gn = nn.GroupNorm(2, 6)
    with framework.no_grad():
        gn.weight.copy_(framework.randn(6))
        gn.bias.copy_(framework.randn(6))
    roundtrip(gn, randn(2, 6, 3, 4), randn(5, 6, 3, 4), BATCH)
    roundtrip(nn.GroupNorm(3, 3, affine=False), randn(2, 3, 7), randn(4, 3, 7), BATCH)


def test_embedding():
    framework.manual_seed(5)
    m = nn.Sequential(nn.Embedding(10, 4, padding_idx=0), nn.Linear(4, 2))
    idx = framework.tensor([[1, 2, 0], [9, 3, 4]])
    roundtrip(m, idx, framework.tensor([[5, 6, 7], [0, 0, 1], [2, 2, 2], [8, 1, 3]]), BATCH)


@pytest.mark.parametrize("act", [nn.ReLU(), nn.ReLU(inplace=True), nn.LeakyReLU(0.3), nn.LeakyReLU(inplace=True),
                                 nn.GELU(), nn.GELU(approximate="tanh"), nn.SiLU(), nn.Tanh(), nn.Sigmoid(),
                                 nn.Softmax(dim=1), nn.Softmax(dim=-1), nn.LogSoftmax(dim=1), nn.Hardtanh(),
                                 nn.ELU(), nn.SELU(), nn.CELU(0.7), nn.ReLU6(), nn.Softplus(beta=2), nn.Mish(),
                                 nn.Hardswish(), nn.Hardsigmoid()],
                         ids=lambda m: repr(m))
def test_activations(act):
    m = nn.Sequential(nn.Linear(6, 6), act)
    roundtrip(m, 3 * randn(4, 3, 6), 3 * randn(2, 3, 6), BATCH)


@pytest.mark.parametrize("pool", [nn.MaxPool2d(2), nn.MaxPool2d(3, stride=2, padding=1),
                                  nn.MaxPool2d(2, ceil_mode=True),
                                  nn.MaxPool2d(2, dilation=2), nn.AvgPool2d(2), nn.AvgPool2d(3, stride=2, padding=1),
                                  nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
                                  nn.AvgPool2d(2, ceil_mode=True), nn.AvgPool2d(3, 2, 1, divisor_override=4),
                                  nn.AdaptiveAvgPool2d(1), nn.AdaptiveAvgPool2d((2, 3)), nn.MaxPool1d(3, stride=2),
                                  nn.MaxPool1d(2, ceil_mode=True), nn.AvgPool1d(2),
                                  nn.AvgPool1d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)],
                         ids=lambda m: repr(m))
def test_pooling(pool):
    shape = (3, 9) if isinstance(pool, (nn.MaxPool1d, nn.AvgPool1d)) else (3, 8, 9)
    roundtrip(pool, randn(2, *shape), randn(4, *shape), BATCH)


@pytest.mark.parametrize("resample", [nn.Upsample(scale_factor=2), nn.Upsample(size=(5, 7), mode="bilinear"),
                                      nn.Upsample(scale_factor=1.5, mode="bicubic", align_corners=True),
                                      nn.ReflectionPad2d((1, 2, 0, 1)), nn.ReplicationPad2d(1),
                                      nn.ZeroPad2d((2, 0, 1, 1)),
                                      nn.AdaptiveAvgPool2d((3, 5))], ids=lambda m: repr(m))
def test_resampling_and_padding(resample):
    roundtrip(nn.Sequential(nn.Conv2d(2, 2, 1), resample), randn(2, 2, 4, 6), randn(3, 2, 4, 6), BATCH)


class Shapes(nn.Module):
    """Flatten/view/reshape/permute/transpose/cat/split/chunk/slicing/select/stack/expand on a batch."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(12, 12)

    def forward(self, x):  # x: (N, 3, 4)
        a = x.view(x.shape[0], -1)  # (N, 12)
        b = self.lin(a).reshape(-1, 3, 4)
        c = framework.cat([b.permute(0, 2, 1), x.transpose(1, 2)], dim=2)  # (N, 4, 6)
        d, e = c.split([2, 4], dim=2)
        f = framework.stack(e.chunk(2, dim=2), dim=1)  # (N, 2, 4, 2)
        g = f[:, 1, 1:3, ::2] + d[:, :2, -1:]  # (N, 2, 1)
        h = x[:, :1].expand(-1, 3, -1) * x[..., 0].unsqueeze(-1)
        i = framework.flatten(h, 1) + nn.Flatten()(g.squeeze(-1).unsqueeze(2)).sum(1, keepdim=True)
        return i.reshape(x.shape[0], 3, 2, 2).mean(dim=(2, 3)), x[:, -1]


def test_shape_ops():
    roundtrip(Shapes(), randn(2, 3, 4), randn(5, 3, 4), BATCH)


class Regroup(nn.Module):
    """(L, N, E) -> (L * N, E) -> linear maths -> (L, N, F): the merged dim split again, both parts dynamic."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(framework.randn(6, 4))
        self.b = nn.Parameter(framework.randn(6))

    def forward(self, x):
        rows = nn.functional.linear(x.reshape(-1, x.shape[2]), self.w, self.b).relu() * 2
        return rows.view(x.shape[0], x.shape[1], 6) + x.sum(-1, keepdim=True)


def test_a_merged_dim_split_again_with_two_dynamic_axes():
    framework.manual_seed(17)
    roundtrip(Regroup(), randn(3, 5, 4), randn(4, 7, 4), {0: [0, 1]})


class Arithmetic(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(framework.randn(4))
        self.register_buffer("shift", framework.randn(3, 1))

    def forward(self, x, y):  # x: (N, 3, 4), y: (N, 1, 4)
        z = (x + y) * self.scale - self.shift / 2
        z = 1 - z / (x.abs() + 1) + 2 ** framework.tanh(x) - (-y) ** 2
        z = framework.maximum(z, y) + framework.minimum(z, x).clamp(-1, 1) + z.sqrt().exp().neg() * 0.5
        z += y  # in place
        z.mul_(0.5).sub_(x).div_(1.5)
        return framework.where(x > 0, z, 3.0 * y) + x.mean() - z.var(dim=-1, keepdim=True) + z.sum(1, keepdim=True)


class MixedDtypes(nn.Module):
    def forward(self, x, n):  # n: int64 (N, 1)
        return x * n + n / 2 + (n + 1) / n + x ** 2 - 2.5 ** x


def test_arithmetic_promotes_an_int_tensor_as_torch():
    roundtrip(MixedDtypes(), (randn(3, 4), framework.tensor([[1], [2], [3]])),
              (randn(4, 4), framework.tensor([[5], [6], [7], [8]])), {0: [0], 1: [0]}, atol=1e-5)


def test_arithmetic_with_broadcasting_and_scalars():
    framework.manual_seed(6)
    roundtrip(Arithmetic(), (randn(3, 3, 4), randn(3, 1, 4)), (randn(5, 3, 4), randn(5, 1, 4)), {0: [0], 1: [0]},
              atol=1e-5)


class Reductions(nn.Module):
    def forward(self, x):  # x: (N, 3, 4)
        top = x.max(dim=1)
        low = x.min(dim=-1, keepdim=True)
        norms = x.norm(dim=2, keepdim=True) + x.norm(p=1, dim=(1, 2)).view(-1, 1, 1) + \
            framework.linalg.vector_norm(x, ord=float("inf"), dim=1, keepdim=True) + \
            framework.linalg.vector_norm(x, ord=3, dim=1, keepdim=True)
        picked = x[:, framework.tensor([2, 0, 2])] + nn.functional.pad(x, (1, 0, -1, 1), value=0.5)[:, :, 1:]
        return (top.values.unsqueeze(1) + low.values + x.amax(1, keepdim=True) - x.amin(dim=(1, 2), keepdim=True)
                + x.std(dim=1, keepdim=True) * x.max() - x.min() + norms + nn.functional.normalize(x, dim=1) + picked,
                top.indices, low.indices)


def test_reductions_norms_indexing_and_padding():
    framework.manual_seed(19)
    roundtrip(Reductions(), randn(3, 3, 4), randn(5, 3, 4), BATCH, atol=1e-5)


class Products(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(framework.randn(4, 5))

    def forward(self, x, y):  # x: (N, 3, 4), y: (N, 4, 2)
        return (x @ self.w).sum(-1, keepdim=True) * framework.matmul(x, y).mean(-1, keepdim=True) + \
            framework.bmm(x, y)[..., :1] + (x[0] @ y[0]).sum()


def test_matmul():
    framework.manual_seed(7)
    roundtrip(Products(), (randn(2, 3, 4), randn(2, 4, 2)), (randn(6, 3, 4), randn(6, 4, 2)), {0: [0], 1: [0]},
              atol=1e-5)


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention(batch_first):
    framework.manual_seed(8)
    m = nn.MultiheadAttention(8, 2, batch_first=batch_first)
    b = 0 if batch_first else 1
    shape = lambda n: (n, 5, 8) if batch_first else (5, n, 8)  # noqa: E731

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = m

        def forward(self, x):
            return self.attn(x, x, x)

    roundtrip(SelfAttention(), randn(*shape(2)), randn(*shape(3)), {0: [b]}, atol=1e-5)


def test_multihead_attention_with_masks_and_other_key_sizes():
    framework.manual_seed(9)
    m = nn.MultiheadAttention(6, 3, kdim=4, vdim=5, batch_first=True)

    class Cross(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = m

        def forward(self, q, k, v, pad):
            causal = framework.triu(framework.ones(3, 7, dtype=framework.bool), diagonal=5)
            return self.attn(q, k, v, key_padding_mask=pad, attn_mask=causal, average_attn_weights=False)

    pad = framework.tensor([[False] * 6 + [True], [False] * 7])
    pad5 = framework.tensor([[False] * 7, [False] * 5 + [True] * 2, [False] * 7, [False] * 6 + [True]])
    roundtrip(Cross(), (randn(2, 3, 6), randn(2, 7, 4), randn(2, 7, 5), pad),
              (randn(4, 3, 6), randn(4, 7, 4), randn(4, 7, 5), pad5), {0: [0], 1: [0], 2: [0], 3: [0]}, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(), dict(activation="gelu", norm_first=True, batch_first=True)])
def test_transformer_encoder_layer(kw):
    framework.manual_seed(10)
    m = nn.TransformerEncoderLayer(8, 2, 16, **kw)
    b = 0 if kw.get("batch_first") else 1
    shape = lambda n: (n, 4, 8) if b == 0 else (4, n, 8)  # noqa: E731
    roundtrip(m, randn(*shape(2)), randn(*shape(5)), {0: [b]}, atol=1e-5)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
@pytest.mark.parametrize("kw", [dict(), dict(num_layers=2, bidirectional=True), dict(batch_first=True, bias=False)])
def test_recurrent_layers(cls, kw):
    framework.manual_seed(11)
    m = cls(3, 4, **kw)
    b = 0 if kw.get("batch_first") else 1
    shape = lambda n: (n, 5, 3) if b == 0 else (5, n, 3)  # noqa: E731
    roundtrip(m, randn(*shape(2)), randn(*shape(6)), {0: [b]}, atol=1e-5)


def test_lstm_with_initial_state():
    framework.manual_seed(12)
    m = nn.LSTM(3, 4, num_layers=2)

    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = m

        def forward(self, x, h, c):
            out, (h_n, c_n) = self.lstm(x, (h, c))
            return out, h_n, c_n

    roundtrip(WithState(), (randn(5, 2, 3), randn(2, 2, 4), randn(2, 2, 4)),
              (randn(5, 3, 3), randn(2, 3, 4), randn(2, 3, 4)), {0: [1], 1: [1], 2: [1]}, atol=1e-5)


# ---- the models/ networks --------------------------------------------------------------------------

@pytest.mark.parametrize("make,shape", [
    (lambda: MLP([6, 16, 16, 3]), (6,)), (lambda: MLP([6, 8, 3], activation="gelu"), (6,)),
    (lambda: SmallCNN(size=8), (1, 8, 8)), (lambda: SmallCNN(size=28, channels=1), (1, 28, 28)),
    (lambda: Generator(), (16,)), (lambda: BNGenerator(), (2,)), (lambda: Discriminator(), (2,)),
    (lambda: ConvGenerator(size=8), (32,)), (lambda: ConvGenerator(size=28, width=8), (32,)),
    (lambda: ConvDiscriminator(size=8), (1, 8, 8))], ids=["mlp", "mlp-gelu", "cnn8", "cnn28", "G", "BN-G", "D",
                                                       "conv-G8", "conv-G28", "conv-D"])
def test_models_networks(make, shape):
    framework.manual_seed(13)
    model = make()
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            _with_running_stats(m)
    roundtrip(model, randn(3, *shape), randn(7, *shape), BATCH, atol=1e-5)


# ---- export's arguments and errors -----------------------------------------------------------------

def test_unsupported_op_names_the_op_and_the_module():
    class Block(nn.Module):
        def forward(self, x):
            return x.cumsum(1)

    model = nn.Sequential(nn.Linear(3, 3), nn.Sequential(nn.ReLU(), Block()))
    with pytest.raises(framework.onnx.UnsupportedOperatorError,
                       match=r"framework\.onnx\.export: no ONNX mapping for op 'Cumsum' \(CumsumBackward0\) called "
                             r"from model\.1\.1$"):
        framework.onnx.export(model, (randn(2, 3),), io.BytesIO())


def test_a_user_function_has_no_mapping():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class M(nn.Module):
        def forward(self, x):
            return Double.apply(x) + 1

    with pytest.raises(framework.onnx.UnsupportedOperatorError, match="no ONNX mapping for op 'Double'.*from model$"):
        framework.onnx.export(M(), (randn(2, 3),), io.BytesIO())


def test_export_params_false_makes_parameters_inputs():
    framework.manual_seed(14)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU()).eval()
    _with_running_stats(model[1])
    x = randn(2, 3)
    data = export_bytes(model, (x,), input_names=["x"], export_params=False)
    graph = onnx.load_from_string(data).graph
    assert not graph.initializer or all(i.name not in dict(model.state_dict()) for i in graph.initializer)
    inputs = [i.name for i in graph.input]
    assert inputs[0] == "x" and set(inputs[1:]) == {"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                                      "1.running_var"}
    state = {k: host(v) for k, v in model.state_dict().items()}
    got = run(data, {"x": host(x), **{k: state[k] for k in inputs[1:]}})[0]
    with framework.no_grad():
        np.testing.assert_allclose(got, host(model(x)), rtol=RTOL, atol=ATOL)
    with_params = onnx.load_from_string(export_bytes(model, (x,), input_names=["x"])).graph
    assert [i.name for i in with_params.input] == ["x"]
    assert {i.name for i in with_params.initializer} >= set(inputs[1:])


def test_keep_initializers_as_inputs_and_training_modes(capsys):
    framework.manual_seed(18)
    model = nn.Sequential(nn.Linear(3, 4), _with_running_stats(nn.BatchNorm1d(4)))
    x = randn(6, 3)
    graph = onnx.load_from_string(export_bytes(model, (x,), input_names=["x"], keep_initializers_as_inputs=True,
                                               verbose=True)).graph
    assert "BatchNormalization" in capsys.readouterr().out  # verbose: the graph printed
    assert {i.name for i in graph.input} == {"x"} | {i.name for i in graph.initializer}
    model.train()
    data = export_bytes(model, (x,), input_names=["x"], training=framework.onnx.TrainingMode.TRAINING)
    with framework.no_grad():  # train mode: the batch's own statistics
        np.testing.assert_allclose(run(data, {"x": host(x)})[0], host(model(x)), rtol=RTOL, atol=1e-5)
    model.eval()
    data = export_bytes(model, (x,), input_names=["x"], training=framework.onnx.TrainingMode.PRESERVE)
    assert not model.training
    with framework.no_grad():
        np.testing.assert_allclose(run(data, {"x": host(x)})[0], host(model(x)), rtol=RTOL, atol=ATOL)
    with pytest.raises(TypeError, match="model must be an nn.Module"):
        framework.onnx.export(lambda t: t, (x,), io.BytesIO())


def test_f_as_a_path_and_as_a_file_object(tmp_path):
    model = nn.Linear(3, 2)
    x = randn(1, 3)
    path = tmp_path / "model.onnx"
    framework.onnx.export(model, (x,), path)
    framework.onnx.export(model, x, str(tmp_path / "again.onnx"))
    buf = io.BytesIO()
    framework.onnx.export(model, (x,), buf)
    assert path.read_bytes() == buf.getvalue() == (tmp_path / "again.onnx").read_bytes()
    onnx.checker.check_model(onnx.load(str(path)))


def test_dynamic_axes_named_in_the_graph():
    data = export_bytes(nn.Linear(3, 2), (randn(4, 3),), input_names=["x"], output_names=["y"],
                        dynamic_axes={"x": {0: "batch"}, "y": [0]})
    graph = onnx.load_from_string(data).graph
    dims = lambda v: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]  # noqa: E731
    assert dims(graph.input[0]) == ["batch", 3] and dims(graph.output[0]) == ["y_dynamic_axes_1", 2]
    without = onnx.load_from_string(export_bytes(nn.Linear(3, 2), (randn(4, 3),))).graph
    assert dims(without.input[0]) == [4, 3]


def test_eval_semantics_and_the_mode_restored():
    framework.manual_seed(15)
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), _with_running_stats(nn.BatchNorm1d(8)), nn.ReLU())
    model.train()
    model[2].eval()  # a submodule in another mode keeps it
    x = randn(5, 4)
    mean_before = host(model[2].running_mean).copy()
    data = export_bytes(model, (x,), input_names=["x"])
    assert model.training and model[0].training and model[1].training and not model[2].training
    np.testing.assert_array_equal(host(model[2].running_mean), mean_before)  # eval: running stats untouched
    model.eval()
    with framework.no_grad():
        np.testing.assert_allclose(run(data, {"x": host(x)})[0], host(model(x)), rtol=RTOL, atol=ATOL)


def test_opset_versions():
    model = nn.Sequential(nn.Linear(4, 4), nn.GELU(), nn.LayerNorm(4))
    x = randn(3, 4)
    for opset in (17, 18, 20):
        data = export_bytes(model, (x,), input_names=["x"], opset_version=opset)
        assert onnx.load_from_string(data).opset_import[0].version == opset
        with framework.no_grad():
            np.testing.assert_allclose(run(data, {"x": host(x)})[0], host(model(x)), rtol=RTOL, atol=1e-5)
    with pytest.raises(ValueError, match="opset_version 9 is not supported"):
        framework.onnx.export(model, (x,), io.BytesIO(), opset_version=9)


def test_arguments_it_cannot_honour_are_named():
    with pytest.raises(NotImplementedError, match="custom_opsets"):
        framework.onnx.export(nn.Linear(2, 2), (randn(1, 2),), io.BytesIO(), custom_opsets={"my": 1})
    with pytest.raises(NotImplementedError, match="operator_export_type"):
        framework.onnx.export(nn.Linear(2, 2), (randn(1, 2),), io.BytesIO(),
                              operator_export_type=framework.onnx.OperatorExportTypes.ONNX_ATEN)
    for dynamo in (True, False):  # both accepted: one tracer
        framework.onnx.export(nn.Linear(2, 2), (randn(1, 2),), io.BytesIO(), dynamo=dynamo)


def test_without_onnx_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # `import onnx` now raises ImportError
    with pytest.raises(ImportError, match=r"framework\[onnx\]"):
        framework.onnx.export(nn.Linear(2, 2), (randn(1, 2),), io.BytesIO())


class Masks(nn.Module):
    """Comparisons and logic (no Function: graph-free) reached as operators, methods and framework functions."""

    def forward(self, x, idx):
        keep = (x > 0) & ~framework.eq(idx, 0).unsqueeze(-1) | framework.lt(x, -1.5)
        return framework.where(keep, x, x * 0.1), x.ge(0.5).logical_xor(x != 1), idx == 3


def test_comparisons_and_logic():
    framework.manual_seed(16)
    roundtrip(Masks(), (randn(2, 3, 4), framework.tensor([[0, 1, 3], [2, 0, 3]])),
              (randn(3, 3, 4), framework.tensor([[3, 1, 3], [2, 0, 0], [0, 0, 1]])), {0: [0], 1: [0]})


# ---- the trainers' --export-onnx -------------------------------------------------------------------

def _cli_device() -> list:
    from conftest import device_name

    return [] if device_name() == "cpu" else ["--device", "cuda"]


def _saved(path) -> dict:
    return {k: host(v) for k, v in framework.load(str(path)).items()}


def test_cli_classify_export_onnx(tmp_path):
    from train.cli import main

    path = tmp_path / "model.onnx"
    assert main(["classify", *_cli_device(), "--data", "moons", "--epochs", "1", "--out", str(tmp_path / "run"),
                 "--no-progress", "--export-onnx", str(path)]) == 0
    model = MLP([2, 64, 64, 2]).eval()
    model.load_state_dict(framework.load(str(tmp_path / "run" / "final.safetensors")))
    x = randn(9, 2)
    data = path.read_bytes()
    onnx.checker.check_model(onnx.load_from_string(data))
    with framework.no_grad():
        np.testing.assert_allclose(run(data, {"input": host(x)})[0], host(model(x)), rtol=RTOL, atol=1e-5)


def test_cli_gan_export_onnx_writes_the_generator(tmp_path):
    from train.cli import main

    path = tmp_path / "g.onnx"
    assert main(["gan", *_cli_device(), "--steps", "4", "--out", str(tmp_path / "run"), "--no-progress",
                 "--export-onnx", str(path)]) == 0
    state = framework.load(str(tmp_path / "run" / "final.safetensors"))
    g_state = {k[2:]: v for k, v in state.items() if k.startswith("G.")} if "G" not in state else state["G"]
    latent = onnx.load(str(path)).graph.input[0].type.tensor_type.shape.dim[1].dim_value
    z = randn(5, latent)
    weights = {k: host(v) for k, v in g_state.items()}
    assert weights  # the generator's weights were saved beside it
    outputs = run(path.read_bytes(), {"input": host(z)})
    assert outputs[0].shape == (5, 2)
    initializers = {i.name: onnx.numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}
    used = {n for n in weights if not n.endswith("num_batches_tracked")}  # (eval mode reads no batch count)
    assert used <= set(initializers)
    for name in used:
        np.testing.assert_array_equal(initializers[name], weights[name])


def test_cli_export_onnx_refuses_a_sweep():
    from train.cli import main

    with pytest.raises(SystemExit):
        main(["gan", "--seeds", "0,1", "--export-onnx", "g.onnx"])


def test_a_number_the_size_of_a_dynamic_axis_is_warned_about():
    class ScaleByBatch(nn.Module):
        def forward(self, x):
            return x * x.shape[0]

    with pytest.warns(UserWarning, match="op 'Mul' called from model got the number 3, the size of dynamic axis "
                                         "'batch' at export"):
        framework.onnx.export(ScaleByBatch(), (randn(3, 2),), io.BytesIO(), input_names=["x"],
                              dynamic_axes={"x": {0: "batch"}})


def test_max_pool_indices_are_an_error_only_when_returned():
    pool = nn.MaxPool2d(2, return_indices=True)

    class Values(nn.Module):
        def forward(self, x):
            values, indices = pool(x)
            return values * 0.5

    roundtrip(Values(), randn(2, 3, 4, 4), randn(3, 3, 4, 4), BATCH)

    class Both(nn.Module):
        def forward(self, x):
            values, indices = pool(x)
            return values, indices.flatten(1)

    with pytest.raises(framework.onnx.UnsupportedOperatorError,
                       match="output 'output_1' cannot be exported: max pooling's indices"):
        framework.onnx.export(Both(), (randn(2, 3, 4, 4),), io.BytesIO())


class Encoder(nn.Module):
    """Token ids -> embeddings -> a two-layer TransformerEncoder that ignores the padding (id 0)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
                                         enable_nested_tensor=False)

    def forward(self, idx):
        return self.enc(self.emb(idx), src_key_padding_mask=idx == 0)


def test_transformer_encoder_with_a_padding_mask_and_dynamic_lengths():
    framework.manual_seed(20)
    idx = framework.tensor([[1, 2, 3, 0], [4, 5, 0, 0], [7, 7, 7, 7]])
    other = framework.tensor([[1, 2, 3, 0, 0, 9], [4, 5, 6, 0, 0, 1]])
    roundtrip(Encoder(), idx, other, {0: [0, 1]}, atol=1e-5)


class Attention(nn.Module):
    def forward(self, q, k, v, bias):
        return (nn.functional.scaled_dot_product_attention(q, k, v)
                + nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
                + nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
                + nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias > -1))  # a bool mask


def test_scaled_dot_product_attention():
    framework.manual_seed(21)
    args = lambda n: (randn(n, 2, 5, 4), randn(n, 2, 5, 4), randn(n, 2, 5, 4), randn(n, 1, 5, 5))  # noqa: E731
    roundtrip(Attention(), args(3), args(4), {0: [0], 1: [0], 2: [0], 3: [0]}, atol=1e-5)


def test_a_failing_forward_leaves_nothing_patched():
    from framework.ops.pointwise import Add
    from framework.ops._separable import SeparableMap

    before = (Add.__dict__["apply"], framework.Tensor.__dict__["__gt__"], framework.ops.gt, type(Add).__init__)

    class Fails(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            framework.nn.functional.interpolate(self.lin(x).unsqueeze(1), scale_factor=3)  # makes an op class
            raise ValueError("broken forward")

    model = Fails()
    with pytest.raises(ValueError, match="broken forward"):
        framework.onnx.export(model, (randn(1, 2),), io.BytesIO())
    after = (Add.__dict__["apply"], framework.Tensor.__dict__["__gt__"], framework.ops.gt, type(Add).__init__)
    assert all(a is b for a, b in zip(before, after))
    assert "forward" not in model.__dict__ and "forward" not in model.lin.__dict__
    assert not framework.onnx.is_in_onnx_export()
    made = [c for c in SeparableMap.__subclasses__() if "Nearest1D" in c.__name__]  # (made in the trace or before)
    assert made and all("_wrap_apply" not in c.__dict__["apply"].__func__.__qualname__ for c in made)
    y = framework.nn.functional.interpolate(randn(1, 1, 2), scale_factor=2)  # runs untraced afterwards
    assert tuple(y.shape) == (1, 1, 4)
