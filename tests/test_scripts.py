"""Whole training scripts of our own (tests/scripts/, ordinary PyTorch code) run with `import framework as torch`.

Each script is run to completion through its own main() (its training loss must fall, or its agent improve),
and its own train functions are run twice, from the same weights (framework's state_dict copied into torch's
model) and the same data: once with the script as written, once with its text rebound to torch. Where a script
draws random numbers during training (the VAE's eps, the GAN's latents, the actor's samples) both runs are given
the same draws. The losses of the first steps must agree to float32 precision (float64 for the L-BFGS model).
"""
import argparse
import contextlib
import io
import itertools
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import framework

# the scripts choose their devices themselves (the CPU, or torch.accelerator's when they ask for it), as they do
# under torch: no default device is set for them
pytestmark = pytest.mark.explicit_device
SCRIPTS = Path(__file__).parent / "scripts"
F32 = dict(rtol=2e-4, atol=1e-5)
_loads = itertools.count()


@pytest.fixture(autouse=True)
def one_torch_thread():
    """torch on one thread while these run: on a small shared machine its thread pool mostly waits (10x slower)."""
    try:
        import torch
    except ImportError:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def load(name: str, backend: str = "framework") -> types.ModuleType:
    """The script as a fresh module; with backend="torch", every `framework` in its text reads `torch`."""
    path = SCRIPTS / f"{name}.py"
    source = path.read_text()
    if backend == "torch":
        source = re.sub(r"\bframework\b", "torch", source)
    module = types.ModuleType(f"script_{name}_{backend}_{next(_loads)}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module  # so that pickle finds its classes (torch.save(model, f))
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def quietly(fn, *args, **kwargs):
    """Run a script function with its progress prints captured."""
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


def same_start(model, saved: dict) -> None:
    """The first run (framework) keeps copies of its model's initial state_dict in ``saved``; the second (torch)
    loads them: torch.tensor(x.numpy()) for every entry."""
    if not saved:
        saved.update({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})
    else:
        torch = pytest.importorskip("torch")
        model.load_state_dict({k: torch.tensor(v) for k, v in saved.items()})


class Proxy:
    """A module with some attributes replaced (e.g. torch.randn_like drawing from a fixed list)."""

    def __init__(self, module, **replaced):
        self._module, self._replaced = module, replaced

    def __getattr__(self, name):
        return self._replaced[name] if name in self._replaced else getattr(self._module, name)


def draws(m, arrays):
    """A randn/randn_like stand-in for module ``m`` that returns the given arrays in turn."""
    it = iter(arrays)
    return lambda *args, **kwargs: m.tensor(next(it))


def both(name):
    torch = pytest.importorskip("torch")
    return (load(name), framework), (load(name, "torch"), torch)


def assert_losses_match(ours, theirs, n):
    assert len(ours) == len(theirs) >= n
    np.testing.assert_allclose(np.asarray(ours[:n], dtype=np.float64), np.asarray(theirs[:n], dtype=np.float64),
                               **F32)


def falls(losses, k=2):
    """The mean of the last k losses is below the mean of the first k."""
    losses = np.asarray(losses, dtype=np.float64)
    assert np.isfinite(losses).all()
    return losses[-k:].mean() < losses[:k].mean()


# ---- each script, run to completion with framework -----------------------------------------------------------

def test_bar_digits_cnn_runs_and_learns(tmp_path):
    losses = quietly(load("bar_digits_cnn").main, ["--epochs", "3", "--save", str(tmp_path / "cnn.pt")])
    assert len(losses) == 12 and falls(losses) and losses[-1] < 0.5
    assert set(framework.load(tmp_path / "cnn.pt")) >= {"conv_a.weight", "classify.bias"}


def test_pixel_shuffle_upscaler_runs_and_learns(tmp_path):
    script = load("pixel_shuffle_upscaler")
    losses = quietly(script.main, ["--epochs", "3", "--save", str(tmp_path / "model.pt")])
    assert len(losses) == 6 and falls(losses)
    with framework.serialization.safe_globals([script.SubPixelNet, framework.nn.Sequential, framework.nn.Conv2d,
                                               framework.nn.ReLU, framework.nn.PixelShuffle]):
        model = framework.load(tmp_path / "model.pt")
    assert model(framework.rand(1, 1, 4, 4)).shape == (1, 1, 12, 12)


def test_variational_autoencoder_runs_and_learns():
    losses = quietly(load("variational_autoencoder").main, ["--epochs", "2"])
    assert len(losses) == 8 and falls(losses)


def test_conv_gan_runs_saves_and_resumes(tmp_path):
    losses = quietly(load("conv_gan").main, ["--out", str(tmp_path), "--epochs", "3"])
    assert len(losses) == 9 and falls([c for c, g in losses], k=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{n}_{e}.pt" for n in ("critic", "generator")
                                                         for e in range(3)]
    resumed = quietly(load("conv_gan").main, ["--out", str(tmp_path), "--one-batch",
                                              "--resume-generator", str(tmp_path / "generator_2.pt"),
                                              "--resume-critic", str(tmp_path / "critic_2.pt")])
    assert len(resumed) == 1 and np.isfinite(resumed).all()


def test_hilltop_actor_critic_runs_and_improves():
    running_length = quietly(load("hilltop_actor_critic").main, ["--episodes", "30"])
    assert running_length > 100  # a random policy keeps the ball up for about 35 steps; a good one for all 200


def test_hilltop_random_policy_baseline():
    """The bar the learner must clear: random pushes keep the ball up for far fewer than 100 steps."""
    env = load("hilltop_actor_critic").Hilltop()
    env.reset(seed=0)
    rng, lengths = np.random.default_rng(0), []
    for _ in range(50):
        env.reset()
        steps, done = 0, False
        while not done:
            _, _, done = env.step(int(rng.integers(2)))
            steps += 1
        lengths.append(steps)
    assert np.mean(lengths) < 60


def test_gram_style_transfer_runs_and_learns(tmp_path):
    losses = quietly(load("gram_style_transfer").main, ["--save-dir", str(tmp_path)])
    assert len(losses) == 4 and falls([c + s for c, s in losses], k=1)
    assert sorted(p.name for p in tmp_path.glob("stylizer_epoch_*.pt")) == ["stylizer_epoch_0.pt",
                                                                            "stylizer_epoch_1.pt"]


# ---- the same steps with torch, from the same weights and data -----------------------------------------------

def test_bar_digits_cnn_matches_torch():
    rng = np.random.default_rng(0)
    images = rng.standard_normal((16, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, 16)
    saved, results = {}, []
    for script, m in both("bar_digits_cnn"):
        model = script.BarNet()
        same_start(model, saved)
        for layer in model.modules():  # dropout off: both runs must draw nothing
            if isinstance(layer, m.nn.Dropout):
                layer.p = 0.0
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(images), m.tensor(labels)),
                                         batch_size=8)
        optimizer = script.Adadelta(model.parameters(), lr=1.0)
        schedule = script.StepLR(optimizer, step_size=1, gamma=0.7)
        losses = []
        for epoch in (1, 2):
            losses += quietly(script.train_epoch, model, loader, optimizer, m.device("cpu"), epoch)
            schedule.step()
        held_out = quietly(script.evaluate, model, loader, m.device("cpu"))
        results.append((losses, optimizer.param_groups[0]["lr"], held_out))
    (ours, lr, held), (theirs, t_lr, t_held) = results
    assert_losses_match(ours, theirs, 4)
    assert lr == pytest.approx(t_lr)
    np.testing.assert_allclose(held, t_held, **F32)


