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
        traces[impl] = row["loss_trace"]
    for impl, trace in traces.items():
        assert trace == pytest.approx(traces["numpy"], rel=1e-4, abs=1e-4), impl


def test_compare_quick_runs():
    out = subprocess.run([sys.executable, "-m", "bench.compare", "--quick", "--threads", "1", "--only", "matmul",
                          "--markdown"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "fw/numpy" in out.stdout and "traces ok" in out.stdout
