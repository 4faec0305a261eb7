"""Devices: the same code on CPU and (where present) GPU; clear errors for bad devices. GPU cases skip
cleanly without a GPU."""
import numpy as np
import pytest

import framework
from framework import nn, optim

pytestmark = pytest.mark.explicit_device  # these tests name their devices (both_devices)


def test_device_names_and_cpu_moves():
    t = framework.ones(2)
    assert t.device == "cpu" and t.cpu() is t and t.to("cpu") is t
    assert framework.device("cuda") == "cuda:0" and framework.device("cpu") == "cpu"
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        t.to("tpu")
    assert framework.cuda.device_count() == (framework.cuda.device_count() if framework.cuda.is_available() else 0)


def test_cuda_without_gpu_is_a_clear_error():
    if framework.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        framework.ones(2).cuda()
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        nn.Linear(2, 2).to("cuda")


def test_training_step_on_device(both_devices):
    device = both_devices
    framework.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(inplace=True), nn.Linear(8, 1)).to(device)
    w = model[0].weight
    opt = optim.Adam(model.parameters(), lr=0.01)
    x = framework.randn(16, 3).to(device)
    y = framework.randn(16, 1).to(device)
    for _ in range(5):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    assert model[0].weight is w and w.device == device and w.grad.device == device
    assert opt.state[w]["exp_avg"].device == device and np.isfinite(loss.item())


def test_mixing_devices_raises(both_devices):
    device = both_devices
    if device == "cpu":
        pytest.skip("needs a GPU to mix devices")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        framework.ones(2, device=device) + framework.ones(2)
    with pytest.raises(TypeError, match="Use Tensor.cpu\\(\\) to copy the tensor to host memory first"):
        framework.ones(2, device=device).numpy()


def test_inplace_version_semantics_on_device(both_devices):
    device = both_devices
    a = framework.tensor([1.0, 3.0], device=device, requires_grad=True)
    b = a + 2
    loss = (b * b).mean()
    b[0] = 1000.0
    assert b._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_checkpoint_from_device_loads_on_cpu(tmp_path, both_devices):
    device = both_devices
    model = nn.Linear(2, 2).to(device)
    framework.save(model.state_dict(), tmp_path / "m")
    back = framework.load(tmp_path / "m", map_location="cpu")
    assert all(v.device == "cpu" for v in back.values())
    cpu_model = nn.Linear(2, 2)
    cpu_model.load_state_dict(back)
    assert np.array_equal(cpu_model.weight.numpy(force=True), model.weight.cpu().numpy(force=True))
