"""Run every workload for framework, numpy and torch, interleaved (A B C A B C ..., a fresh process each),
with the same thread count, and print medians and the ratios framework/numpy and framework/torch.

    python -m bench.compare [--quick] [--threads 1 2] [--repeats 3] [--only gan mlp] [--markdown]

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are unset for every contender alike (they slow a current numpy).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

WORKLOADS = ["small_ops", "mlp", "gan", "deep_chain", "matmul"]
IMPLS = ["framework", "numpy", "torch"]
METRIC = {"small_ops": ("us_per_op", "us/op"), "mlp": ("median_s", "ms/step"), "gan": ("median_s", "ms/step"),
          "deep_chain": ("median_s", "ms/step"), "matmul": ("median_s", "ms")}


def run_one(workload: str, impl: str, threads: int, quick: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", f"bench.{workload}", "--impl", impl, "--threads", str(threads)]
    if quick:
        cmd.append("--quick")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=root)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def value(row: dict, workload: str) -> float:
    key, unit = METRIC[workload]
    v = row[key]
    return v if key == "us_per_op" else v * 1000


def check_traces(rows: dict, workload: str) -> str:
    """The contenders started from the same weights and data: their loss traces must agree."""
    traces = {impl: r["loss_trace"] for impl, r in rows.items() if "loss_trace" in r}
    ref = traces.get("numpy")
    for impl, tr in traces.items():
        for a, b in zip(ref, tr):
            if abs(a - b) > 1e-3 * max(1.0, abs(a)):
                return f"MISMATCH ({impl}: {tr[:3]} vs numpy: {ref[:3]})"
    return "ok"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=3, help="interleaved rounds; the median is reported")
    p.add_argument("--only", nargs="+", choices=WORKLOADS, default=WORKLOADS)
    p.add_argument("--markdown", action="store_true", help="print a Markdown table (for the README)")
    args = p.parse_args(argv)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}")
    lines = []
    for threads in args.threads:
        for workload in args.only:
            samples = {impl: [] for impl in IMPLS}
            last = {}
            for _ in range(1 if args.quick else args.repeats):
                for impl in IMPLS:  # interleaved: A B C A B C
                    row = run_one(workload, impl, threads, args.quick)
                    if "skipped" in row:
                        continue
                    samples[impl].append(value(row, workload))
                    last[impl] = row
            med = {impl: statistics.median(v) for impl, v in samples.items() if v}
            unit = METRIC[workload][1]
            r_np = med["framework"] / med["numpy"] if "numpy" in med else float("nan")
            r_t = med["framework"] / med["torch"] if "torch" in med else float("nan")
            extra = ""
            if workload == "deep_chain":
                f = last["framework"]
                n = last["numpy"]
                extra = (f" peak MB fw/np {f['peak_rss_mb']}/{n['peak_rss_mb']}, after-drop fw "
                         f"{f['rss_before_mb']}->{f['rss_after_mb']}->{f['rss_after_repeats_mb']}")
            lines.append((threads, workload, unit, med.get("framework"), med.get("numpy"), med.get("torch"), r_np, r_t,
                          check_traces(last, workload), extra))
            print(f"threads={threads} {workload:10s} framework {med.get('framework', float('nan')):9.3f} {unit:7s} "
                  f"numpy {med.get('numpy', float('nan')):9.3f}  torch {med.get('torch', float('nan')):9.3f}  "
                  f"fw/numpy {r_np:5.2f}  fw/torch {r_t:5.2f}  traces {lines[-1][8]}{extra}", flush=True)
    if args.markdown:
        print("\n| threads | workload | unit | framework | numpy | torch | fw/numpy | fw/torch |")
        print("|---|---|---|---|---|---|---|---|")
        def fmt(v, digits=3):
            return "n/a" if v is None or v != v else f"{v:.{digits}f}"

        for t, w, u, f, n, tt, rn, rt, _, _ in lines:
            print(f"| {t} | {w} | {u} | {fmt(f)} | {fmt(n)} | {fmt(tt)} | {fmt(rn, 2)} | {fmt(rt, 2)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
