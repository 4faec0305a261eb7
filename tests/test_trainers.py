"""Trainers and the command line: training works, resumes exactly, survives SIGKILL, reports user errors."""
import json
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import framework
from framework import nn, optim
from framework.utils.data import DataLoader, TensorDataset
from train import datasets
from train.callbacks import Callback
from train.cli import main
from train.trainer import Trainer, TrainingError

from conftest import device_name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICE = device_name()  # the test device (conftest): trainers and CLI runs train there
DEV = [] if DEVICE == "cpu" else ["--device", "cuda"]


def _moons_trainer(out_dir=None, lr=0.01):
    framework.manual_seed(0)
    x, y = datasets.moons(400)
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
    trainer = Trainer(model, optim.Adam(model.parameters(), lr=lr), nn.CrossEntropyLoss(), progress=False,
                      out_dir=out_dir, device=DEVICE, checkpoint_every=1 if out_dir else None)
    loader = DataLoader(TensorDataset(framework.from_numpy(x), framework.from_numpy(y)), batch_size=32, shuffle=True)
    return trainer, loader


def test_trainer_learns_and_calls_callbacks(tmp_path):
    events = []

    class Spy(Callback):
        def on_train_begin(self, trainer):
            events.append("begin")

        def on_epoch_end(self, trainer, epoch, logs):
            events.append(("epoch", epoch, round(logs["train_loss"], 3) > 0))

        def on_train_end(self, trainer):
            events.append("end")

    trainer, loader = _moons_trainer(str(tmp_path))
    trainer.callbacks.append(Spy())
    history = trainer.fit(loader, epochs=15, val_loader=loader)
    assert events[0] == "begin" and events[-1] == "end" and len(events) == 17
    assert history.rows[-1]["val_acc"] > 0.95 and history.rows[-1]["train_loss"] < history.rows[0]["train_loss"]
    assert (tmp_path / "metrics.csv").exists() and json.loads((tmp_path / "history.json").read_text())


def test_trainer_resume_equals_uninterrupted(tmp_path):
    trainer, loader = _moons_trainer(str(tmp_path / "a"))
    trainer.fit(loader, epochs=6)
    expected = {k: v.cpu().numpy().copy() for k, v in trainer.model.state_dict().items()}

    trainer, loader = _moons_trainer(str(tmp_path / "b"))
    trainer.fit(loader, epochs=3)
    trainer, loader = _moons_trainer(str(tmp_path / "b"))  # a new process would start like this
    trainer.fit(loader, epochs=6, resume=True)
    assert trainer.epoch == 6
    for k, v in trainer.model.state_dict().items():
        assert np.array_equal(v.cpu().numpy(), expected[k]), k


def test_nan_loss_stops_with_the_step():
    trainer, loader = _moons_trainer()
    with framework.no_grad():
        trainer.model[0].weight.fill_(float("nan"))
    with pytest.raises(TrainingError, match="loss became nan at step 0"):
        trainer.fit(loader, epochs=1)


def test_corrupt_newest_checkpoint_is_skipped(tmp_path):
    trainer, loader = _moons_trainer(str(tmp_path))
    trainer.fit(loader, epochs=3)
    newest = trainer.checkpoints.path(3)
    with open(newest, "r+b") as f:
        f.truncate(100)
    trainer, loader = _moons_trainer(str(tmp_path))
    with pytest.warns(RuntimeWarning, match="skipping unreadable checkpoint"):
        assert trainer.resume()
    assert trainer.epoch == 2


