"""torch.histogram / Tensor.histogram: counts, weights, density, tensor bin edges, flat and empty inputs and
torch's errors, against torch."""
import numpy as np
import pytest

import framework
from scenario import outcome

_X = [1.0, 2.0, 1.0, 5.0, -0.25, 3.75, 2.0]

CASES = {
    "bins": lambda m, x: m.histogram(x, bins=4),
    "default_bins": lambda m, x: m.histogram(x),
    "range": lambda m, x: m.histogram(x, 4, range=(0.0, 6.0)),
    "range_cuts_data": lambda m, x: m.histogram(x, 3, range=(1.0, 2.0)),
    "weight_density": lambda m, x: m.histogram(x, 4, range=(0.0, 6.0), weight=m.arange(7.0, dtype=x.dtype),
                                               density=True),
    "density": lambda m, x: m.histogram(x, 5, density=True),
    "tensor_edges": lambda m, x: m.histogram(x, m.tensor([-1.0, 1.5, 2.0, 6.0], dtype=x.dtype)),
    "tensor_edges_weight": lambda m, x: m.histogram(x, m.tensor([0.0, 2.0, 4.0], dtype=x.dtype),
                                                    weight=m.ones(7, dtype=x.dtype) * 0.5),
    "method_2d": lambda m, x: x.view(7, 1).histogram(2),
    "flat": lambda m, x: m.histogram(m.tensor([3.0, 3.0], dtype=x.dtype), 2),
    "empty": lambda m, x: m.histogram(m.tensor([], dtype=x.dtype), 3),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_histogram_matches_torch(name, dtype):
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        r = CASES[name](m, m.tensor(_X, dtype=getattr(m, dtype)))
        outs.append((type(r).__name__, (len(r), r[0] is r.hist, r[1] is r.bin_edges), str(r.hist.dtype).split(".")[-1],
                     str(r.bin_edges.dtype).split(".")[-1], r.hist.tolist(), r.bin_edges.tolist()))
    assert outs[0][:4] == outs[1][:4]
    np.testing.assert_allclose(outs[0][4], outs[1][4], rtol=1e-6)
    np.testing.assert_allclose(outs[0][5], outs[1][5], rtol=1e-6)


ERRORS = {
    "int_input": lambda m: m.histogram(m.tensor([1, 2, 1]), 4),
    "edges_dtype": lambda m: m.histogram(m.tensor(_X), m.tensor([0.0, 1.5, 6.0], dtype=m.float64)),
    "range_reversed": lambda m: m.histogram(m.tensor(_X), 4, range=(5.0, 1.0)),
    "bins_negative": lambda m: m.histogram(m.tensor(_X), -1),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_histogram_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    assert outcome(ERRORS[name], framework) == outcome(ERRORS[name], torch)
