"""framework.distributed, DistributedDataParallel and DistributedSampler.

The multi-process checks run ``mpiexec -n 2 python tests/distributed_worker.py`` (three launches in
all) and compare what each rank saved against NumPy and against a single-process run computed here.
"""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import distributed_worker as W
import framework
import framework.distributed as dist
from framework import nn
from framework.utils.data import DataLoader, DistributedSampler, TensorDataset

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MPIEXEC = W.find_mpiexec()
HAVE_MPI = MPIEXEC is not None and importlib.util.find_spec("mpi4py") is not None
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="needs mpi4py and mpiexec: pip install -e '.[distributed]'")


def mpiexec(mode: str, out_dir, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=ROOT)
    cmd = [MPIEXEC, "-n", "2", sys.executable, os.path.join(ROOT, "tests", "distributed_worker.py"), mode,
           str(out_dir)]
    # the timeout is a hang guard: a failing rank must end every rank, not leave one blocked forever
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("mpi")
    proc = mpiexec("checks", out, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [dict(np.load(out / f"rank{r}.npz")) for r in range(2)]


# ---- collectives against NumPy ---------------------------------------------------------------------

@needs_mpi
@pytest.mark.parametrize("op,fn", [("SUM", np.sum), ("AVG", np.mean), ("PRODUCT", np.prod), ("MIN", np.min),
                                   ("MAX", np.max)])
def test_all_reduce_ops(ranks, op, fn):
    expected = fn(np.stack([W.rank_input(r) for r in range(2)]), axis=0)
    for r in range(2):
        np.testing.assert_allclose(ranks[r][f"all_reduce_{op}"], expected, rtol=1e-15)


@needs_mpi
def test_all_reduce_int_async_and_strided(ranks):
    inputs = np.stack([W.rank_input(r) for r in range(2)])
    for r in range(2):
        assert ranks[r]["all_reduce_int"].dtype == np.int64
        np.testing.assert_array_equal(ranks[r]["all_reduce_int"], inputs.sum(0).astype(np.int64))
        assert ranks[r]["all_reduce_async_f32"].dtype == np.float32
        np.testing.assert_array_equal(ranks[r]["all_reduce_async_f32"], inputs.max(0).astype(np.float32))
        np.testing.assert_array_equal(ranks[r]["all_reduce_strided_base"], inputs.sum(0))


@needs_mpi
def test_broadcast_gather_scatter_reduce(ranks):
    inputs = np.stack([W.rank_input(r) for r in range(2)])
    for r in range(2):
        np.testing.assert_array_equal(ranks[r]["broadcast"], inputs[1])
        np.testing.assert_array_equal(ranks[r]["all_gather"], inputs)
        np.testing.assert_array_equal(ranks[r]["scatter"], inputs[r] * 10)
        # reduce_scatter: rank r gets the sum over ranks q of (input_q + 100 r)
        np.testing.assert_array_equal(ranks[r]["reduce_scatter"], inputs.sum(0) + 2 * 100 * r)
    np.testing.assert_array_equal(ranks[1]["gather"], inputs)
    assert "gather" not in ranks[0]
    np.testing.assert_array_equal(ranks[0]["reduce"], inputs.sum(0))
    np.testing.assert_array_equal(ranks[1]["reduce"], inputs[1])  # not the destination: unchanged


def test_collective_before_init_is_a_clear_error():
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.all_reduce(framework.ones(2))
    with pytest.raises(ValueError, match="init_process_group"):
        dist.get_rank()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))


# ---- DistributedDataParallel -----------------------------------------------------------------------

def single_process(opt_name: str, dtype) -> dict:
    """One process, batch 2B, the rank-0 initial weights: what DDP over 2 ranks x B must reproduce."""
    x, y = W.training_data(dtype)
    model = W.make_model(seed=0, dtype=framework.float64 if dtype == np.float64 else framework.float32)
    opt = W.make_optimizer(opt_name, model.parameters())
    for s in range(W.STEPS):
        opt.zero_grad()
        dev = next(model.parameters()).device  # the test device: from_numpy gives CPU tensors, as torch's does
        nn.functional.cross_entropy(model(framework.from_numpy(x[s]).to(dev)),
                                    framework.from_numpy(y[s]).to(dev)).backward()
        opt.step()
    return {n: p.detach().cpu().numpy() for n, p in model.named_parameters()}


