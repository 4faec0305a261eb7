"""Run every workload for framework (eager and compiled), numpy and torch, interleaved (A B C A B C ..., a fresh process each),
with the same thread count, and print medians and the ratios framework/numpy and framework/torch.

    python -m bench.compare [--quick] [--threads 1 2] [--repeats 3] [--only gan mlp] [--markdown]
    python -m bench.compare --device cuda    # framework on CuPy against torch on CUDA, plus gpu_mlp, matmul 8192²
    python -m bench.compare --profile --only cnn   # where an eager step's time goes (bench/step_profile.py)

The real-model rows (cnn, lstm_lm, transformer: bench/models.py) run the same model code with torch and framework;
they have no NumPy contender.  Their "peak MB" is the peak of live bytes allocated during one steady-state step above
those live before it (activations, gradients, temporaries) and "held MB" the bytes live between steps (parameters,
optimizer state, data, a compiled step's buffers): measured after the timed steps, with tracemalloc for framework and
torch.profiler's memory events for torch (bench/common.py memory_pass).

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

WORKLOADS = ["small_ops", "mlp", "gan", "deep_chain", "matmul", "cnn", "lstm_lm", "transformer"]
MODELS = ["cnn", "lstm_lm", "transformer"]  # bench/models.py: the same model code for torch and framework
GPU_WORKLOADS = ["gpu_mlp", "matmul"]  # --device cuda: the GPU-sized MLP step and an 8192² matmul
IMPLS = ["framework", "framework-compiled", "numpy", "torch"]
MODEL_IMPLS = ["framework", "framework-compiled", "torch"]
METRIC = {"small_ops": ("us_per_op", "us/op"), "mlp": ("median_s", "ms/step"), "gan": ("median_s", "ms/step"),
          "deep_chain": ("median_s", "ms/step"), "matmul": ("median_s", "ms"), "gpu_mlp": ("median_s", "ms/step"),
          **{w: ("median_s", "ms/step") for w in MODELS}}


def run_one(workload: str, impl: str, threads: int, quick: bool, device: str = "cpu") -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", f"bench.{workload}", "--impl", impl, "--threads", str(threads)]
    if quick:
        cmd.append("--quick")
    if device != "cpu":
        cmd += ["--device", device]
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
    ref_impl = "numpy" if "numpy" in traces else "torch"
    ref = traces.get(ref_impl)
    if ref is None or len(traces) < 2:
        return "n/a (one contender)"
    for impl, tr in traces.items():
        for a, b in zip(ref, tr):
            if abs(a - b) > 1e-3 * max(1.0, abs(a)):
                return f"MISMATCH ({impl}: {tr[:3]} vs {ref_impl}: {ref[:3]})"
    return "ok"


def gpu_name() -> str:
    """The GPU's name, for the performance table (through torch where it has CUDA, else cupy's device properties)."""
    try:
        import torch  # optional: only to name the GPU

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    except ImportError:
        pass
    from framework import backend

    props = getattr(backend._import_cupy().cuda.runtime, "getDeviceProperties", None)
    return props(0)["name"].decode() if props else "unknown GPU"


def gpu_check() -> str | None:
    """Why --device cuda cannot run here (None when it can): framework needs cupy and a CUDA device."""
    import framework  # imported late: only --device cuda needs it in this process

    if not framework.cuda.is_available():
        return ("bench.compare --device cuda: skipped, no CUDA device here (framework needs cupy, e.g. "
                "pip install -e '.[cuda]', and an NVIDIA GPU); nothing was measured")
    return None


def profile_rows(workloads: list[str], threads: list[int], quick: bool) -> int:
    """bench.step_profile for each model row, in a fresh process pinned to each thread count."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for t in threads:
        env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
        env.update(OMP_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t), MKL_NUM_THREADS=str(t),
                   PYTHONPATH=root + os.pathsep + env.get("PYTHONPATH", ""))
        for w in workloads:
            cmd = [sys.executable, "-m", "bench.step_profile", "--workload", w] + (["--steps", "2", "--quick"] if quick else [])
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=root)
            if out.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr}")
            print(f"threads={t} " + out.stdout, flush=True)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=3, help="interleaved rounds; the median is reported")
    p.add_argument("--only", nargs="+", choices=WORKLOADS + GPU_WORKLOADS[:1], default=None)
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="cuda: framework (CuPy) against torch (CUDA) on gpu_mlp and matmul 8192²")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table (for docs/guides/performance.md)")
    p.add_argument("--profile", action="store_true",
                   help="instead of timing: where an eager framework step of each model row goes (cProfile)")
    args = p.parse_args(argv)
    if args.profile:
        return profile_rows([w for w in (args.only or MODELS) if w in MODELS], args.threads, args.quick)
    if args.device == "cuda" and (why := gpu_check()):
        print(why)
        return 0
    if args.device == "cuda":
        print(f"device: {gpu_name()}")
    workloads = args.only or (GPU_WORKLOADS if args.device == "cuda" else WORKLOADS)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}")
    lines = []
    for threads in args.threads:
        for workload in workloads:
            samples = {impl: [] for impl in IMPLS}
            opt_samples = {impl: [] for impl in IMPLS}  # optimizer_us_per_param (gan, mlp)
            last = {}
            for _ in range(1 if args.quick else args.repeats):
                for impl in IMPLS:  # interleaved: A B C A B C
                    row = run_one(workload, impl, threads, args.quick, args.device)
                    if "skipped" in row:
                        continue
                    samples[impl].append(value(row, workload))
                    if "optimizer_us_per_param" in row:
                        opt_samples[impl].append(row["optimizer_us_per_param"])
                    last[impl] = row
            med = {impl: statistics.median(v) for impl, v in samples.items() if v}
            unit = METRIC[workload][1]
            r_np = med["framework"] / med["numpy"] if "numpy" in med else float("nan")
            r_t = med["framework"] / med["torch"] if "torch" in med else float("nan")
            comp = med.get("framework-compiled", float("nan"))
            c_np = comp / med["numpy"] if "numpy" in med else float("nan")
            c_t = comp / med["torch"] if "torch" in med else float("nan")
            extra = ""
            if workload == "deep_chain":
                f = last["framework"]
                n = last["numpy"]
                extra = (f" peak MB fw/np {f['peak_rss_mb']}/{n['peak_rss_mb']}, after-drop fw "
                         f"{f['rss_before_mb']}->{f['rss_after_mb']}->{f['rss_after_repeats_mb']}")
            memory = {}
            if workload in MODELS:
                memory = {k: " / ".join(str(last[i][k]) if i in last else "n/a" for i in MODEL_IMPLS)
                          for k in ("step_peak_mb", "held_mb")}
                extra += f" peak MB fw / compiled / torch {memory['step_peak_mb']}, held MB {memory['held_mb']}"
            opt_med = {impl: statistics.median(v) for impl, v in opt_samples.items() if v}
            if opt_med:
                extra += " optimizer us/param " + " ".join(f"{impl} {v:.2f}" for impl, v in opt_med.items())
            lines.append((threads, workload, unit, med.get("framework"), med.get("numpy"), med.get("torch"), r_np, r_t,
                          check_traces(last, workload), extra, opt_med, comp, c_np, c_t, memory))
            print(f"threads={threads} {workload:10s} framework {med.get('framework', float('nan')):9.3f} {unit:7s} "
                  f"compiled {comp:9.3f}  "
                  f"numpy {med.get('numpy', float('nan')):9.3f}  torch {med.get('torch', float('nan')):9.3f}  "
                  f"fw/numpy {r_np:5.2f}  fw/torch {r_t:5.2f}  compiled/numpy {c_np:5.2f}  compiled/torch {c_t:5.2f}  "
                  f"traces {lines[-1][8]}{extra}", flush=True)
    if args.markdown:
        print("\n| threads | workload | unit | framework | compiled | numpy | torch | fw/numpy | fw/torch "
              "| compiled/numpy | compiled/torch | optimizer µs/param fw / numpy / torch "
              "| peak MB fw / compiled / torch | held MB fw / compiled / torch |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        def fmt(v, digits=3):
            return "n/a" if v is None or v != v else f"{v:.{digits}f}"

        for t, w, u, f, n, tt, rn, rt, _, _, om, c, cn, ct, mem in lines:
            opt = " / ".join(fmt(om.get(impl), 2) for impl in IMPLS if impl != "framework-compiled") if om else ""
            print(f"| {t} | {w} | {u} | {fmt(f)} | {fmt(c)} | {fmt(n)} | {fmt(tt)} | {fmt(rn, 2)} | {fmt(rt, 2)} "
                  f"| {fmt(cn, 2)} | {fmt(ct, 2)} | {opt} | {mem.get('step_peak_mb', '')} | {mem.get('held_mb', '')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
