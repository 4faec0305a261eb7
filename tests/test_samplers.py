"""utils.data samplers, datasets, default_collate and DataLoader options against torch.utils.data.

Indices are compared exactly where no random stream is involved; random samplers are checked by their laws
(framework's generator is NumPy's PCG64, torch's a Mersenne twister, so the draws themselves differ)."""
import collections
import warnings

import numpy as np
import pytest

import framework
from framework.utils import data as fdata

torch = pytest.importorskip("torch")
tdata = torch.utils.data


def _to_py(x):
    """Nested batches -> plain Python, with dtype names, so framework and torch batches compare."""
    if isinstance(x, (framework.Tensor, torch.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], x.tolist())
    if isinstance(x, dict):
        return {k: _to_py(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__,) + tuple(_to_py(v) for v in x)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_to_py(v) for v in x])
    return x


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("batch_size", [1, 3, 4, 10])
def test_sequential_and_batch_samplers_equal_torch(batch_size, drop_last):
    src = list(range(10))
    assert list(fdata.SequentialSampler(src)) == list(tdata.SequentialSampler(src))
    ours = fdata.BatchSampler(fdata.SequentialSampler(src), batch_size, drop_last)
    theirs = tdata.BatchSampler(tdata.SequentialSampler(src), batch_size, drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)
    assert list(fdata.BatchSampler(range(7), 3, drop_last)) == list(tdata.BatchSampler(range(7), 3, drop_last))


def test_sampler_argument_errors_match_torch():
    for bad in (dict(batch_size=0, drop_last=False), dict(batch_size=2, drop_last="no")):
        with pytest.raises(ValueError) as ours:
            fdata.BatchSampler(range(3), **bad)
        with pytest.raises(ValueError) as theirs:
            tdata.BatchSampler(range(3), **bad)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        fdata.RandomSampler(range(3), num_samples=0)


def test_random_sampler_permutation_and_reproducibility():
    src = list(range(50))
    order = list(fdata.RandomSampler(src, generator=framework.Generator(3)))
    assert sorted(order) == src and order != src
    assert order == list(fdata.RandomSampler(src, generator=framework.Generator(3)))
    # num_samples beyond the length without replacement: whole permutations, then part of one (as torch)
    long = list(fdata.RandomSampler(range(4), num_samples=10, generator=framework.Generator(0)))
    assert len(long) == 10 and sorted(long[:4]) == sorted(long[4:8]) == [0, 1, 2, 3] and len(set(long[8:])) == 2
    assert len(fdata.RandomSampler(range(4), num_samples=10)) == len(tdata.RandomSampler(range(4), num_samples=10))


def test_random_sampler_with_replacement_draws_uniformly():
    s = fdata.RandomSampler(range(5), replacement=True, num_samples=50_000, generator=framework.Generator(1))
    draws = np.array(list(s))
    assert len(s) == 50_000 and draws.shape == (50_000,) and set(draws.tolist()) == {0, 1, 2, 3, 4}
    counts = np.bincount(draws, minlength=5)
    chi2 = ((counts - 10_000) ** 2 / 10_000).sum()
    assert chi2 < 20.5  # 4 degrees of freedom: p < 0.0005 to fail by chance
    assert len(set(list(fdata.RandomSampler(range(100), replacement=True, num_samples=100)))) < 100


def test_subset_random_and_weighted_samplers():
    idx = [3, 9, 4, 7]
    got = list(fdata.SubsetRandomSampler(idx, generator=framework.Generator(0)))
    assert sorted(got) == sorted(idx) and len(fdata.SubsetRandomSampler(idx)) == 4
    w = fdata.WeightedRandomSampler([0.1, 0.0, 0.9], num_samples=20_000, generator=framework.Generator(0))
    counts = np.bincount(list(w), minlength=3) / 20_000
    assert counts[1] == 0 and abs(counts[0] - 0.1) < 0.01 and len(w) == 20_000
    assert sorted(fdata.WeightedRandomSampler([1, 1, 1], 3, replacement=False)) == [0, 1, 2]


