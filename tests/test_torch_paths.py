"""torch's module paths and small top-level APIs: the same objects under torch's names, accelerator, backends, onnx."""
import importlib
import io

import numpy as np
import pytest

import framework
from framework import nn

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("path,name", [
    ("nn.modules.linear", "Linear"), ("nn.modules.linear", "Identity"), ("nn.modules.conv", "Conv2d"),
    ("nn.modules.sparse", "Embedding"), ("nn.modules.dropout", "Dropout"), ("nn.modules.container", "Sequential"),
    ("nn.modules.module", "Module"), ("nn.modules.activation", "ReLU"), ("nn.modules.batchnorm", "BatchNorm2d"),
    ("nn.modules.normalization", "LayerNorm"), ("nn.modules.pooling", "MaxPool2d"), ("nn.modules.loss", "MSELoss"),
    ("nn.modules.flatten", "Flatten"), ("nn.modules", "Linear"), ("nn.parameter", "Parameter"),
    ("optim.optimizer", "Optimizer"), ("utils.data.dataloader", "DataLoader"),
    ("utils.data.dataloader", "default_collate"), ("utils.data.dataset", "TensorDataset"),
    ("utils.data.dataset", "random_split"), ("utils.data.sampler", "RandomSampler"), ("utils.data", "get_worker_info"),
    ("utils.data.sampler", "BatchSampler"), ("distributions", "Categorical"), ("serialization", "safe_globals"),
    ("serialization", "add_safe_globals"),
])
def test_torch_module_paths_name_the_same_objects(path, name):
    assert hasattr(importlib.import_module(f"torch.{path}"), name)  # the path exists in torch
    obj = getattr(importlib.import_module(f"framework.{path}"), name)
    package = {"nn": nn, "optim": framework.optim, "utils": framework.utils.data}.get(path.split(".")[0])
    if package is not None:
        assert obj is getattr(package, name)  # one object under both names


def test_nn_modules_are_attributes_after_import():
    # word_language_model spells torch.nn.modules.rnn.LSTM etc. with no import of the submodule
    assert framework.nn.modules.linear.Linear is nn.Linear and framework.nn.modules.sparse.Embedding is nn.Embedding
    assert framework.utils.data.dataloader.DataLoader is framework.utils.data.DataLoader


def test_accelerator_agrees_with_the_backend_and_torch_on_cpu():
    assert framework.accelerator.is_available() == framework.cuda.is_available()
    assert framework.accelerator.device_count() == framework.cuda.device_count()
    if not framework.cuda.is_available():
        assert framework.accelerator.current_accelerator() is None
        assert torch.accelerator.current_accelerator() is None  # torch (CPU build) says the same
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available."):
            framework.accelerator.current_device_index()
    else:
        acc = framework.accelerator.current_accelerator()  # torch's device(type='cuda'): ours names the GPU it uses
        assert isinstance(acc, framework.device) and acc.type == "cuda" and acc in ("cuda", "cuda:0")
        assert framework.zeros(1).to(framework.accelerator.current_accelerator()).device == "cuda:0"


def test_backends_flags_are_accepted():
    import framework.backends.cudnn as cudnn

    old = (cudnn.benchmark, cudnn.deterministic, cudnn.enabled)
    try:
        framework.backends.cudnn.benchmark = True
        framework.backends.cudnn.deterministic = True
        framework.backends.cudnn.enabled = False
        assert framework.ones(2).sum().item() == 2.0
    finally:
        cudnn.benchmark, cudnn.deterministic, cudnn.enabled = old
    assert framework.backends.mps.is_available() is False and framework.backends.cudnn.is_available() is False


def test_onnx_imports_and_says_when_it_exports():
    import framework.onnx  # (exporting itself: tests/test_onnx_export.py)

    assert framework.onnx.is_in_onnx_export() is False
    seen = []

    class Probe(nn.Module):
        def forward(self, x):
            seen.append(framework.onnx.is_in_onnx_export())
            return x * 2

    pytest.importorskip("onnx")
    framework.onnx.export(Probe(), (framework.zeros(1, 2),), io.BytesIO())
    assert seen == [True] and framework.onnx.is_in_onnx_export() is False


def test_adamw_groups_with_and_without_weight_decay_match_torch():
    """The small-GPT recipe: decay matrices, not biases/norms; clip_grad_norm_; several steps."""
    rng = np.random.default_rng(0)
    ours = nn.Sequential(nn.Linear(4, 6), nn.LayerNorm(6), nn.Linear(6, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.LayerNorm(6), torch.nn.Linear(6, 2))
    theirs.load_state_dict({k: torch.tensor(v.cpu().numpy()) for k, v in ours.state_dict().items()})

    def groups(model):
        decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
        return [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]

    opt = framework.optim.AdamW(groups(ours), lr=0.05, betas=(0.9, 0.95))
    topt = torch.optim.AdamW(groups(theirs), lr=0.05, betas=(0.9, 0.95))
    for _ in range(5):
        x, y = rng.standard_normal((8, 4)).astype(np.float32), rng.standard_normal((8, 2)).astype(np.float32)
        for lib, model, o in ((framework, ours, opt), (torch, theirs, topt)):
            o.zero_grad()
            loss = ((model(lib.tensor(x)) - lib.tensor(y)) ** 2).mean()
            loss.backward()
            (nn if lib is framework else torch.nn).utils.clip_grad_norm_(model.parameters(), 0.5)
            o.step()
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[k].cpu().numpy(), v.cpu().numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    assert [g["weight_decay"] for g in opt.param_groups] == [0.1, 0.0]


def test_double_flow_matches_torch():
    """Module.double() then float64 inputs: parameters, outputs and gradients are float64 as torch's."""
    ours = nn.Linear(3, 2).double()
    theirs = torch.nn.Linear(3, 2).double()
    theirs.load_state_dict({k: torch.tensor(v.cpu().numpy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((4, 3))
    out, tout = ours(framework.tensor(x)), theirs(torch.tensor(x))
    assert out.dtype == framework.float64 and ours.weight.dtype == framework.float64
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(out.detach().cpu().numpy(), tout.detach().cpu().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.weight.grad.cpu().numpy(), theirs.weight.grad.cpu().numpy(), rtol=1e-12)
    assert ours.weight.grad.dtype == framework.float64
