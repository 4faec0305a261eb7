"""DataLoader(pin_memory=True) warns as torch's does: when an iterator is made and no accelerator is found."""
import warnings

import pytest

import framework as fw
from framework.utils.data import DataLoader, TensorDataset

torch = pytest.importorskip("torch")


def _warnings(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = make()
        at_construction = [(w.category, str(w.message)) for w in caught]
        del caught[:]
        batches = list(loader)
        at_iteration = [(w.category, str(w.message)) for w in caught]
    return at_construction, at_iteration, len(batches)


@pytest.mark.parametrize("kwargs", [{"pin_memory": True}, {"pin_memory": False},
                                    {"pin_memory": True, "pin_memory_device": "cuda"}])
def test_pin_memory_warning_as_torch(kwargs):
    ours = _warnings(lambda: DataLoader(TensorDataset(fw.arange(6.0)), batch_size=2, **kwargs))
    theirs = _warnings(lambda: torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.arange(6.0)),
                                                           batch_size=2, **kwargs))
    if fw.accelerator.is_available() == torch.accelerator.is_available():
        assert ours == theirs
    else:  # framework sees a GPU (or the strict stand-in) where this torch has none: no accelerator warning
        assert ours[0] == [] and not any("no accelerator" in m for _, m in ours[1])
    if kwargs["pin_memory"] and not fw.accelerator.is_available():
        assert ours[1][-1] == (UserWarning, "'pin_memory' argument is set as true but no accelerator is found, "
                                            "then device pinned memory won't be used.")
