"""Benchmarks: framework vs hand-written NumPy (the limit for a NumPy engine) vs PyTorch CPU.

Each workload runs as ``python -m bench.<name> --impl framework|numpy|torch [--threads N] [--quick]`` and
prints one JSON line; ``python -m bench.compare`` runs them all interleaved and prints the ratios.
"""
