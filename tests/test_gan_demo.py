"""The GAN demo (issue 20): protocol metrics on hand-computed cases, each technique learns, the CLI explains itself."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import framework
from framework import optim
from framework.testing import gradcheck
from models import BNGenerator, Discriminator, Generator
from train import datasets
from train.cli import build_parser, main
from train.gan_cli import parse_seeds, resolve, sweep_table
from train.gan_techniques import MinibatchStd, Packed, late_decay, r1_penalty, spectral_normed
from train.gan_trainer import GANTrainer
from train.image_quality import class_metrics, frechet_distance
from train.metrics import mode_metrics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- metrics against hand-computed cases -------------------------------------------------------------

def test_mode_metrics_hand_computed():
    centers = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 5.0]])
    # std 0.1, 3 std = 0.3: two samples near centre 0, one 0.2 from centre 1 (high quality), one half-way (not)
    samples = np.array([[0.05, 0.0], [0.0, -0.29], [1.2, 0.0], [0.5, 0.0]])
    m = mode_metrics(samples, centers, std=0.1)
    assert m == {"modes_covered": 2, "n_modes": 3, "high_quality_fraction": 0.75}
    # a mode needs at least min_fraction of *all* samples: 1 of 4 is 25 %, below a 30 % bar
    assert mode_metrics(samples, centers, std=0.1, min_fraction=0.3)["modes_covered"] == 1
    assert mode_metrics(samples, centers, std=0.1, threshold_std=1.0)["high_quality_fraction"] == 0.25


def test_paper_protocol_data():
    ring, grid = datasets.ring(std=0.02), datasets.grid(std=0.02)
    assert ring.centers.shape == (8, 2) and np.allclose(np.linalg.norm(ring.centers, axis=1), 2.0)
    assert grid.centers.shape == (25, 2) and set(np.unique(grid.centers)) == {-4.0, -2.0, 0.0, 2.0, 4.0}
    real = ring.sample(2500, np.random.default_rng(0))
    # real data itself: every mode, and P(r <= 3 std) = 1 - exp(-4.5) = 0.989 for a 2-D Gaussian
    m = mode_metrics(real, ring.centers, ring.std)
    assert m["modes_covered"] == 8 and abs(m["high_quality_fraction"] - 0.989) < 0.01


def test_class_metrics_hand_computed():
    probs = np.array([[0.95, 0.05, 0, 0], [0.6, 0.4, 0, 0], [0.05, 0.95, 0, 0], [0, 0.91, 0.09, 0]])
    m = class_metrics(probs)
    # histogram (0.5, 0.5, 0, 0) over 4 classes: KL = 2 * 0.5 * log(0.5 * 4) = log 2
    assert m["modes_covered"] == 2 and m["n_modes"] == 4
    assert m["kl_uniform"] == pytest.approx(np.log(2))
    assert m["confident_fraction"] == 0.75
    uniform = np.eye(4)
    assert class_metrics(uniform)["kl_uniform"] == 0.0 and class_metrics(uniform)["modes_covered"] == 4


def test_frechet_distance_hand_computed():
    a = np.array([[1.0, 0], [-1, 0], [0, 2], [0, -2]])  # mean 0, covariance diag(2/3, 8/3)
    b = 2 * a + 5  # mean (5, 5), covariance diag(8/3, 32/3)
    # |5, 5|^2 + (sqrt(8/3) - sqrt(2/3))^2 + (sqrt(32/3) - sqrt(8/3))^2 = 50 + 2/3 + 8/3
    assert frechet_distance(a, b) == pytest.approx(50 + 10 / 3)
    assert frechet_distance(a, a) == pytest.approx(0.0, abs=1e-9)
    rotated = a @ np.array([[0.0, 1], [-1, 0]])  # same spectrum, rotated axes: not the same distribution
    assert frechet_distance(a, rotated) == pytest.approx(2 * (np.sqrt(8 / 3) - np.sqrt(2 / 3)) ** 2)


def test_parse_seeds():
    assert parse_seeds("0-9") == list(range(10))
    assert parse_seeds("0,3,5") == [0, 3, 5] and parse_seeds("0-2,7") == [0, 1, 2, 7]
    with pytest.raises(ValueError, match="expected numbers"):
        parse_seeds("a-b")


def test_sweep_table_rows_and_summary():
    rows = [{"seed": 0, "modes_covered": 8, "high_quality_fraction": 0.9, "seconds": 10.0},
            {"seed": 1, "modes_covered": 7, "high_quality_fraction": 0.8, "seconds": 12.0},
            {"seed": 2, "modes_covered": 8, "high_quality_fraction": 0.95, "seconds": 11.0}]
    lines = sweep_table(rows).splitlines()
    assert lines[0] == "| seed | modes | high quality | seconds |" and len(lines) == 2 + 3 + 3
    assert lines[-3] == "| median | 8 | 0.900 | 11 |" and lines[-2] == "| min | 7 | 0.800 | 10 |"


# ---- the techniques ------------------------------------------------------------------------------------

@pytest.mark.explicit_device  # compared with torch on the CPU
def test_r1_penalty_double_backward_matches_torch(torch):
    framework.manual_seed(0)
    D = Discriminator(2, 8)
    x = np.random.default_rng(0).standard_normal((5, 2)).astype(np.float32)
    real = framework.from_numpy(x).requires_grad_(True)
    r1_penalty(D(real), real, gamma=3.0).backward()
    tD = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.LeakyReLU(0.2), torch.nn.Linear(8, 8),
                             torch.nn.LeakyReLU(0.2), torch.nn.Linear(8, 1))
    with torch.no_grad():
        for tp, p in zip(tD.parameters(), D.parameters()):
            tp.copy_(torch.from_numpy(p.detach().numpy()))
    treal = torch.from_numpy(x).requires_grad_(True)
    (g,) = torch.autograd.grad(tD(treal).sum(), treal, create_graph=True)
    (1.5 * g.pow(2).sum(1).mean()).backward()
    weights = list(zip(tD.parameters(), D.parameters()))[::2]
    for tp, p in weights:  # the weights get a gradient only through the double backward
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-6)
    # hidden biases only move LeakyReLU's kinks, so their gradient is zero; torch gives zeros, framework None
    # (a known deviation of the double backward through leaky_relu, noted in the issue note)
    for tp, p in list(zip(tD.parameters(), D.parameters()))[1::2]:
        assert tp.grad is None or not tp.grad.any()
        assert p.grad is None or not p.grad.numpy().any()


def test_packed_discriminator_judges_k_samples_at_once():
    D = Packed(Discriminator(2 * 3, 8), 3)
    assert D(framework.randn(12, 2)).shape == (4, 1)
    from models import ConvDiscriminator

    assert Packed(ConvDiscriminator(8, channels=2), 2)(framework.randn(6, 1, 8, 8)).shape == (3, 1)


def test_minibatch_std_appends_the_batch_spread_and_passes_gradients():
    x = framework.randn(6, 2, dtype=framework.float64)
    seen = []

    class Spy(framework.nn.Module):  # records what the wrapped D sees
        def forward(self, h):
            seen.append(h)
            return h.sum(1, keepdim=True)

    out = MinibatchStd(Spy())(x)
    assert out.shape == (6, 1) and seen[0].shape == (6, 3)
    spread = x.cpu().numpy().std(0, ddof=1).mean()  # torch.std's default: unbiased
    np.testing.assert_allclose(seen[0].cpu().numpy()[:, 2], spread)
    np.testing.assert_allclose(seen[0].cpu().numpy()[:, :2], x.cpu().numpy())
    # the spread column is part of the graph: its gradient reaches every sample (float64 gradcheck)
    D = MinibatchStd(Discriminator(3, 4).double())
    assert gradcheck(lambda t: D(t), (x.clone().requires_grad_(True),))


def test_uniform_noise_draws_latents_in_the_square():
    G, D = Generator(3, 8), Discriminator(2, 8)
    trainer = GANTrainer(G, D, optim.Adam(G.parameters()), optim.Adam(D.parameters()), datasets.grid().sample,
                         latent_dim=3, batch_size=16, progress=False, noise="uniform")
    z = trainer._latent(4000).cpu().numpy()
    assert z.shape == (4000, 3) and z.min() >= -1 and z.max() <= 1 and z.min() < -0.99 and z.max() > 0.99
    assert abs(z.mean()) < 0.05 and abs(z.var() - 1 / 3) < 0.02  # uniform on [-1, 1], not normal (var 1)
    normal = GANTrainer(G, D, optim.Adam(G.parameters()), optim.Adam(D.parameters()), datasets.grid().sample,
                        latent_dim=3, batch_size=16, progress=False)._latent(4000).cpu().numpy()
    assert abs(normal.var() - 1) < 0.1
    with pytest.raises(ValueError, match="noise must be 'normal' or 'uniform'"):
        GANTrainer(G, D, None, None, datasets.grid().sample, latent_dim=3, noise="cauchy")


def test_late_decay_factor():
    f = late_decay(100)
    assert [f(0), f(74), f(75), f(99)] == [1.0, 1.0, 0.1, 0.1]


def _ring_run(steps=400, bn=False, sn=False, lr_d=2e-3, depth=2, mbstd=False, **kw):
    framework.manual_seed(0)
    ring = datasets.ring()
    pack = kw.get("pack", 1)
    G = BNGenerator(2, 64) if bn else Generator(2, 64, depth)
    D = Discriminator(2 * pack + mbstd, 64, depth)
    if sn:
        D = spectral_normed(D)
    if mbstd:
        D = MinibatchStd(D)
    if pack > 1:
        D = Packed(D, pack)
    opt_g = optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_d = optim.Adam(D.parameters(), lr=lr_d, betas=(0.5, 0.999))
    def evaluate(samples):  # a short run is judged loosely: within 6 std (0.3) of a mode, and the mean distance
        nearest = np.sqrt(((samples[:, None] - ring.centers[None]) ** 2).sum(-1)).min(1)
        return {**mode_metrics(samples, ring.centers, ring.std, threshold_std=6.0), "distance": nearest.mean()}

    trainer = GANTrainer(G, D, opt_g, opt_d, ring.sample, latent_dim=2, batch_size=128, progress=False,
                         eval_every=steps // 4, evaluate_fn=evaluate, **kw)
    history = trainer.fit(steps)
    return [r for r in history.rows if "modes_covered" in r], history


@pytest.mark.parametrize("technique", [{}, {"bn": True}, {"r1": 0.1}, {"pack": 2}, {"ema": 0.9}, {"sn": True},
                                       {"d_steps": 2}, {"lr_d": 4e-3}, {"depth": 3}, {"mbstd": True},
                                       {"noise": "uniform", "steps": 800}],  # a square of latents to a ring: slower
                         ids=["plain", "g_batchnorm", "r1", "pack", "ema", "spectral_norm", "d_steps", "lr_d",
                              "depth", "minibatch_std", "uniform_noise"])
def test_each_technique_learns(technique):
    evals, history = _ring_run(**technique)
    first, last = evals[0], evals[-1]
    # the metrics move the right way between the first and the last evaluation (after 100 and 400 steps):
    # two more modes than at first, or all of the ring's modes when the first evaluation already had 7 or 8
    n_modes = len(datasets.ring().centers)
    assert last["modes_covered"] >= max(4, min(first["modes_covered"] + 2, n_modes))
    assert last["distance"] < 0.85 * first["distance"]
    # and neither player has won: G's loss stays near the equilibrium value log 2 = 0.69, D's is finite
    assert 0.3 < np.mean(history.column("loss_g")[1][-5:]) < 2.0
    assert np.isfinite(history.column("loss_d")[1]).all()


def test_d_steps_updates_d_that_many_times_per_g_update():
    ring = datasets.ring()
    G, D = Generator(2, 16), Discriminator(2, 16)
    opt_g, opt_d = optim.Adam(G.parameters()), optim.Adam(D.parameters())
    seen = []
    def sample(n, rng):  # one real batch per D update
        seen.append(n)
        return ring.sample(n, rng)
    trainer = GANTrainer(G, D, opt_g, opt_d, sample, latent_dim=2, batch_size=8, progress=False, d_steps=3)
    trainer.fit(4)
    assert seen == [24] * 4
    assert int(opt_d.state[D[0].weight]["step"]) == 12 and int(opt_g.state[G[0].weight]["step"]) == 4
    with pytest.raises(ValueError, match="d_steps must be at least 1"):
        GANTrainer(G, D, opt_g, opt_d, sample, latent_dim=2, d_steps=0)


def test_sizes_and_learning_rates_reach_the_run(tmp_path):
    out = tmp_path / "run"
    assert main(["gan", "--steps", "6", "--g-width", "32", "--g-depth", "3", "--d-width", "48", "--d-depth", "3",
                 "--lr-d", "0.002", "--lr-g", "0.0005", "--d-steps", "2", "--batch-size", "16", "--out", str(out),
                 "--no-progress"]) == 0
    m = json.loads((out / "metrics.json").read_text())
    assert (m["g_width"], m["g_depth"], m["d_width"], m["d_depth"]) == (32, 3, 48, 3)
    assert (m["lr_d"], m["lr_g"], m["d_steps"], m["batch_size"]) == (0.002, 0.0005, 2, 16)
    weights = framework.load(str(out / "final.safetensors"))
    assert tuple(weights["G"]["0.weight"].shape) == (32, 2) and tuple(weights["D"]["4.weight"].shape) == (48, 48)


def test_noise_latent_dim_and_minibatch_std_reach_the_run(tmp_path):
    out = tmp_path / "run"
    assert main(["gan", "--data", "grid", "--steps", "4", "--noise", "uniform", "--latent-dim", "5",
                 "--minibatch-std", "--d-width", "16", "--g-width", "16", "--batch-size", "16", "--out", str(out),
                 "--no-progress"]) == 0
    m = json.loads((out / "metrics.json").read_text())
    assert (m["noise"], m["latent_dim"], m["minibatch_std"]) == ("uniform", 5, True)
    weights = framework.load(str(out / "final.safetensors"))
    # G reads 5 latents; D reads the point and the batch's spread (2 + 1 columns)
    assert tuple(weights["G"]["0.weight"].shape) == (16, 5) and tuple(weights["D"]["D.0.weight"].shape) == (16, 3)
    ring = json.loads((main(["gan", "--steps", "2", "--out", str(tmp_path / "ring"), "--no-progress"]) or
                       (tmp_path / "ring" / "metrics.json")).read_text())
    assert (ring["noise"], ring["latent_dim"], ring["minibatch_std"]) == ("normal", 2, False)  # the defaults


def test_recipes_resolve_to_their_settings_and_explicit_options_win():
    parser = build_parser()
    cfg = resolve(parser.parse_args(["gan"]))  # the default: fast-g on the ring
    assert (cfg["g_batchnorm"], cfg["lr_schedule"], cfg["lr_g"], cfg["lr_d"], cfg["steps"]) == (True, "late", 3e-3,
                                                                                             1e-3, 3000)
    assert resolve(parser.parse_args(["gan", "--recipe", "long"]))["steps"] == 6000
    grid = resolve(parser.parse_args(["gan", "--data", "grid", "--recipe", "grid"]))
    assert (grid["g_batchnorm"], grid["g_width"], grid["g_depth"], grid["d_width"], grid["d_depth"],
            grid["steps"], grid["r1"]) == (False, 256, 3, 256, 3, 12000, 0.0)
    default = resolve(parser.parse_args(["gan", "--data", "grid"]))  # the grid's default: grid-r1 = grid + R1
    assert default == {**grid, "r1": 0.1}
    assert resolve(parser.parse_args(["gan", "--data", "grid", "--recipe", "grid", "--r1", "0.1"])) == default
    assert resolve(parser.parse_args(["gan", "--data", "grid", "--r1", "0"]))["r1"] == 0.0  # explicit 0 wins
    plain = resolve(parser.parse_args(["gan", "--recipe", "plain"]))
    assert (plain["g_batchnorm"], plain["lr_schedule"], plain["lr_g"], plain["g_depth"]) == (False, "cosine", 1e-3, 2)
    digits = resolve(parser.parse_args(["gan", "--data", "digits"]))  # digits: the wider DCGAN, a faster G, an EMA
    assert (digits["lr_schedule"], digits["lr_g"], digits["lr_d"], digits["g_width"], digits["d_width"],
            digits["ema"], digits["steps"]) == ("cosine", 2e-3, 1e-3, 64, 64, 0.99, 6000)
    mnist = resolve(parser.parse_args(["gan", "--data", "mnist"]))  # MNIST keeps the plain recipe, 32 channels
    assert (mnist["lr_schedule"], mnist["lr_g"], mnist["g_width"], mnist["d_width"], mnist["ema"]) == (
        "cosine", 1e-3, 32, 32, 0.0)
    no_ema = resolve(parser.parse_args(["gan", "--data", "digits", "--ema", "0"]))
    assert no_ema["ema"] == 0.0 and no_ema["g_width"] == 64
    mine = resolve(parser.parse_args(["gan", "--lr-g", "0.002", "--lr-schedule", "cosine", "--lr", "0.0005"]))
    assert (mine["lr_g"], mine["lr_d"], mine["lr_schedule"]) == (0.002, 5e-4, "cosine")


# ---- the command line ----------------------------------------------------------------------------------

def _subparsers(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    return {}


def test_every_cli_option_has_help_with_its_default():
    subs = _subparsers(build_parser())
    assert {"gan", "classify"} <= set(subs)
    for name, sub in subs.items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            flag = action.option_strings[0] if action.option_strings else action.dest
            assert action.help, f"{name} {flag} has no help"
            assert "default" in action.help, f"{name} {flag}: the help does not say its default"


def test_bad_out_is_a_one_line_error(tmp_path, capsys):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    for out in (a_file, a_file / "below"):
        assert main(["gan", "--steps", "2", "--out", str(out), "--no-progress"]) == 1
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"error: --out {out}") and len(err.splitlines()) == 1 and "Traceback" not in err
    assert main(["classify", "--data", "moons", "--epochs", "1", "--out", str(a_file), "--no-progress"]) == 1
    assert "is a file" in capsys.readouterr().err


def test_paper_protocol_sweep_writes_one_table(tmp_path, capsys):
    out = tmp_path / "sweep"
    assert main(["gan", "--protocol", "paper", "--steps", "30", "--seeds", "0-1", "--r1", "0.1", "--out", str(out),
                 "--no-progress"]) == 0
    table = (out / "table.md").read_text()
    assert "| 0 |" in table and "| 1 |" in table and "| median |" in table and "std 0.02" in table
    metrics = json.loads((out / "seed-1" / "metrics.json").read_text())
    assert metrics["protocol"].startswith("paper") and metrics["std"] == 0.02 and metrics["r1"] == 0.1
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed and "table.md" in printed and "samples.png" in printed


def test_digits_quality_is_measured(tmp_path):
    pytest.importorskip("sklearn")
    assert main(["gan", "--data", "digits", "--steps", "10", "--batch-size", "32", "--quick", "--out",
                 str(tmp_path), "--no-progress"]) == 0
    m = json.loads((tmp_path / "metrics.json").read_text())
    for key in ("modes_covered", "kl_uniform", "confident_fraction", "frechet_distance", "frechet_floor_real",
                "classifier_test_accuracy"):
        assert key in m, key
    assert m["n_generated"] == 1000 and len(m["class_histogram"]) == 10
    assert m["frechet_distance"] > m["frechet_floor_real"]  # 10 steps of training are far from real digits
    assert (m["recipe"], m["g_width"], m["d_width"], m["lr_g"], m["ema"]) == ("digits", 64, 64, 2e-3, 0.99)
    weights = framework.load(str(tmp_path / "final.safetensors"))
    assert tuple(weights["G"]["fc.weight"].shape) == (64 * 2 * 2 * 2, 32)  # 2 x width channels at 2x2
    assert tuple(weights["D"]["net.0.weight"].shape) == (64, 1, 4, 4)


def test_image_widths_and_ema_reach_the_run(tmp_path):
    pytest.importorskip("sklearn")
    assert main(["gan", "--data", "digits", "--steps", "4", "--batch-size", "16", "--quick", "--g-width", "8",
                 "--d-width", "12", "--ema", "0.5", "--out", str(tmp_path), "--no-progress"]) == 0
    m = json.loads((tmp_path / "metrics.json").read_text())
    assert (m["g_width"], m["d_width"], m["ema"]) == (8, 12, 0.5)
    weights = framework.load(str(tmp_path / "final.safetensors"))
    assert tuple(weights["G"]["fc.weight"].shape) == (8 * 2 * 2 * 2, 32)
    assert tuple(weights["D"]["net.0.weight"].shape) == (12, 1, 4, 4)
    state = framework.load(str(sorted((tmp_path / "checkpoints").iterdir())[-1]))
    assert tuple(state["modules"]["G_ema"]["fc.weight"].shape) == (8 * 2 * 2 * 2, 32)  # the EMA of G was kept


@pytest.mark.slow
def test_bench_gan_demo_runs_both_recipes(torch):
    out = subprocess.run([sys.executable, "-m", "bench.gan_demo", "--rounds", "1", "--steps", "12"],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert "| framework |" in out and "| torch |" in out and "framework / torch (training loop):" in out