def test_pixel_shuffle_upscaler_matches_torch():
    rng = np.random.default_rng(1)
    targets = rng.uniform(0, 1, (8, 1, 12, 12)).astype(np.float32)
    inputs = targets.reshape(8, 1, 4, 3, 4, 3).mean(axis=(3, 5))
    saved, results = {}, []
    for script, m in both("pixel_shuffle_upscaler"):
        model = script.SubPixelNet(factor=3)
        same_start(model, saved)
        optimizer = m.optim.Adam(model.parameters(), lr=0.01)
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(inputs), m.tensor(targets)),
                                         batch_size=4)
        losses = []
        for epoch in (1, 2):
            losses += script.train_epoch(model, loader, optimizer, m.nn.MSELoss())
        results.append((losses, script.psnr(model, loader)))
    (ours, psnr), (theirs, t_psnr) = results
    assert_losses_match(ours, theirs, 4)
    assert psnr == pytest.approx(t_psnr, rel=1e-4)


def test_variational_autoencoder_matches_torch():
    rng = np.random.default_rng(2)
    images = (rng.uniform(0, 1, (32, 1, 8, 8)) < 0.3).astype(np.float32)
    eps = [rng.standard_normal((8, 4)).astype(np.float32) for _ in range(4)]
    saved, results = {}, []
    for script, m in both("variational_autoencoder"):
        script.torch = Proxy(m, randn_like=draws(m, eps))  # the same reparameterisation noise in both runs
        model = script.RectangleVAE()
        same_start(model, saved)
        optimizer = m.optim.Adam(model.parameters(), lr=1e-2)
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(images), m.zeros(32)), batch_size=8)
        results.append(quietly(script.train_epoch, model, loader, optimizer))
    assert_losses_match(*results, 4)


