"""pytorch/examples training scripts (tests/scripts/, adapted copies) run with `import framework as torch`.

Each script is run to completion through its own main() (its training loss must fall, or its agent improve),
and its own train functions are run twice, from the same weights (framework's state_dict copied into torch's
model) and the same data: once with the script as written, once with its text rebound to torch. Where a script
draws random numbers during training (the VAE's eps, DCGAN's noise, the actor's samples) both runs are given
the same draws. The losses of the first steps must agree to float32 precision.
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

def test_mnist_runs_and_learns():
    losses = quietly(load("mnist").main, ["--epochs", "3"])
    assert len(losses) == 12 and falls(losses) and losses[-1] < 0.5


def test_super_resolution_runs_and_learns():
    losses = quietly(load("super_resolution").main, ["--nEpochs", "3"])
    assert len(losses) == 6 and falls(losses)


def test_vae_runs_and_learns():
    losses = quietly(load("vae").main, ["--epochs", "2"])
    assert len(losses) == 8 and falls(losses)


def test_dcgan_runs_saves_and_resumes(tmp_path):
    script = load("dcgan")
    losses = quietly(script.main, ["--outf", str(tmp_path), "--niter", "3", "--manualSeed", "1"])
    assert len(losses) == 9 and falls([d for d, g in losses], k=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"net{n}_epoch_{e}.pth" for n in "DG" for e in range(3)]
    resumed = quietly(load("dcgan").main, ["--outf", str(tmp_path), "--dry-run", "--manualSeed", "1",
                                           "--netG", str(tmp_path / "netG_epoch_2.pth"),
                                           "--netD", str(tmp_path / "netD_epoch_2.pth")])
    assert len(resumed) == 1 and np.isfinite(resumed).all()


def test_actor_critic_runs_and_improves():
    running_reward = quietly(load("actor_critic").main, ["--episodes", "30"])
    assert running_reward > 20  # starts at 10; a random policy keeps it near 20


def test_fast_neural_style_runs_and_learns(tmp_path):
    losses = quietly(load("fast_neural_style").main, ["--save-model-dir", str(tmp_path), "--dataset-size", "8"])
    assert len(losses) == 4 and falls([c + s for c, s in losses], k=1)
    assert len(list(tmp_path.glob("epoch_1_*.model"))) == 1


# ---- the same steps with torch, from the same weights and data -----------------------------------------------

def test_mnist_matches_torch():
    rng = np.random.default_rng(0)
    images = rng.standard_normal((16, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, 16)
    saved, results = {}, []
    for script, m in both("mnist"):
        model = script.Net()
        same_start(model, saved)
        for layer in model.modules():  # dropout off: both runs must draw nothing
            if isinstance(layer, m.nn.Dropout):
                layer.p = 0.0
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(images), m.tensor(labels)),
                                         batch_size=8)
        optimizer = script.optim.Adadelta(model.parameters(), lr=1.0)
        scheduler = script.StepLR(optimizer, step_size=1, gamma=0.7)
        args = argparse.Namespace(log_interval=1, dry_run=False)
        for epoch in (1, 2):
            quietly(script.train, args, model, m.device("cpu"), loader, optimizer, epoch)
            scheduler.step()
        results.append((script.LOSSES, optimizer.param_groups[0]["lr"]))
    (ours, lr), (theirs, t_lr) = results
    assert_losses_match(ours, theirs, 4)
    assert lr == pytest.approx(t_lr)


def test_super_resolution_matches_torch():
    rng = np.random.default_rng(1)
    targets = rng.uniform(0, 1, (8, 1, 12, 12)).astype(np.float32)
    inputs = targets.reshape(8, 1, 4, 3, 4, 3).mean(axis=(3, 5))
    saved, results = {}, []
    for script, m in both("super_resolution"):
        script.device, script.model = "cpu", script.Net(upscale_factor=3)
        same_start(script.model, saved)
        script.criterion = m.nn.MSELoss()
        script.optimizer = m.optim.Adam(script.model.parameters(), lr=0.01)
        script.training_data_loader = m.utils.data.DataLoader(
            m.utils.data.TensorDataset(m.tensor(inputs), m.tensor(targets)), batch_size=4)
        for epoch in (1, 2):
            quietly(script.train, epoch)
        results.append(script.LOSSES)
    assert_losses_match(*results, 4)


def test_vae_matches_torch():
    rng = np.random.default_rng(2)
    images = (rng.uniform(0, 1, (32, 1, 28, 28)) < 0.2).astype(np.float32)
    eps = [rng.standard_normal((8, 20)).astype(np.float32) for _ in range(4)]
    saved, results = {}, []
    for script, m in both("vae"):
        script.torch = Proxy(m, randn_like=draws(m, eps))  # the same reparameterisation noise in both runs
        script.args, script.device, script.model = argparse.Namespace(log_interval=1), "cpu", script.VAE()
        same_start(script.model, saved)
        script.optimizer = m.optim.Adam(script.model.parameters(), lr=1e-3)
        script.train_loader = m.utils.data.DataLoader(
            m.utils.data.TensorDataset(m.tensor(images), m.zeros(32)), batch_size=8)
        quietly(script.train, 1)
        results.append(script.LOSSES)
    assert_losses_match(*results, 4)


def test_dcgan_matches_torch(tmp_path):
    rng = np.random.default_rng(3)
    images = rng.uniform(-1, 1, (8, 3, 64, 64)).astype(np.float32)
    noise = [rng.standard_normal((4, 8, 1, 1)).astype(np.float32) for _ in range(2)]
    fixed = rng.standard_normal((4, 8, 1, 1)).astype(np.float32)
    savedG, savedD, results = {}, {}, []
    for script, m in both("dcgan"):
        script.torch = Proxy(m, randn=draws(m, noise))  # the same latent draws in both runs
        script.opt = argparse.Namespace(niter=1, dry_run=False, outf=str(tmp_path))
        script.device, script.nc, script.nz, script.ngf, script.ndf = "cpu", 3, 8, 4, 4
        script.fixed_noise = m.tensor(fixed)
        netG, netD = script.Generator(1), script.Discriminator(1)
        netG.apply(script.weights_init)
        netD.apply(script.weights_init)
        same_start(netG, savedG)
        same_start(netD, savedD)
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(images), m.zeros(8)), batch_size=4)
        optimizers = [m.optim.Adam(n.parameters(), lr=2e-4, betas=(0.5, 0.999)) for n in (netD, netG)]
        quietly(script.train, loader, netD, netG, *optimizers, m.nn.BCELoss())
        results.append(script.LOSSES)
    assert_losses_match(*results, 2)


def test_actor_critic_matches_torch():
    actions = np.random.default_rng(4).integers(0, 2, 1000)
    saved, results = {}, []
    for script, m in both("actor_critic"):
        taken = iter(actions)

        class Replayed(script.Categorical):
            def sample(self, sample_shape=()):  # the same actions in both runs
                return m.tensor(int(next(taken)))

        script.Categorical = Replayed
        script.args, script.model = argparse.Namespace(gamma=0.99), script.Policy()
        same_start(script.model, saved)
        script.optimizer = m.optim.Adam(script.model.parameters(), lr=3e-2)
        env = script.CartPole()
        env.reset(seed=0)
        for episode in range(3):  # main()'s loop
            state, _ = env.reset()
            for t in range(1, 10000):
                state, reward, terminated, truncated, _ = env.step(script.select_action(state))
                script.model.rewards.append(reward)
                if terminated or truncated:
                    break
            script.finish_episode()
        results.append(script.LOSSES)
    assert_losses_match(*results, 3)


def test_fast_neural_style_matches_torch(tmp_path):
    rng = np.random.default_rng(5)
    images = rng.uniform(0, 255, (4, 3, 16, 16)).astype(np.float32)
    style = rng.uniform(0, 255, (3, 16, 16)).astype(np.float32)
    args = argparse.Namespace(accel=False, seed=0, batch_size=2, lr=1e-3, epochs=1, content_weight=1e5,
                              style_weight=1e10, log_interval=1, checkpoint_model_dir=None,
                              save_model_dir=str(tmp_path), vgg_width_divisor=16)
    saved_transformer, saved_vgg, results = {}, {}, []
    for script, m in both("fast_neural_style"):
        transformer, vgg = script.TransformerNet(), script.Vgg16(requires_grad=False, width_divisor=16)
        same_start(transformer, saved_transformer)
        same_start(vgg, saved_vgg)
        dataset = m.utils.data.TensorDataset(m.tensor(images), m.zeros(4))
        results.append(quietly(script.train, args, transformer, vgg, dataset, m.tensor(style)))
    assert_losses_match(*results, 2)


# ---- word_language_model: RNN and Transformer language models, plain SGD through p.data.add_ ----------------

@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # TransformerModel's, in torch as in framework
def test_word_language_model_runs_learns_saves_and_reloads(tmp_path):
    losses = quietly(load("word_language_model").main, ["--data", str(tmp_path / "data"), "--model", "GRU", "--tied",
                                                        "--epochs", "4", "--save", str(tmp_path / "model.pt")])
    assert len(losses) > 100 and falls(losses, k=10)
    for kind in ("Transformer", "RNN_RELU"):  # torch.save(model, f), then torch.load under safe_globals
        losses = quietly(load("word_language_model").main, ["--data", str(tmp_path / "data"), "--model", kind,
                                                            "--dry-run", "--save", str(tmp_path / f"{kind}.pt")])
        assert len(losses) == 2 and np.isfinite(losses).all()


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize("kind", ["LSTM", "Transformer"])
def test_word_language_model_matches_torch(kind, tmp_path):
    data = tmp_path / "data"
    quietly(load("word_language_model").random_corpus, str(data))
    saved, results = {}, []
    for script, m in both("word_language_model"):
        script.args = argparse.Namespace(model=kind, bptt=8, batch_size=4, clip=0.25, use_optimizer=False,
                                         log_interval=1000, dry_run=False)
        script.device, script.lr, script.epoch = "cpu", 20.0, 1
        script.corpus = script.Corpus(str(data))
        script.train_data = script.batchify(script.corpus.train, 4)[:8 * 6 + 1]  # six batches of bptt=8
        ntokens = len(script.corpus.dictionary)
        script.model = script.TransformerModel(ntokens, 16, 2, 16, 2, 0.0) if kind == "Transformer" else \
            script.RNNModel(kind, ntokens, 16, 16, 2, 0.0)
        if kind == "Transformer":  # nn.Transformer's own dropout (0.1 by default; the script never passes it)
            for layer in script.model.modules():
                if isinstance(layer, m.nn.Dropout):
                    layer.p = 0.0
                elif isinstance(layer, m.nn.MultiheadAttention):  # attention-weight dropout: a float attribute
                    layer.dropout = 0.0
        same_start(script.model, saved)
        script.criterion = m.nn.NLLLoss()
        quietly(script.train)
        results.append(script.LOSSES)
    assert_losses_match(*results, 6 if kind == "LSTM" else 3)
    assert len(results[0]) == 6


# ---- time_sequence_prediction: LSTMCells in float64, trained by LBFGS ----------------------------------------

def test_time_sequence_prediction_runs_and_learns(tmp_path):
    script = load("time_sequence_prediction")
    script.generate_sine_wave(str(tmp_path / "traindata.pt"), L=50, N=8)  # main() would write N=12 waves of 100
    losses = quietly(script.main, ["--data", str(tmp_path / "traindata.pt"), "--steps", "2", "--plot", str(tmp_path)])
    assert len(losses) > 20 and falls(losses, k=3) and losses[-1] < 0.1 * losses[0]
    assert sorted(p.name for p in tmp_path.glob("*.pdf")) == ["predict0.pdf", "predict1.pdf"]


def test_time_sequence_prediction_matches_torch(tmp_path):
    path = tmp_path / "traindata.pt"
    load("time_sequence_prediction").generate_sine_wave(str(path), L=40, N=6)
    data = framework.load(path).numpy()  # (framework.save writes safetensors, which torch.load does not read)
    saved, results = {}, []
    for script, m in both("time_sequence_prediction"):
        seq = script.Sequence().double()
        same_start(seq, saved)
        tensors = [m.from_numpy(a) for a in (data[3:, :-1], data[3:, 1:], data[:3, :-1], data[:3, 1:])]
        quietly(script.train, seq, *tensors, steps=1, future=5)
        results.append(script.LOSSES)
    assert len(results[0]) == len(results[1]) > 10
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9)  # float64 all the way


# ---- gat: graph attention (matmul over heads, .mT, torch.where masking, Adam with weight decay) -----------------

def test_gat_runs_and_learns():
    losses = quietly(load("gat").main, ["--epochs", "30"])
    assert len(losses) == 30 and falls(losses, k=5)


def test_gat_matches_torch():
    saved, results = {}, []
    for script, m in both("gat"):
        features, labels, adj_mat = script.load_random_graph()
        net = script.GAT(in_features=features.shape[1], n_hidden=8, n_heads=4, num_classes=4, concat=True,
                         dropout=0.0, leaky_relu_slope=0.2)
        same_start(net, saved)
        optimizer = script.Adam(net.parameters(), lr=0.005, weight_decay=5e-4)
        idx = m.arange(len(labels))
        for epoch in range(5):
            quietly(script.train_iter, epoch + 1, net, optimizer, m.nn.NLLLoss(), (features, adj_mat), labels,
                    idx[50:], idx[30:50], 1)
        results.append(script.LOSSES)
    assert_losses_match(*results, 5)


# ---- mnist_rnn: an LSTM (batch_first) read out through BatchNorm1d and Dropout2d on (N, 64) -------------------

@pytest.mark.filterwarnings("ignore:dropout2d. Received a 2-D input")  # the script's Dropout2d on (N, C), as torch
def test_mnist_rnn_runs_and_learns():
    losses = quietly(load("mnist_rnn").main, ["--epochs", "6", "--lr", "1.0", "--gamma", "0.9"])
    assert len(losses) == 24 and falls(losses, k=4)


@pytest.mark.filterwarnings("ignore:dropout2d. Received a 2-D input")
def test_mnist_rnn_matches_torch():
    rng = np.random.default_rng(6)
    images = rng.standard_normal((24, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, 24)
    saved, results = {}, []
    for script, m in both("mnist_rnn"):
        model = script.Net()
        same_start(model, saved)
        model.dropout1.p = model.dropout2.p = 0.0  # both runs must draw nothing
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(images), m.tensor(labels)),
                                         batch_size=8)
        optimizer = script.optim.Adadelta(model.parameters(), lr=1.0)
        args = argparse.Namespace(log_interval=1, dry_run=False)
        quietly(script.train, args, model, "cpu", loader, optimizer, 1)
        quietly(script.test, args, model, "cpu", loader)
        results.append((script.LOSSES, {k: v.detach().numpy() for k, v in model.state_dict().items()}))
    (ours, state), (theirs, t_state) = results
    assert_losses_match(ours, theirs, 3)
    for k in ("batchnorm.running_mean", "batchnorm.running_var", "batchnorm.num_batches_tracked"):
        np.testing.assert_allclose(state[k], t_state[k], **F32)


# ---- imagenet: SGD with momentum, StepLR, top-k accuracy meters, checkpoints with optimizer/scheduler state ------

@pytest.mark.filterwarnings("ignore:You have chosen to seed training")  # the script's own warning
def test_imagenet_runs_saves_and_resumes(tmp_path):
    args = ["--dummy", "--checkpoint-dir", str(tmp_path), "--seed", "0", "--no-accel"]
    losses = quietly(load("imagenet").main, args + ["--epochs", "2"])
    assert len(losses) == 8 and falls(losses, k=2)
    checkpoint = framework.load(tmp_path / "checkpoint.pth.tar")
    assert checkpoint["epoch"] == 2 and checkpoint["arch"] == "tinynet"
    assert checkpoint["scheduler"]["last_epoch"] == 2 and len(checkpoint["optimizer"]["state"]) == 10
    assert (tmp_path / "model_best.pth.tar").exists()
    resumed = load("imagenet")
    more = quietly(resumed.main, args + ["--epochs", "3", "--resume", str(tmp_path / "checkpoint.pth.tar")])
    assert len(more) == 4 and framework.load(tmp_path / "checkpoint.pth.tar")["epoch"] == 3


def test_imagenet_matches_torch():
    rng = np.random.default_rng(8)
    images = rng.uniform(0, 1, (16, 3, 16, 16)).astype(np.float32)
    labels = rng.integers(0, 10, 16)
    args = argparse.Namespace(no_accel=True, print_freq=100, gpu=None, distributed=False)
    saved, results = {}, []
    for script, m in both("imagenet"):
        model = script.models["tinynet"]()
        same_start(model, saved)
        optimizer = m.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
        loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(images), m.tensor(labels)),
                                         batch_size=4)
        for epoch in range(2):
            quietly(script.train, loader, model, m.nn.CrossEntropyLoss(), optimizer, epoch, m.device("cpu"), args)
        acc1 = quietly(script.validate, loader, model, m.nn.CrossEntropyLoss(), args)
        results.append((script.LOSSES, float(acc1)))
    (ours, acc), (theirs, t_acc) = results
    assert_losses_match(ours, theirs, 8)
    assert acc == pytest.approx(t_acc)
