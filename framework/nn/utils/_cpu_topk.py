"""Which entries torch's CPU topk picks when values tie: its kernel (aten TopKImpl.h) runs libstdc++'s
std::partial_sort (when k * 64 <= n) or std::nth_element on (value, index) pairs, comparing values only, so
ties are broken by those algorithms' swaps. Pruning masks depend on that choice; this replays it on the host.

Without a tie across the k-th place the selection is unique and a plain partition gives it (the fast path)."""
from __future__ import annotations

import math

import numpy as np


def topk_indices(values: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """Indices (in no particular order) of the k entries torch.topk(values, k, largest=largest) returns on CPU."""
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    n = flat.size
    if k <= 0:
        return np.zeros(0, np.int64)
    if k >= n:
        return np.arange(n, dtype=np.int64)
    # the comparator's order as a key: torch puts NaN at the top (largest) or the bottom (smallest)
    key = np.where(np.isnan(flat), -np.inf if largest else np.inf, -flat if largest else flat)
    order = np.argsort(key, kind="stable")
    if key[order[k - 1]] != key[order[k]]:  # no tie across the k-th place: the set is unique
        return order[:k].astype(np.int64)
    keys = [float(v) for v in key]
    items = list(range(n))  # the pairs' indices; their values are keys[i]
    if k * 64 <= n:
        _heap_select(items, keys, 0, k, n)
    else:
        _nth_element(items, keys, k - 1)
    return np.asarray(items[:k], dtype=np.int64)


# libstdc++ (bits/stl_algo.h, bits/stl_heap.h), with comp(x, y) = keys[x] < keys[y]
def _nth_element(a: list, keys: list, nth: int) -> None:
    first, last = 0, len(a)
    depth = 2 * int(math.floor(math.log2(last - first)))
    while last - first > 3:
        if depth == 0:
            _heap_select(a, keys, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, keys, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, keys, first, last)


def _partition_pivot(a: list, keys: list, first: int, last: int) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(a, keys, first, first + 1, mid, last - 1)
    pivot = keys[a[first]]
    lo, hi = first + 1, last
    while True:
        while keys[a[lo]] < pivot:
            lo += 1
        hi -= 1
        while pivot < keys[a[hi]]:
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _move_median_to_first(a: list, keys: list, result: int, i: int, j: int, m: int) -> None:
    ka, kb, kc = keys[a[i]], keys[a[j]], keys[a[m]]
    if ka < kb:
        pick = j if kb < kc else (m if ka < kc else i)
    elif ka < kc:
        pick = i
    elif kb < kc:
        pick = m
    else:
        pick = j
    a[result], a[pick] = a[pick], a[result]


def _insertion_sort(a: list, keys: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        val = a[i]
        if keys[val] < keys[a[first]]:
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            j = i
            while keys[val] < keys[a[j - 1]]:
                a[j] = a[j - 1]
                j -= 1
            a[j] = val


def _heap_select(a: list, keys: list, first: int, middle: int, last: int) -> None:
    length = middle - first
    if length >= 2:  # make_heap
        parent = (length - 2) // 2
        while True:
            _adjust_heap(a, keys, first, parent, length, a[first + parent])
            if parent == 0:
                break
            parent -= 1
    for i in range(middle, last):
        if keys[a[i]] < keys[a[first]]:  # pop_heap(first, middle, i)
            value = a[i]
            a[i] = a[first]
            _adjust_heap(a, keys, first, 0, length, value)


def _adjust_heap(a: list, keys: list, first: int, hole: int, length: int, value: int) -> None:
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if keys[a[first + second]] < keys[a[first + second - 1]]:
            second -= 1
        a[first + hole] = a[first + second]
        hole = second
    if length & 1 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        a[first + hole] = a[first + second - 1]
        hole = second - 1
    parent = (hole - 1) // 2  # push_heap
    while hole > top and keys[a[first + parent]] < keys[value]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value
