"""nn layers and losses vs torch: same weights in, same outputs and gradients out (train and eval)."""
import numpy as np
import pytest

import framework
from framework import nn

torch = pytest.importorskip("torch")

LAYERS = [
    ("linear", lambda m: m.nn.Linear(5, 3), (4, 5)),
    ("linear_nobias_3d", lambda m: m.nn.Linear(5, 3, bias=False), (2, 4, 5)),
    ("conv2d", lambda m: m.nn.Conv2d(3, 4, 3), (2, 3, 7, 6)),
    ("conv2d_stride_pad_dil", lambda m: m.nn.Conv2d(2, 3, (3, 2), stride=2, padding=(1, 2), dilation=(2, 1)),
     (2, 2, 9, 8)),
    ("conv_transpose2d", lambda m: m.nn.ConvTranspose2d(3, 2, 4, stride=2, padding=1), (2, 3, 4, 5)),
    ("conv_transpose2d_outpad", lambda m: m.nn.ConvTranspose2d(2, 2, 3, stride=2, padding=1, output_padding=1),
     (1, 2, 3, 3)),
    ("maxpool", lambda m: m.nn.MaxPool2d(2), (2, 3, 6, 6)),
    ("maxpool_stride_pad", lambda m: m.nn.MaxPool2d(3, stride=2, padding=1), (1, 2, 7, 7)),
    ("avgpool", lambda m: m.nn.AvgPool2d(2), (2, 3, 6, 4)),
    ("batchnorm1d", lambda m: m.nn.BatchNorm1d(4), (6, 4)),
    ("batchnorm1d_3d", lambda m: m.nn.BatchNorm1d(3), (4, 3, 5)),
    ("batchnorm2d", lambda m: m.nn.BatchNorm2d(3), (4, 3, 5, 5)),
    ("layernorm", lambda m: m.nn.LayerNorm((3, 4)), (2, 3, 4)),
    ("relu", lambda m: m.nn.ReLU(), (4, 5)),
    ("leaky_relu", lambda m: m.nn.LeakyReLU(0.2), (4, 5)),
    ("sigmoid", lambda m: m.nn.Sigmoid(), (4, 5)),
    ("tanh", lambda m: m.nn.Tanh(), (4, 5)),
    ("gelu", lambda m: m.nn.GELU(), (4, 5)),
    ("gelu_tanh", lambda m: m.nn.GELU(approximate="tanh"), (4, 5)),
    ("softmax", lambda m: m.nn.Softmax(dim=1), (4, 5)),
    ("logsoftmax", lambda m: m.nn.LogSoftmax(dim=1), (4, 5)),
    ("flatten", lambda m: m.nn.Flatten(), (2, 3, 4)),
    ("identity", lambda m: m.nn.Identity(), (2, 3)),
    ("sequential_relu_inplace", lambda m: m.nn.Sequential(m.nn.Linear(5, 6), m.nn.ReLU(inplace=True),
                                                          m.nn.Linear(6, 2), m.nn.LeakyReLU(0.1, inplace=True)),
     (4, 5)),
]


def _copy_from_torch(ours, theirs, dtype):
    state = {k: v.detach().double().cpu().numpy() for k, v in theirs.state_dict().items()}
    ours.load_state_dict({k: framework.tensor(v, dtype=dtype if v.dtype.kind == "f" else None) for k, v in
                          state.items()})


