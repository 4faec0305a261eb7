"""``mpiexec -n 2 python -m train ... --distributed``: equal to one process with twice the batch, resumes,
only rank 0 writes, a failing rank ends the run.  Skipped without mpi4py/mpiexec."""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import distributed_worker
import framework
from train.cli import build_parser, main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPIEXEC = distributed_worker.find_mpiexec()
pytestmark = pytest.mark.skipif(MPIEXEC is None or importlib.util.find_spec("mpi4py") is None,
                                reason="needs mpi4py and mpiexec: pip install -e '.[distributed]'")


def train_mpi(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=ROOT, MPLBACKEND="Agg")
    cmd = [MPIEXEC, "-n", "2", sys.executable, "-m", "train", *args, "--distributed", "--no-progress"]
    # the timeout is a hang guard, not a speed requirement
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)


def flat(path) -> dict:
    state = framework.load(str(path))
    return {f"{net}.{k}": v.numpy() for net, sd in state.items() for k, v in sd.items()}


@pytest.mark.explicit_device  # compared with torch on the CPU
def test_gan_two_ranks_equal_one_process_and_resume(tmp_path):
    # the plain recipe: the default's batch-norm G normalises each rank's rows on their own (no SyncBatchNorm),
    # so only a G without batch norm trains exactly as one process on the global batch
    common = ["--recipe", "plain", "--steps", "30", "--checkpoint-every", "10", "--eval-every", "15", "--seed", "3"]
    proc = train_mpi("gan", "--batch-size", "32", "--out", str(tmp_path / "two"), *common)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("wrote ") == 1  # rank 0 only
    two = flat(tmp_path / "two" / "final.safetensors")
    assert main(["gan", "--batch-size", "64", "--out", str(tmp_path / "one"), "--no-progress", *common]) == 0
    one = flat(tmp_path / "one" / "final.safetensors")
    assert one.keys() == two.keys()
    for k in one:
        np.testing.assert_allclose(two[k], one[k], rtol=0, atol=1e-4, err_msg=k)
    # the logged losses are the global batch's (the mean over ranks), as in the single process
    logged = [json.loads((tmp_path / run / "metrics.json").read_text())["history"] for run in ("two", "one")]
    for key in ("loss_d", "loss_g"):
        np.testing.assert_allclose([r[key] for r in logged[0]], [r[key] for r in logged[1]], rtol=1e-4)
    # resume from step 10 with the same two ranks: the same final weights as the uninterrupted run
    for step in (20, 30):
        os.remove(tmp_path / "two" / "checkpoints" / f"ckpt-{step:08d}.safetensors")
    proc = train_mpi("gan", "--batch-size", "32", "--out", str(tmp_path / "two"), "--resume", *common)
    assert proc.returncode == 0, proc.stderr
    resumed = flat(tmp_path / "two" / "final.safetensors")
    for k in two:
        np.testing.assert_allclose(resumed[k], two[k], rtol=0, atol=1e-6, err_msg=k)


def test_classify_distributed_trains_and_only_rank_0_writes(tmp_path):
    proc = train_mpi("classify", "--data", "moons", "--epochs", "3", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("wrote ") == 1
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["epochs"] == 3 and metrics["test_accuracy"] > 0.8
    assert sorted(os.listdir(tmp_path / "checkpoints")) == [f"ckpt-{e:08d}.safetensors" for e in (1, 2, 3)]


def test_a_failing_rank_ends_the_distributed_run(tmp_path):
    proc = train_mpi("classify", "--data", "mnist", "--data-dir", str(tmp_path / "missing"), "--out", str(tmp_path))
    assert proc.returncode != 0
    assert "failed, aborting all ranks" in proc.stderr and "error:" in proc.stderr


def test_retain_graph_mode_is_refused_under_distributed(capsys):
    with pytest.raises(SystemExit) as e:
        main(["gan", "--distributed", "--mode", "retain_graph"])
    assert e.value.code == 2
    assert "--distributed supports --mode detach only" in capsys.readouterr().err


def test_help_says_the_batch_is_per_rank():
    for command in ("gan", "classify"):
        text = " ".join(build_parser()._subparsers._group_actions[0].choices[command].format_help().split())
        assert "effective batch is batch size x N" in text


def test_bench_distributed_quick_runs():
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-m", "bench.distributed", "--quick", "--only", "mlp"], env=env,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["one_rank"]["ranks"] == 1 and result["two_ranks"]["ranks"] == 2
    assert result["two_ranks"]["buckets"] == 2 and result["two_ranks"]["samples_per_s"] > 0
    assert 0 <= result["two_ranks"]["bytes_done_behind_backward"] <= 1 and result["two_ranks"]["hideable_bound"] < 1