def test_subset_concat_and_random_split_match_torch():
    a, b = list(range(5)), list(range(10, 13))
    ours, theirs = fdata.ConcatDataset([a, b]), tdata.ConcatDataset([a, b])
    assert len(ours) == len(theirs) and [ours[i] for i in range(-8, 8)] == [theirs[i] for i in range(-8, 8)]
    assert ours.cumulative_sizes == theirs.cumulative_sizes
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        ours[-9]
    sub = fdata.Subset(ours, [7, 0, 5])
    assert [sub[i] for i in range(3)] == [tdata.Subset(theirs, [7, 0, 5])[i] for i in range(3)] == [12, 0, 10]
    for lengths in ([0.3, 0.3, 0.4], [0.5, 0.5], [3, 5, 2], [0.34, 0.33, 0.33]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parts = fdata.random_split(range(10), lengths, generator=framework.Generator(0))
            tparts = tdata.random_split(range(10), lengths, generator=torch.Generator().manual_seed(0))
        assert [len(p) for p in parts] == [len(p) for p in tparts]
        assert sorted(i for p in parts for i in p) == list(range(10))
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        fdata.random_split(range(3), [0.9, 0.1])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        fdata.random_split(range(3), [-0.5, 1.5])


Point = collections.namedtuple("Point", "x y")


@pytest.mark.parametrize("samples", [
    [(np.float32([1, 2]), 0), (np.float32([3, 4]), 1)],
    [{"a": 1.5, "b": "s", "c": [1, 2]}, {"a": 2.5, "b": "t", "c": [3, 4]}],
    [Point(1, 2.0), Point(3, 4.0)],
    [[True, np.int32(3)], [False, np.int32(4)]],
    [np.float64(1.0), np.float64(2.0)],
    [b"x", b"y"],
])
def test_default_collate_equals_torch(samples):
    assert _to_py(fdata.default_collate(samples)) == _to_py(tdata.default_collate(samples))


def test_default_collate_of_tensors_and_errors():
    got = fdata.default_collate([(framework.ones(2), framework.tensor(1)), (framework.zeros(2), framework.tensor(2))])
    want = tdata.default_collate([(torch.ones(2), torch.tensor(1)), (torch.zeros(2), torch.tensor(2))])
    assert _to_py(got) == _to_py(want)
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        fdata.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                        "lists; found <class 'object'>"):
        fdata.default_collate([object()])


class _Squares(fdata.Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        return {"x": np.float32([i, i]), "y": i * i}


class _TSquares(tdata.Dataset):
    __len__, __getitem__ = _Squares.__len__, _Squares.__getitem__


def test_dataloader_options_equal_torch():
    cases = [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
             dict(batch_sampler=[[0, 6], [1, 2, 3], [5]]), dict(sampler=[6, 5, 4, 0], batch_size=2),
             dict(batch_size=2, collate_fn=lambda items: [s["y"] for s in items])]
    for kw in cases:
        ours = fdata.DataLoader(_Squares(), **kw)
        theirs = tdata.DataLoader(_TSquares(), **kw)
        assert [_to_py(b) for b in ours] == [_to_py(b) for b in theirs], kw
        assert len(ours) == len(theirs), kw


def test_dataloader_tensor_dataset_batches_like_torch():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    ours = fdata.DataLoader(fdata.TensorDataset(framework.tensor(x), framework.arange(6)), batch_size=4)
    theirs = tdata.DataLoader(tdata.TensorDataset(torch.tensor(x), torch.arange(6)), batch_size=4)
    assert [_to_py(b) for b in ours] == [_to_py(b) for b in theirs]


def test_dataloader_option_conflicts_raise_torchs_errors():
    ds = _Squares()
    for kw in (dict(sampler=[0, 1], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
               dict(batch_size=None, drop_last=True)):
        with pytest.raises(ValueError) as ours:
            fdata.DataLoader(ds, **kw)
        with pytest.raises(ValueError) as theirs:
            tdata.DataLoader(_TSquares(), **kw)
        assert str(ours.value) == str(theirs.value)


def test_iterable_dataset_batches_equal_torch():
    class Stream(fdata.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    class TStream(tdata.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    for kw in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)):
        assert [_to_py(b) for b in fdata.DataLoader(Stream(), **kw)] == \
            [_to_py(b) for b in tdata.DataLoader(TStream(), **kw)]


def test_shuffle_uses_a_random_sampler_with_the_generator():
    loader = fdata.DataLoader(list(range(20)), batch_size=5, shuffle=True, generator=framework.Generator(4))
    assert isinstance(loader.sampler, fdata.RandomSampler) and isinstance(loader.batch_sampler, fdata.BatchSampler)
    first = [b.tolist() for b in loader]
    again = [b.tolist() for b in fdata.DataLoader(list(range(20)), batch_size=5, shuffle=True,
                                                    generator=framework.Generator(4))]
    assert first == again and sorted(sum(first, [])) == list(range(20))