def test_conv_gan_matches_torch():
    rng = np.random.default_rng(3)
    images = rng.uniform(-1, 1, (8, 3, 32, 32)).astype(np.float32)
    noise = [rng.standard_normal((4, 8, 1, 1)).astype(np.float32) for _ in range(2)]
    saved_g, saved_c, results = {}, {}, []
    for script, m in both("conv_gan"):
        script.torch = Proxy(m, randn=draws(m, noise))  # the same latent draws in both runs
        generator, critic = script.Generator(8, 4), script.Critic(4)
        generator.apply(script.init_weights)
        critic.apply(script.init_weights)
        same_start(generator, saved_g)
        same_start(critic, saved_c)
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(images), m.zeros(8)), batch_size=4)
        opt_g, opt_c = (m.optim.Adam(n.parameters(), lr=2e-4, betas=(0.5, 0.999)) for n in (generator, critic))
        results.append(quietly(script.train_epoch, loader, generator, critic, opt_g, opt_c, m.nn.BCELoss(), 8))
    assert_losses_match(*results, 2)


def test_hilltop_actor_critic_matches_torch():
    actions = np.random.default_rng(4).integers(0, 2, 1000)
    saved, results = {}, []
    for script, m in both("hilltop_actor_critic"):
        taken = iter(actions)

        class Replayed(script.Categorical):
            def sample(self, sample_shape=()):  # the same actions in both runs
                return m.tensor(int(next(taken)))

        script.Categorical = Replayed
        model = script.ActorCritic()
        same_start(model, saved)
        optimizer = m.optim.Adam(model.parameters(), lr=3e-2)
        env = script.Hilltop()
        env.reset(seed=0)
        losses = []
        for episode in range(3):  # main()'s loop
            script.run_episode(env, model)
            losses.append(script.learn(model, optimizer, 0.99))
        results.append(losses)
    assert_losses_match(*results, 3)


def test_gram_style_transfer_matches_torch(tmp_path):
    rng = np.random.default_rng(5)
    images = rng.uniform(0, 255, (4, 3, 16, 16)).astype(np.float32)
    style = rng.uniform(0, 255, (3, 16, 16)).astype(np.float32)
    args = argparse.Namespace(batch_size=2, lr=1e-2, epochs=1, content_weight=1e3, style_weight=1e5, log_every=1,
                              save_dir=str(tmp_path))
    saved_stylizer, saved_features, results = {}, {}, []
    for script, m in both("gram_style_transfer"):
        stylizer, features = script.Stylizer(), script.FeatureNet()
        same_start(stylizer, saved_stylizer)
        same_start(features, saved_features)
        dataset = m.utils.data.TensorDataset(m.tensor(images), m.zeros(4))
        results.append(quietly(script.train, args, stylizer, features, dataset, m.tensor(style)))
    assert_losses_match(*results, 2)