def test_cli_gan_quick_writes_outputs(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["gan", *DEV, "--quick", "--steps", "60", "--out", str(out), "--no-progress"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    for key in ("modes_covered", "high_quality_fraction", "steps", "seconds", "history"):
        assert key in metrics
    assert metrics["steps"] == 60
    for png in ("samples.png", "loss.png", "modes.png", "quality.png"):
        assert (out / png).stat().st_size > 1000
    assert "wrote" in capsys.readouterr().out


def test_cli_gan_retain_graph_mode(tmp_path):
    assert main(["gan", *DEV, "--steps", "20", "--mode", "retain_graph", "--out", str(tmp_path), "--no-progress"]) == 0


def test_cli_classify_moons(tmp_path):
    assert main(["classify", *DEV, "--data", "moons", "--epochs", "20", "--out", str(tmp_path), "--no-progress"]) == 0
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["test_accuracy"] > 0.95 and (tmp_path / "boundary.png").exists()


def test_cli_user_errors_exit_nonzero_without_traceback(tmp_path, capsys):
    assert main(["gan", "--data", "mnist", "--data-dir", str(tmp_path / "missing"), "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "data directory not found" in err and "Traceback" not in err
    ck = tmp_path / "ck" / "checkpoints"
    ck.mkdir(parents=True)
    (ck / "ckpt-00000010.safetensors").write_bytes(b"\x80\x04garbage")
    with pytest.warns(RuntimeWarning, match="skipping unreadable checkpoint"):
        assert main(["gan", "--steps", "12", "--checkpoint-every", "5", "--out", str(tmp_path / "ck"), "--resume",
                     "--no-progress"]) == 0
    with pytest.raises(SystemExit) as info:
        main(["gan", "--steps", "-3"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["gan", "--data", "cifar"])
    assert info.value.code == 2
    if not framework.cuda.is_available():
        with pytest.raises(SystemExit) as info:
            main(["gan", "--device", "cuda"])
        assert info.value.code == 2 and "no CUDA device" in capsys.readouterr().err


def test_cli_nan_loss_exit_code(tmp_path, capsys):
    assert main(["classify", *DEV, "--data", "moons", "--epochs", "2", "--lr", "1e30", "--out", str(tmp_path),
                 "--no-progress"]) == 1
    assert "at step" in capsys.readouterr().err


def test_cli_pitfalls(capsys):
    assert main(["gan", *DEV, "--pitfalls"]) == 0
    out = capsys.readouterr().out
    assert out.count("outcome: RuntimeError") == 2 and "outcome: trained" in out
    assert "Trying to backward through the graph a second time" in out
    assert "the parameter `D.weight`" in out and "inside Adam.step()" in out


def test_pitfalls_error_classes():
    from train.pitfalls import run

    results = run(print_fn=lambda *a: None)
    assert [type(e) if e else None for _, _, e in results] == [RuntimeError, RuntimeError, None]
    assert "modified by an inplace operation" in str(results[1][2])


def _cli(out, *extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))
    return [sys.executable, "-m", "train", "gan", "--steps", "600", "--batch-size", "64", "--checkpoint-every", "10",
            "--eval-every", "200", "--seed", "3", "--out", str(out), "--no-progress", *DEV, *extra], env


def _newest_checkpoint(out) -> int:
    ck = out / "checkpoints"
    steps = [int(p.name[5:13]) for p in ck.glob("ckpt-*.safetensors")] if ck.exists() else []
    return max(steps, default=0)


@pytest.mark.slow
def test_sigkill_five_times_then_resume_equals_uninterrupted(tmp_path):
    cmd, env = _cli(tmp_path / "clean")
    subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=ROOT)
    expected = framework.load(tmp_path / "clean" / "final.safetensors")

    out = tmp_path / "killed"
    rng = random.Random(0)
    kills = 0
    for _ in range(5):
        before = _newest_checkpoint(out)
        cmd, env = _cli(out, "--resume")
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        # wait until this run has made progress (a newer checkpoint), then kill it at a random moment soon after,
        # which may well be in the middle of writing the next checkpoint. The moment is bounded by time and by
        # progress (at most one more checkpoint), so each run advances a few checkpoints however fast the machine
        # is, and five runs never finish the 600 steps on their own.
        while proc.poll() is None and _newest_checkpoint(out) <= before and time.time() < deadline:
            time.sleep(0.02)
        seen, kill_at = _newest_checkpoint(out), time.time() + rng.uniform(0.0, 0.25)
        while proc.poll() is None and time.time() < kill_at and _newest_checkpoint(out) <= seen:
            time.sleep(0.002)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills == 5 and _newest_checkpoint(out) < 600
    cmd, env = _cli(out, "--resume")
    subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=ROOT)
    got = framework.load(out / "final.safetensors")
    for net in ("G", "D"):
        for k, v in expected[net].items():
            assert np.array_equal(got[net][k].cpu().numpy(), v.cpu().numpy()), f"{net}.{k}"


def test_cli_gan_digits_conv_models(tmp_path):
    pytest.importorskip("sklearn")
    assert main(["gan", *DEV, "--data", "digits", "--steps", "6", "--batch-size", "16", "--out", str(tmp_path),
                 "--no-progress", "--quick"]) == 0
    assert (tmp_path / "samples.png").stat().st_size > 1000


def _tiny_mnist(directory, n=64):
    from test_data import _write_idx

    rng = np.random.default_rng(0)
    _write_idx(directory / "train-images-idx3-ubyte", rng.integers(0, 256, (n, 28, 28)).astype(np.uint8))
    _write_idx(directory / "train-labels-idx1-ubyte", rng.integers(0, 10, n).astype(np.uint8))


def test_cli_mnist_files_classify_and_gan(tmp_path):
    data = tmp_path / "mnist"
    data.mkdir()
    _tiny_mnist(data)
    assert main(["classify", *DEV, "--data", "mnist", "--data-dir", str(data), "--epochs", "1", "--out",
                 str(tmp_path / "c"), "--no-progress"]) == 0
    assert main(["gan", *DEV, "--data", "mnist", "--data-dir", str(data), "--steps", "3", "--batch-size", "8", "--out",
                 str(tmp_path / "g"), "--no-progress", "--quick"]) == 0


@pytest.mark.slow
def test_cli_classify_digits_reaches_97_percent(tmp_path):
    pytest.importorskip("sklearn")
    assert main(["classify", *DEV, "--data", "digits", "--out", str(tmp_path), "--no-progress"]) == 0
    assert json.loads((tmp_path / "metrics.json").read_text())["test_accuracy"] >= 0.97


def test_progress_bar_shows_losses_and_rate(capsys):
    from models import Discriminator, Generator
    from train.gan_trainer import GANTrainer

    framework.manual_seed(0)
    ring = datasets.ring()
    G, D = Generator(2, 16), Discriminator(2, 16)
    trainer = GANTrainer(G, D, optim.Adam(G.parameters()), optim.Adam(D.parameters()), ring.sample, latent_dim=2,
                         batch_size=32, progress=True, device=DEVICE)
    trainer.fit(20)
    err = capsys.readouterr().err
    assert "20/20" in err and "step/s" in err and "loss_d=" in err


GPU_RUNS = [
    ("classify_digits_cnn", ["classify", "--data", "digits", "--epochs", "1"]),
    ("gan_ring", ["gan", "--steps", "30", "--batch-size", "64"]),
    ("gan_digits", ["gan", "--data", "digits", "--steps", "4", "--batch-size", "16"]),
]


@pytest.mark.explicit_device
@pytest.mark.parametrize("argv", [a for _, a in GPU_RUNS], ids=[n for n, _ in GPU_RUNS])
def test_cli_gpu_path_runs_on_the_strict_stand_in(argv, tmp_path):
    """`python -m train ... --device cuda` end to end with CuPy replaced by the strict stand-in (a fresh process,
    through backend's FRAMEWORK_CUPY hook), so the CNN and GAN GPU paths are checked in every CI pass; the run's
    losses equal the CPU run's (the stand-in computes with NumPy, the random draws are host-side)."""
    if argv[2] == "digits":
        pytest.importorskip("sklearn")
    env = dict(os.environ, FRAMEWORK_CUPY="strict_cupy",
               PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests")]))
    histories = {}
    for device in ("cpu", "cuda"):
        out = tmp_path / device
        proc = subprocess.run([sys.executable, "-m", "train", *argv, "--device", device, "--out", str(out),
                               "--no-progress"], env=env, cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-3000:]
        rows = json.loads((out / "metrics.json").read_text())["history"]
        histories[device] = [r[k] for r in rows for k in ("train_loss", "val_loss", "loss_d", "loss_g") if k in r]
    assert histories["cpu"] and histories["cuda"] == pytest.approx(histories["cpu"], rel=1e-5, abs=1e-6)