@pytest.mark.parametrize("mode", ["train", "eval"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,build,shape", LAYERS, ids=[x[0] for x in LAYERS])
def test_layer_matches_torch(name, build, shape, dtype, mode):
    torch.manual_seed(0)
    theirs = build(torch).to(getattr(torch, dtype))
    ours = build(framework).to(getattr(framework, dtype))
    _copy_from_torch(ours, theirs, getattr(framework, dtype))
    getattr(theirs, mode)()
    getattr(ours, mode)()
    x = np.random.default_rng(0).standard_normal(shape)
    tx = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
    fx = framework.tensor(x, dtype=getattr(framework, dtype), requires_grad=True)
    t_out, f_out = theirs(tx), ours(fx)
    up = np.random.default_rng(1).standard_normal(tuple(t_out.shape))
    t_out.backward(torch.tensor(up, dtype=t_out.dtype))
    f_out.backward(framework.tensor(up, dtype=f_out.dtype))
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    framework.testing.assert_close(f_out.detach(), t_out.detach().cpu().numpy(), **tol)
    framework.testing.assert_close(fx.grad, tx.grad.cpu().numpy(), **tol)
    for (k, p), (tk, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert k == tk
        framework.testing.assert_close(p.grad, tp.grad.cpu().numpy(), **tol)
    for (k, b), (tk, tb) in zip(ours.named_buffers(), theirs.named_buffers()):
        assert k == tk
        framework.testing.assert_close(b, tb.cpu().numpy(), check_dtype=False, **tol)


def _targets(m, kind, shape, dtype):
    rng = np.random.default_rng(2)
    if kind == "prob01":
        return m.tensor(rng.uniform(0, 1, shape), dtype=dtype)
    if kind == "index":
        return m.tensor(rng.integers(0, shape[1], (shape[0],) + tuple(shape[2:])))
    if kind == "probs":
        p = rng.uniform(0, 1, shape)
        return m.tensor(p / p.sum(axis=1, keepdims=True), dtype=dtype)
    return m.tensor(rng.standard_normal(shape), dtype=dtype)


LOSSES = [
    ("mse", lambda m, dt, r: m.nn.MSELoss(reduction=r), "real", (4, 3), None),
    ("l1", lambda m, dt, r: m.nn.L1Loss(reduction=r), "real", (4, 3), None),
    ("bce", lambda m, dt, r: m.nn.BCELoss(reduction=r), "prob01", (4, 3), "sigmoid"),
    ("bce_weight", lambda m, dt, r: m.nn.BCELoss(weight=m.tensor([0.5, 1.0, 2.0], dtype=dt), reduction=r), "prob01",
     (4, 3), "sigmoid"),
    ("bce_logits", lambda m, dt, r: m.nn.BCEWithLogitsLoss(reduction=r), "prob01", (4, 3), None),
    ("bce_logits_posw", lambda m, dt, r: m.nn.BCEWithLogitsLoss(pos_weight=m.tensor([1.0, 3.0, 0.5], dtype=dt),
                                                                reduction=r), "prob01", (4, 3), None),
    ("ce", lambda m, dt, r: m.nn.CrossEntropyLoss(reduction=r), "index", (5, 4), None),
    ("ce_weight_ignore", lambda m, dt, r: m.nn.CrossEntropyLoss(weight=m.tensor([1.0, 2.0, 0.5, 1.5], dtype=dt),
                                                                ignore_index=2, reduction=r), "index", (6, 4), None),
    ("ce_smoothing", lambda m, dt, r: m.nn.CrossEntropyLoss(label_smoothing=0.1, reduction=r), "index", (5, 4), None),
    ("ce_smoothing_weight", lambda m, dt, r: m.nn.CrossEntropyLoss(weight=m.tensor([1.0, 2.0, 0.5, 1.5], dtype=dt),
                                                                   label_smoothing=0.2, reduction=r), "index", (5, 4),
     None),
    ("ce_probs", lambda m, dt, r: m.nn.CrossEntropyLoss(reduction=r), "probs", (5, 4), None),
    ("ce_spatial", lambda m, dt, r: m.nn.CrossEntropyLoss(reduction=r), "index", (2, 3, 4, 2), None),
    ("nll", lambda m, dt, r: m.nn.NLLLoss(reduction=r), "index", (5, 4), "log_softmax"),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,build,kind,shape,pre", LOSSES, ids=[x[0] for x in LOSSES])
def test_loss_matches_torch(name, build, kind, shape, pre, dtype, reduction):
    x = np.random.default_rng(0).standard_normal(shape)
    results = []
    for m in (framework, torch):
        dt = getattr(m, dtype)
        inp = m.tensor(x, dtype=dt, requires_grad=True)
        z = inp.sigmoid() if pre == "sigmoid" else (inp.log_softmax(1) if pre == "log_softmax" else inp)
        loss = build(m, dt, reduction)(z, _targets(m, kind, shape, dt))
        loss.sum().backward()
        results.append((loss.detach(), inp.grad))
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    framework.testing.assert_close(results[0][0], results[1][0].cpu().numpy(), **tol)
    framework.testing.assert_close(results[0][1], results[1][1].cpu().numpy(), **tol)


def test_bce_log_clamp_matches_torch():
    for m in (framework, torch):
        p = m.tensor([0.0, 1.0, 0.5], requires_grad=True)
        loss = m.nn.functional.binary_cross_entropy(p, m.tensor([1.0, 0.0, 1.0]), reduction="none")
        assert [round(v, 4) for v in loss.tolist()] == [100.0, 100.0, 0.6931]


def test_state_dict_keys_order_shapes_equal_torch():
    def build(m):
        class Net(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = m.nn.Conv2d(1, 4, 3)
                self.bn = m.nn.BatchNorm2d(4)
                self.head = m.nn.Sequential(m.nn.Flatten(), m.nn.Linear(4 * 6 * 6, 10), m.nn.ReLU(),
                                            m.nn.Linear(10, 3))
                self.extra = m.nn.Parameter(m.zeros(2))

            def forward(self, x):
                return self.head(self.bn(self.conv(x)).relu())

        return Net()

    torch.manual_seed(0)
    ours, theirs = build(framework), build(torch)
    ours_sd, theirs_sd = ours.state_dict(), theirs.state_dict()
    assert list(ours_sd) == list(theirs_sd)
    assert [tuple(v.shape) for v in ours_sd.values()] == [tuple(v.shape) for v in theirs_sd.values()]
    assert [k for k, _ in ours.named_parameters()] == [k for k, _ in theirs.named_parameters()]
    assert [k for k, _ in ours.named_modules()] == [k for k, _ in theirs.named_modules()]
    ours.load_state_dict({k: v.cpu().numpy() for k, v in theirs_sd.items()})
    x = np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32)
    ours.eval()
    theirs.eval()
    framework.testing.assert_close(ours(framework.tensor(x)), theirs(torch.tensor(x)).detach().cpu().numpy(),
                                   rtol=1e-5, atol=1e-5)
    assert repr(ours).replace("framework", "torch") == repr(theirs)


def test_load_state_dict_errors_list_keys_and_shapes():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    sd = model.state_dict()
    sd["extra.weight"] = framework.zeros(1)
    del sd["1.bias"]
    sd["0.weight"] = framework.zeros(4, 2)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(sd)
    msg = str(info.value)
    assert msg.startswith("Error(s) in loading state_dict for Sequential:")
    assert 'Missing key(s) in state_dict: "1.bias"' in msg and 'Unexpected key(s) in state_dict: "extra.weight"' in msg
    assert "size mismatch for 0.weight: copying a param with shape framework.Size([4, 2])" in msg
    result = nn.Linear(2, 3).load_state_dict({"weight": framework.zeros(3, 2)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == []


def test_module_api():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.register_buffer("steps", framework.zeros(1))
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            return self.drop(self.fc(x))

    b = Block()
    assert [n for n, _ in b.named_parameters()] == ["fc.weight", "fc.bias"]
    assert [n for n, _ in b.named_buffers()] == ["steps"] and len(list(b.children())) == 2
    b.eval()
    assert not b.training and not b.drop.training
    calls = []
    h = b.register_forward_hook(lambda mod, inp, out: calls.append(out.shape))
    b.register_forward_pre_hook(lambda mod, inp: calls.append("pre"))
    x = framework.ones(3, 2)
    assert framework.equal(b(x), b.fc(x))  # dropout is the identity in eval
    h.remove()
    b(x)
    assert calls == ["pre", (3, 2), "pre"]
    b.train()
    b(x).sum().backward()
    b.zero_grad()
    assert b.fc.weight.grad is None
    w = b.fc.weight
    b.double()
    assert b.fc.weight is w and w.dtype is framework.float64 and b.steps.dtype is framework.float64
    b.requires_grad_(False)
    assert not w.requires_grad
    seen = []
    b.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Dropout", "Block"]


def test_init_functions_update_in_place_under_no_grad():
    w = nn.Parameter(framework.empty(64, 32))
    for fn in (nn.init.xavier_uniform_, nn.init.xavier_normal_, nn.init.kaiming_uniform_, nn.init.kaiming_normal_,
               nn.init.zeros_, nn.init.ones_):
        out = fn(w)
        assert out is w and w.is_leaf and w.requires_grad
    assert w._version == 6
    nn.init.constant_(w, 0.3)
    assert abs(w.mean().item() - 0.3) < 1e-6
    framework.manual_seed(0)
    nn.init.xavier_uniform_(w)
    bound = (6 / (64 + 32)) ** 0.5
    assert w.abs().max().item() <= bound and w.abs().max().item() > 0.9 * bound
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(w.std().item() - (2 / 64) ** 0.5) < 0.02


def test_default_init_distribution_matches_torch():
    lin = nn.Linear(400, 300)
    bound = 1 / 400 ** 0.5
    assert lin.weight.abs().max().item() <= bound and lin.weight.abs().max().item() > 0.99 * bound
    assert abs(lin.weight.std().item() - bound / 3 ** 0.5) < 0.01 * bound


def test_clip_grad_and_vectors():
    p1 = nn.Parameter(framework.tensor([3.0, 4.0]))
    p2 = nn.Parameter(framework.tensor([0.0]))
    (p1 * p1).sum().backward()
    (p2 * 0).sum().backward()
    total = nn.utils.clip_grad_norm_([p1, p2], 1.0)
    assert abs(total.item() - 10.0) < 1e-5 and abs(p1.grad.pow(2).sum().sqrt().item() - 1.0) < 1e-4
    nn.utils.clip_grad_value_([p1], 0.1)
    assert p1.grad.abs().max().item() <= 0.1 + 1e-7
    v = nn.utils.parameters_to_vector([p1, p2])
    assert v.tolist() == [3.0, 4.0, 0.0]
    nn.utils.vector_to_parameters(framework.tensor([1.0, 2.0, 3.0]), [p1, p2])
    assert p1.tolist() == [1.0, 2.0] and p2.tolist() == [3.0]


def test_embedding_repeated_indices_accumulate():
    for m in (framework, torch):
        m.manual_seed(0)
    e = nn.Embedding(5, 3)
    idx = framework.tensor([[1, 2, 1], [1, 0, 4]])
    e(idx).sum().backward()
    assert e.weight.grad[1].tolist() == [3.0, 3.0, 3.0] and e.weight.grad[3].tolist() == [0.0, 0.0, 0.0]


def test_layer_bad_input_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(4x3 and 5x2\)"):
        nn.Linear(5, 2)(framework.ones(4, 3))
    with pytest.raises(RuntimeError, match="Expected 4D"):
        nn.Conv2d(3, 2, 3)(framework.ones(3, 5, 5))
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(framework.ones(2, 3))
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        nn.MSELoss(reduction="avg")


def test_buffer_marker_registers_a_buffer():
    m = nn.Module()
    m.stats = nn.Buffer(framework.zeros(2))
    m.tmp = nn.Buffer(framework.ones(1), persistent=False)
    assert [n for n, _ in m.named_buffers()] == ["stats", "tmp"] and list(m.state_dict()) == ["stats"]