# ---- word_lm: recurrent and Transformer language models, plain SGD through p.data.add_ ------------------------

def test_word_lm_runs_learns_saves_and_reloads(tmp_path):
    losses = quietly(load("word_lm").main, ["--data", str(tmp_path / "data"), "--model", "GRU", "--tie",
                                            "--epochs", "4", "--save", str(tmp_path / "model.pt")])
    assert len(losses) > 100 and falls(losses, k=10)
    for kind in ("Transformer", "RNN_RELU"):  # torch.save(model, f), then torch.load under safe_globals
        losses = quietly(load("word_lm").main, ["--data", str(tmp_path / "data"), "--model", kind,
                                                "--one-window", "--save", str(tmp_path / f"{kind}.pt")])
        assert len(losses) == 2 and np.isfinite(losses).all()


@pytest.mark.parametrize("kind", ["LSTM", "Transformer"])
def test_word_lm_matches_torch(kind, tmp_path):
    data = tmp_path / "data"
    load("word_lm").write_corpus(str(data))
    saved, results = {}, []
    for script, m in both("word_lm"):
        vocab, (train, _, _) = script.read_corpus(str(data))
        train = script.columns(train, 4)[:8 * 6 + 1]  # six windows of bptt=8
        model = script.TransformerLM(len(vocab), 16, 2, 16, 2, 0.0) if kind == "Transformer" else \
            script.RecurrentLM(kind, len(vocab), 16, 16, 2, 0.0)
        same_start(model, saved)
        results.append(script.train_epoch(model, train, m.nn.NLLLoss(), 20.0, 8, 0.25, 4))
    assert_losses_match(*results, 6 if kind == "LSTM" else 3)
    assert len(results[0]) == 6


# ---- lbfgs_sequence: LSTMCells in float64, fitted by L-BFGS -------------------------------------------------

def test_lbfgs_sequence_runs_and_learns(tmp_path):
    script = load("lbfgs_sequence")
    script.write_waves(str(tmp_path / "waves.pt"), count=8, length=50)  # main() would write 10 waves of 80
    losses = quietly(script.main, ["--data", str(tmp_path / "waves.pt"), "--steps", "2", "--plot", str(tmp_path)])
    assert len(losses) > 20 and falls(losses, k=3) and losses[-1] < 0.1 * losses[0]
    assert sorted(p.name for p in tmp_path.glob("*.pdf")) == ["forecast_0.pdf", "forecast_1.pdf"]


def test_lbfgs_sequence_matches_torch(tmp_path):
    path = tmp_path / "waves.pt"
    load("lbfgs_sequence").write_waves(str(path), count=6, length=40)
    data = framework.load(path).numpy()  # (framework.save writes safetensors, which torch.load does not read)
    saved, results = {}, []
    for script, m in both("lbfgs_sequence"):
        model = script.Forecaster().double()
        same_start(model, saved)
        tensors = [m.from_numpy(a) for a in (data[3:, :-1], data[3:, 1:], data[:3, :-1], data[:3, 1:])]
        results.append(quietly(script.fit, model, *tensors, steps=1, future=5))
    assert len(results[0]) == len(results[1]) > 10
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9)  # float64 all the way


# ---- graph_attention: hand-written multi-head attention over a graph (matmul, .mT, where), Adam + decay -------

def test_graph_attention_runs_and_learns():
    losses = quietly(load("graph_attention").main, ["--epochs", "30"])
    assert len(losses) == 30 and falls(losses, k=5)