@needs_mpi
@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 1e-5)])
def test_ddp_two_ranks_equal_one_process_with_twice_the_batch(ranks, opt_name, dtype, tol):
    key = f"{opt_name}_{np.dtype(dtype).name}"
    assert int(ranks[0][f"buckets_{key}"]) >= 2
    reference = single_process(opt_name, dtype)
    initial = dict(W.make_model(seed=0, dtype=framework.float64).named_parameters())
    for name, want in reference.items():
        assert not np.allclose(want, initial[name].detach().cpu().numpy(), atol=1e-3)  # training moved it
        for r in range(2):
            got = ranks[r][f"{key}/{name}"]
            assert got.dtype == dtype
            np.testing.assert_allclose(got, want, rtol=0, atol=tol, err_msg=f"rank {r} {key} {name}")


@needs_mpi
def test_ddp_starts_each_bucket_during_backward(ranks):
    from framework.nn.parallel.reducer import make_buckets

    params = list(W.make_model(0, framework.float64).parameters())
    sizes = [len(b) for b in make_buckets(params, int(0.001 * 2**20))]
    assert len(sizes) >= 2
    for r in range(2):
        launches = ranks[r]["launches_sgd_float64"].reshape(W.STEPS, -1)
        # every bucket left the moment its last gradient arrived: the first while later layers' gradients
        # (the rest of backward) were still to come
        np.testing.assert_array_equal(launches, np.tile(np.cumsum(sizes), (W.STEPS, 1)))
        assert launches[0, 0] < len(params)


@needs_mpi
def test_ddp_state_dict_has_module_prefix(ranks):
    keys = list(ranks[0]["state_dict_keys"])
    assert keys == [f"module.{k}" for k in W.make_model(0, framework.float64).state_dict()]


@needs_mpi
def test_no_sync_accumulates_locally_then_averages_the_total(ranks):
    x, y = W.training_data(np.float64)
    model = W.make_model(seed=0, dtype=framework.float64)
    per_rank = []
    for r in range(2):
        model.zero_grad()
        for s in range(2):
            xs, ys = x[s, r * W.B:(r + 1) * W.B], y[s, r * W.B:(r + 1) * W.B]
            dev = next(model.parameters()).device  # the test device: from_numpy gives CPU tensors, as torch's does
            nn.functional.cross_entropy(model(framework.from_numpy(xs).to(dev)),
                                        framework.from_numpy(ys).to(dev)).backward()
            if s == 0:
                local = {n: p.grad.cpu().numpy().copy() for n, p in model.named_parameters()}
        per_rank.append(({n: p.grad.cpu().numpy().copy() for n, p in model.named_parameters()}, local))
    for name in local:
        for r in range(2):
            np.testing.assert_allclose(ranks[r][f"local/{name}"], per_rank[r][1][name], atol=1e-12)
            expected = (per_rank[0][0][name] + per_rank[1][0][name]) / 2
            np.testing.assert_allclose(ranks[r][f"synced/{name}"], expected, atol=1e-12)
        assert not np.allclose(per_rank[0][0][name], per_rank[1][0][name])  # the ranks' gradients differed


@needs_mpi
def test_buffers_follow_rank_0_before_forward(ranks):
    for r in range(2):
        assert ranks[r]["bn_running_mean"].shape == (4,)
        np.testing.assert_array_equal(ranks[r]["bn_weight"], ranks[0]["bn_weight"])
    # both ranks started the forward from rank 0's 7.0 (rank 1 had 8.0), then took 0.9 of it
    assert np.all(ranks[0]["bn_running_mean"] > 0.9 * 7 - 0.5) and np.all(ranks[0]["bn_running_mean"] < 6.8)
    assert np.all(ranks[1]["bn_running_mean"] < 0.9 * 8 - 0.5)


@needs_mpi
def test_unused_parameters(ranks):
    # d(sum of a(x))/d(a.weight) = ones(2, 1) @ column sums of x, averaged over the ranks
    x = [W.rank_input(r) for r in range(2)]
    expected = np.mean([np.ones((2, 1)) * xi.sum(0) for xi in x], axis=0)
    for r in range(2):
        np.testing.assert_allclose(ranks[r]["unused_a_grad"], expected, rtol=1e-14)
        assert bool(ranks[r]["unused_b_grad_is_none"])  # no rank used it: left as it was
        assert str(ranks[r]["unused_error"]).startswith("Expected to have finished reduction in the prior iteration")
        assert "find_unused_parameters=True" in str(ranks[r]["unused_error"])


@needs_mpi
def test_a_rank_that_raises_ends_every_rank(tmp_path):
    proc = mpiexec("raise", tmp_path)
    assert proc.returncode != 0
    assert "rank 1 of 2 failed" in proc.stderr
    assert "ValueError: rank 1 cannot go on" in proc.stderr


@needs_mpi
def test_mismatched_models_are_a_clear_error(tmp_path):
    proc = mpiexec("mismatch", tmp_path)
    assert proc.returncode != 0
    assert "DDP expects same model across all ranks: '0.weight' on rank 1 has shape [17, 6]" in proc.stderr
    assert "on rank 0 has shape [16, 6]" in proc.stderr


