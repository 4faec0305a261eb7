"""Every benchmark workload runs in --quick mode, and the contenders agree on the loss trace.
(Correctness only: no timing is asserted.)"""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("workload", ["small_ops", "mlp", "gan", "deep_chain", "matmul"])
def test_workload_quick_and_traces_agree(workload):
    traces = {}
    for impl in ("framework", "numpy", "torch"):
        out = subprocess.run([sys.executable, "-m", f"bench.{workload}", "--impl", impl, "--quick", "--threads", "1"],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        if "skipped" in row:
            continue
        assert row["median_s"] > 0 and row["peak_rss_mb"] > 0
        if workload in ("gan", "mlp"):  # step() time per parameter tensor, for every contender
            assert row["optimizer_us_per_param"] > 0
        traces[impl] = row["loss_trace"]
    for impl, trace in traces.items():
        assert trace == pytest.approx(traces["numpy"], rel=1e-4, abs=1e-4), impl


def test_compare_quick_runs():
    out = subprocess.run([sys.executable, "-m", "bench.compare", "--quick", "--threads", "1", "--only", "matmul",
                          "--markdown"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "fw/numpy" in out.stdout and "traces ok" in out.stdout


def test_optim_step_micro_benchmark_runs():
    out = subprocess.run([sys.executable, "-m", "bench.optim_step", "--steps", "3"], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    rows = {r["impl"]: r for r in map(json.loads, out.stdout.strip().splitlines())}
    assert rows["numpy_flat"]["vs_numpy_flat"] == 1.0 and rows["numpy_flat"]["params"] == 12
    for impl in ("framework_foreach_fresh_grads", "framework_foreach_kept_grads", "framework_single_fresh_grads"):
        assert rows[impl]["optimizer_us_per_param"] > 0 and rows[impl]["elements"] == rows["numpy_flat"]["elements"]


@pytest.mark.parametrize("model", ["gan", "mlp"])
def test_replay_profile_times_every_call_of_the_recording(model):
    out = subprocess.run([sys.executable, "-m", "bench.replay_profile", "--model", model, "--repeats", "2", "--top",
                          "3"], capture_output=True, text=True, cwd=ROOT, check=True).stdout.splitlines()
    calls = int(out[0].split(": ")[1].split()[0])
    assert calls > 20 and "matmul" in out[1] and out[4] == "slowest calls:" and len(out) == 8


def _cupy_importable() -> bool:
    try:
        import cupy  # noqa: F401  (optional: only to know whether a real GPU stack is here)
    except ImportError:
        return False
    return True


def test_compare_cuda_skips_cleanly_without_a_gpu():
    if _cupy_importable():
        pytest.skip("cupy is installed: --device cuda would run for real")
    env = {k: v for k, v in os.environ.items() if k != "FRAMEWORK_CUPY"}
    out = subprocess.run([sys.executable, "-m", "bench.compare", "--device", "cuda"], capture_output=True, text=True,
                         cwd=ROOT, check=True, env=env)
    assert "skipped, no CUDA device here" in out.stdout and "nothing was measured" in out.stdout


def test_compare_cuda_runs_on_the_strict_stand_in():
    """The GPU path of the workloads (gpu_mlp, matmul) runs through the stand-in: no NumPy-ism on the way."""
    env = dict(os.environ, FRAMEWORK_CUPY="strict_cupy",
               PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests")]))
    out = subprocess.run([sys.executable, "-m", "bench.compare", "--device", "cuda", "--quick", "--threads", "1"],
                         capture_output=True, text=True, cwd=ROOT, check=True, env=env)
    assert "device: strict CuPy stand-in (CPU)" in out.stdout
    assert "gpu_mlp    framework" in out.stdout and "matmul     framework" in out.stdout


@pytest.mark.parametrize("workload", ["cnn", "lstm_lm", "transformer"])
def test_model_rows_run_for_every_contender_and_agree(workload):
    """The real-model rows (bench/models.py, tiny sizes): torch, framework eager and compiled start from the same
    weights and data, so their loss traces agree; numpy has no contender here and says so."""
    traces = {}
    for impl in ("framework", "framework-compiled", "numpy", "torch"):
        out = subprocess.run([sys.executable, "-m", f"bench.{workload}", "--impl", impl, "--quick", "--threads", "1"],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        if impl == "numpy":
            assert "skipped" in row
            continue
        if "skipped" in row:  # torch not installed
            continue
        assert row["median_s"] > 0 and row["step_peak_mb"] > 0 and row["held_mb"] > 0 and len(row["loss_trace"]) == 5
        traces[impl] = row["loss_trace"]
    for impl, trace in traces.items():
        assert trace == pytest.approx(traces["framework"], rel=1e-4, abs=1e-4), impl


def test_compare_profile_groups_a_step_by_op_and_array_call():
    out = subprocess.run([sys.executable, "-m", "bench.compare", "--profile", "--quick", "--threads", "1", "--only",
                          "cnn"], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert "threads=1 cnn:" in out and "array" in out and "framework" in out
    assert "Conv2d.forward" in out and "Conv2d.backward" in out


def _known_step(lib):
    """make_step() for bench.common.memory_pass: each step allocates one 8 MB temporary and a 4 MB result kept
    until the next step replaces it, on top of 2 MB built with the step."""
    def make_step():
        base, kept = lib.zeros(2 * 2 ** 18), []

        def step():
            tmp = lib.ones(8 * 2 ** 18)  # float32: 8 MB
            out = tmp[: 4 * 2 ** 18] * 2  # 4 MB, live with tmp
            del tmp
            kept[:] = [out + base[0]]  # 4 MB more, while out is live; the previous step's result is freed here
        return step
    return make_step


@pytest.mark.parametrize("lib_name", ["numpy", "torch"])
def test_memory_pass_counts_a_known_allocation(lib_name):
    """The peak above the live bytes before a step: 8 MB temporary + 4 MB + 4 MB at most (12 MB while tmp and out
    are live, 8 MB later), whichever library counts it; held: the 2 MB base plus the 4 MB result kept."""
    from bench.common import memory_pass

    if lib_name == "torch":
        torch = pytest.importorskip("torch")
        lib = type("Lib", (), {"zeros": staticmethod(torch.zeros), "ones": staticmethod(torch.ones)})
    else:
        import numpy as np

        lib = type("Lib", (), {"zeros": staticmethod(lambda n: np.zeros(n, np.float32)),
                               "ones": staticmethod(lambda n: np.ones(n, np.float32))})
    row = memory_pass(_known_step(lib), "torch" if lib_name == "torch" else "framework")
    assert row["step_peak_mb"] == pytest.approx(12.0, abs=0.1)
    assert row["held_mb"] == pytest.approx(6.0, abs=0.3)