def test_graph_attention_matches_torch():
    saved, results = {}, []
    for script, m in both("graph_attention"):
        m.manual_seed(0)
        x, labels, adjacency = script.planted_graph()
        if not saved:
            graph = [t.numpy().copy() for t in (x, labels, adjacency)]
        x, labels, adjacency = (m.tensor(a) for a in graph)  # the same graph in both runs
        model = script.GAT(x.shape[1], 8, 4, 4, dropout=0.0)
        same_start(model, saved)
        optimizer = m.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
        idx = m.arange(len(labels))
        losses = [script.train_step(model, optimizer, m.nn.NLLLoss(), x, adjacency, labels, idx[40:])
                  for _ in range(5)]
        results.append((losses, script.accuracy(model, x, adjacency, labels, idx[:40])))
    (ours, acc), (theirs, t_acc) = results
    assert_losses_match(ours, theirs, 5)
    assert acc == pytest.approx(t_acc)


# ---- pulse_lstm_classifier: an LSTM (batch_first) read out through BatchNorm1d --------------------------------

def test_pulse_lstm_classifier_runs_and_learns():
    losses = quietly(load("pulse_lstm_classifier").main, ["--epochs", "6"])
    assert len(losses) == 24 and falls(losses, k=4)


def test_pulse_lstm_classifier_matches_torch():
    rng = np.random.default_rng(6)
    sequences = rng.standard_normal((24, 16, 6)).astype(np.float32)
    labels = rng.integers(0, 4, 24)
    saved, results = {}, []
    for script, m in both("pulse_lstm_classifier"):
        model = script.PulseNet()
        same_start(model, saved)
        model.drop.p = 0.0  # both runs must draw nothing
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(sequences), m.tensor(labels)),
                                         batch_size=8)
        optimizer = script.optim.Adadelta(model.parameters(), lr=1.0)
        losses = quietly(script.train_epoch, model, loader, optimizer)
        accuracy = quietly(script.evaluate, model, loader)
        results.append((losses, accuracy, {k: v.detach().numpy() for k, v in model.state_dict().items()}))
    (ours, acc, state), (theirs, t_acc, t_state) = results
    assert_losses_match(ours, theirs, 3)
    assert acc == t_acc
    for k in ("norm.running_mean", "norm.running_var", "norm.num_batches_tracked"):
        np.testing.assert_allclose(state[k], t_state[k], **F32)


# ---- resnet_checkpoint: SGD with momentum, StepLR, top-k accuracy, checkpoints with optimizer/scheduler state ----

def test_resnet_checkpoint_runs_saves_and_resumes(tmp_path):
    args = ["--dir", str(tmp_path), "--seed", "0"]
    losses = quietly(load("resnet_checkpoint").main, args + ["--epochs", "2"])
    assert len(losses) == 8 and falls(losses, k=2)
    checkpoint = framework.load(tmp_path / "last.pt")
    n_params = len(list(load("resnet_checkpoint").SmallResNet().parameters()))
    assert checkpoint["epoch"] == 2 and checkpoint["scheduler"]["last_epoch"] == 2
    assert len(checkpoint["optimizer"]["state"]) == n_params  # a momentum buffer per parameter
    assert checkpoint["optimizer"]["param_groups"][0]["lr"] == pytest.approx(0.1 * 0.5 ** 2)
    assert (tmp_path / "best.pt").exists()
    more = quietly(load("resnet_checkpoint").main, args + ["--epochs", "3", "--resume", str(tmp_path / "last.pt")])
    assert len(more) == 4 and framework.load(tmp_path / "last.pt")["epoch"] == 3


def test_resnet_checkpoint_matches_torch():
    rng = np.random.default_rng(8)
    images = rng.uniform(0, 1, (16, 3, 16, 16)).astype(np.float32)
    labels = rng.integers(0, 10, 16)
    saved, results = {}, []
    for script, m in both("resnet_checkpoint"):
        model = script.SmallResNet()
        same_start(model, saved)
        optimizer = m.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
        schedule = m.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(images), m.tensor(labels)),
                                         batch_size=4)
        losses = []
        for epoch in range(2):
            losses += script.train_epoch(model, loader, m.nn.CrossEntropyLoss(), optimizer)
            schedule.step()
        top1 = quietly(script.evaluate, model, loader, m.nn.CrossEntropyLoss())
        results.append((losses, top1))
    (ours, acc), (theirs, t_acc) = results
    assert_losses_match(ours, theirs, 8)
    assert acc == pytest.approx(t_acc)
