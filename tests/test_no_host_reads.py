"""No value read on the host inside a training step: the CNN, word-LM (LSTM) and transformer steps each run under
framework.compile(fullgraph=True) (a host read there raises GraphBreak), and the replays follow eager's losses."""
import numpy as np
import pytest

import framework
from bench import lstm_lm_step as lstm_lm, transformer_step


def _cnn_step(torch, compiled=False):
    """A small LeNet-style step: conv 5x5, ReLU, 2x2 max-pool (twice), Linear, cross-entropy, Adam."""
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 8, 5), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 4 * 4, 10))
    rng = np.random.default_rng(0)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.2, 0.2, tuple(p.shape)).astype(np.float32)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    device = next(model.parameters()).device  # (the strict CuPy stand-in's device under the strict test run)
    x = torch.from_numpy(rng.standard_normal((8, 1, 28, 28)).astype(np.float32)).to(device)
    y = torch.from_numpy(rng.integers(0, 10, 8)).to(device)

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return torch.compile(step, fullgraph=True) if compiled else step


WORKLOADS = {
    "cnn": _cnn_step,
    "lstm_lm": lambda torch, compiled=False: lstm_lm.make_step(torch, compiled, seq=6, batch=3, vocab=50, embed=8,
                                                               hidden=12),
    "transformer": lambda torch, compiled=False: transformer_step.make_step(torch, compiled, batch=2, seq=8, vocab=40,
                                                                            d=16, heads=2, ff=32),
}


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_step_runs_on_the_default_device(name):
    """The same steps eagerly on the test device (the strict CuPy stand-in in the strict run): they learn."""
    step = WORKLOADS[name](framework)
    losses = [float(step()) for _ in range(4)]
    assert losses[-1] < losses[0]


# compile records and replays NumPy steps only (a CuPy step runs eagerly), so the compiled checks run on the CPU
@pytest.mark.explicit_device
@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_step_compiles_with_no_graph_break(name):
    eager, compiled = WORKLOADS[name](framework), WORKLOADS[name](framework, compiled=True)
    losses_eager = [float(eager()) for _ in range(4)]
    losses_compiled = [float(compiled()) for _ in range(4)]  # fullgraph=True: a host read would raise here
    np.testing.assert_allclose(losses_compiled, losses_eager, rtol=1e-5, atol=1e-6)
    assert losses_eager[-1] < losses_eager[0]


@pytest.mark.explicit_device
def test_clip_grad_norm_reads_nothing_on_the_host():
    """clip_grad_norm_ and clip_grad_value_ under fullgraph; error_if_nonfinite=True does read (as torch's)."""
    w = framework.nn.Parameter(framework.tensor([3.0, 4.0]))

    def step(error_if_nonfinite=False):
        w.grad = None
        (w * w).sum().backward()
        norm = framework.nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=error_if_nonfinite)
        framework.nn.utils.clip_grad_value_([w], 0.5)
        return norm

    norm = framework.compile(step, fullgraph=True)()
    assert abs(float(norm) - 10.0) < 1e-5
    np.testing.assert_allclose(w.grad.detach().cpu().numpy(), [0.5, 0.5], rtol=1e-6)
    with pytest.raises(framework.compile.GraphBreak):
        framework.compile(lambda: step(True), fullgraph=True)()


@pytest.mark.explicit_device
def test_grad_scaler_unscale_and_update_read_nothing_on_the_host():
    """GradScaler's inf check and scale update stay tensors (step() reads found_inf, as torch's)."""
    scaler = framework.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    w = framework.nn.Parameter(framework.tensor([1.0, 2.0]))
    opt = framework.optim.SGD([w], lr=0.1)

    def unscale_and_update(value):
        opt.zero_grad()
        scaler.scale((w * value).sum()).backward()
        scaler.unscale_(opt)
        scaler.update()

    framework.compile(unscale_and_update, fullgraph=True)(framework.tensor(1.0))
    assert scaler.get_scale() == 4.0  # one clean step of two before growing
    np.testing.assert_allclose(w.grad.detach().cpu().numpy(), [1.0, 1.0])
    unscale_and_update(framework.tensor(1.0))
    assert scaler.get_scale() == 8.0
    unscale_and_update(framework.tensor(float("inf")))
    assert scaler.get_scale() == 4.0 and int(scaler._growth_tracker) == 0