# ---- the engine hooks DDP relies on ----------------------------------------------------------------

def test_post_accumulate_grad_hook_sees_the_accumulated_grad(torch):
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
        seen = []
        names = {id(p): n for n, p in model.named_parameters()}
        for p in model.parameters():
            p.register_post_accumulate_grad_hook(lambda t: seen.append((names[id(t)], t.grad.sum().item())))
        x = lib.ones(5, 3)
        for _ in range(2):
            model(x).pow(2).sum().backward()
        return seen

    ours, theirs = run(framework), run(torch)
    assert len(ours) == len(theirs) == 8
    # each backward fires every leaf's hook once, the last layer's before the first's (as torch)
    for calls in (ours[:4], ours[4:]):
        assert {n for n, _ in calls} == {n for n, _ in theirs[:4]}
        assert [n[0] for n, _ in calls] == ["2", "2", "0", "0"]
    first, second = dict(ours[:4]), dict(ours[4:])
    for name, total in second.items():
        assert total == pytest.approx(2 * first[name], rel=1e-5)  # the second call sees the accumulated sum


def test_post_accumulate_grad_hook_only_on_leaves():
    x = framework.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    handle = x.register_post_accumulate_grad_hook(lambda t: calls.append(1))
    calls = []
    (x * 2).sum().backward()
    handle.remove()
    (x * 2).sum().backward()
    assert calls == [1]


def test_queue_callback_runs_after_backward():
    from framework.autograd.engine import queue_callback

    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        queue_callback(lambda: None)
    a, b = framework.ones(2, requires_grad=True), framework.ones(2, requires_grad=True)
    seen = []
    a.register_post_accumulate_grad_hook(lambda t: queue_callback(lambda: seen.append(b.grad is not None)))
    (a * b).sum().backward()
    assert seen == [True]  # it ran once every gradient, b's included, had been accumulated


# ---- DistributedSampler against torch's ------------------------------------------------------------

COMBOS = [(10, 3, False), (10, 3, True), (9, 3, False), (7, 4, False), (7, 4, True), (2, 5, False), (1, 3, True),
          (100, 2, True), (13, 8, False)]


@pytest.mark.parametrize("size,replicas,drop_last", COMBOS)
def test_distributed_sampler_matches_torch_without_shuffle(torch, size, replicas, drop_last):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    data = list(range(size))
    for rank in range(replicas):
        ours = DistributedSampler(data, replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(data, replicas, rank, shuffle=False, drop_last=drop_last)
        assert len(ours) == len(theirs)
        assert list(ours) == list(theirs)


@pytest.mark.parametrize("size,replicas,drop_last", COMBOS)
@pytest.mark.parametrize("epoch", [0, 3])
def test_distributed_sampler_shuffle_shares_one_permutation(torch, size, replicas, drop_last, epoch):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    data = list(range(size))
    ours = [DistributedSampler(data, replicas, r, seed=5, drop_last=drop_last) for r in range(replicas)]
    theirs = [TorchSampler(data, replicas, r, seed=5, drop_last=drop_last) for r in range(replicas)]
    for s in ours + theirs:
        s.set_epoch(epoch)
    got = [list(s) for s in ours]
    want = [list(s) for s in theirs]
    assert [len(g) for g in got] == [len(w) for w in want]
    # the same structure as torch's: interleaving the ranks gives one padded (or cut) permutation
    flat = [g[i] for i in range(len(got[0])) for g in got]
    flat_torch = [w[i] for i in range(len(want[0])) for w in want]
    if drop_last:
        assert len(set(flat)) == len(flat) == len(flat_torch)
    else:
        assert sorted(set(flat)) == sorted(set(flat_torch)) == data
        counts = np.bincount(flat, minlength=size)
        np.testing.assert_array_equal(np.sort(counts), np.sort(np.bincount(flat_torch, minlength=size)))
    assert got == [list(s) for s in ours]  # reproducible


def test_distributed_sampler_epochs_reshuffle():
    data = list(range(50))
    s = DistributedSampler(data, 2, 0, seed=1)
    first = list(s)
    assert list(s) == first
    s.set_epoch(1)
    assert list(s) != first
    assert list(DistributedSampler(data, 2, 0, seed=2)) != first
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(data, 2, 2)
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(data)


def test_dataloader_takes_a_sampler():
    x = framework.arange(10).float()
    ds = TensorDataset(x)
    sampler = DistributedSampler(ds, 3, 1, shuffle=False)
    loader = DataLoader(ds, batch_size=2, sampler=sampler)
    assert len(loader) == 2
    assert [b[0].tolist() for b in loader] == [[1.0, 4.0], [7.0, 0.0]]
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=sampler, shuffle=True)
