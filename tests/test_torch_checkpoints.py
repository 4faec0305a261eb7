"""PyTorch checkpoints: torch.save files load through framework's restricted unpickler, and save(format="torch")
writes files that torch.load(weights_only=True) reads; anything naming another global is refused unrun."""
import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import framework
from framework import nn
from framework.serialization import CheckpointError, UnsafeGlobalError

torch = pytest.importorskip("torch")


def _models():
    ours = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                                 torch.nn.Linear(8, 3))
    theirs.train()(torch.randn(16, 4))  # move the running statistics away from their defaults
    return ours.eval(), theirs.eval()


def _outputs_equal(ours, theirs):
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.tensor(x)).cpu().numpy()
    np.testing.assert_allclose(ours(framework.tensor(x)).detach().cpu().numpy(), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("zip_format", [True, False])
def test_torch_state_dict_loads_into_framework_model(tmp_path, zip_format):
    ours, theirs = _models()
    path = tmp_path / "model.pt"
    torch.save(theirs.state_dict(), path, _use_new_zipfile_serialization=zip_format)
    state = framework.load(path)
    assert list(state) == list(theirs.state_dict())
    assert state["1.num_batches_tracked"].dtype == framework.int64 and state["1.num_batches_tracked"].item() == 1
    ours.load_state_dict(state)
    _outputs_equal(ours, theirs)
    # torch's other ways of saying "on the CPU" and its extra arguments
    for kwargs in (dict(map_location=lambda storage, loc: storage), dict(map_location={"cuda:0": "cpu"}),
                   dict(map_location="cpu", weights_only=True, mmap=False)):
        again = framework.load(path, **kwargs)
        assert all(framework.equal(again[k], state[k]) for k in state)


def test_framework_state_dict_loads_into_torch_model(tmp_path):
    ours, theirs = _models()
    ours.train()(framework.randn(16, 4))
    ours.eval()
    path = tmp_path / "ours.pt"
    framework.save(ours.state_dict(), path, format="torch")
    state = torch.load(path, weights_only=True)
    theirs.load_state_dict(state)
    _outputs_equal(ours, theirs)
    assert framework.load(path).keys() == ours.state_dict().keys()  # and back


def test_dtypes_views_parameters_and_plain_values_round_trip(tmp_path):
    base = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    obj = {"t": base.t(), "slice": base[1:3, ::2], "i": torch.tensor([1, -2]), "b": torch.tensor([True, False]),
           "h": torch.tensor([0.5, 1.5], dtype=torch.float16), "bf": torch.tensor([1.5, -2.0], dtype=torch.bfloat16),
           "p": torch.nn.Parameter(torch.ones(2)), "scalar": torch.tensor(3.5), "size": torch.Size([2, 3]),
           "dtype": torch.float64, "plain": [1, 2.5, "s", None, (True,), b"raw", {"k": 1}]}
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    got = framework.load(buf)
    for k in ("t", "slice", "i", "b", "h", "scalar"):
        assert got[k].tolist() == obj[k].tolist() and got[k].dtype.name == str(obj[k].dtype).split(".")[1], k
    assert got["bf"].tolist() == [1.5, -2.0] and got["bf"].dtype == framework.bfloat16
    assert isinstance(got["p"], nn.Parameter) and got["p"].requires_grad
    assert got["size"] == (2, 3) and got["dtype"] is framework.float64 and got["plain"] == obj["plain"]
    # and back: torch reads what framework writes, with the same values and types
    path = tmp_path / "back.pt"
    framework.save(got, path, format="torch")
    again = torch.load(path, weights_only=True)
    for k in ("t", "slice", "i", "b", "h", "scalar"):
        assert again[k].dtype == obj[k].dtype and torch.equal(again[k], obj[k]), k
    assert isinstance(again["p"], torch.nn.Parameter) and again["size"] == torch.Size([2, 3])
    assert again["dtype"] is torch.float64 and again["plain"] == obj["plain"]


def test_training_resumes_from_a_torch_checkpoint(tmp_path):
    """model + Adam state saved by torch; framework resumes and takes the same steps torch takes."""
    tm = torch.nn.Linear(3, 2)
    topt = torch.optim.Adam(tm.parameters(), lr=0.01)
    x = torch.randn(5, 3)
    for _ in range(3):
        topt.zero_grad()
        tm(x).pow(2).sum().backward()
        topt.step()
    torch.save({"model": tm.state_dict(), "opt": topt.state_dict()}, tmp_path / "ck.pt")
    ck = framework.load(tmp_path / "ck.pt")
    assert ck["opt"]["param_groups"][0]["betas"] == (0.9, 0.999)
    fm = nn.Linear(3, 2)
    fm.load_state_dict(ck["model"])
    fopt = framework.optim.Adam(fm.parameters(), lr=0.01)
    fopt.load_state_dict(ck["opt"])
    fx = framework.tensor(x.cpu().numpy())
    for _ in range(3):
        topt.zero_grad()
        tm(x).pow(2).sum().backward()
        topt.step()
        fopt.zero_grad()
        fm(fx).pow(2).sum().backward()
        fopt.step()
    np.testing.assert_allclose(fm.weight.detach().cpu().numpy(), tm.weight.detach().cpu().numpy(),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fm.bias.detach().cpu().numpy(), tm.bias.detach().cpu().numpy(),
                               rtol=1e-6, atol=1e-7)


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("zip_format", [True, False])
def test_a_pickle_naming_os_system_is_refused_without_running_it(tmp_path, zip_format):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(2), "x": _Evil(marker)}, path, _use_new_zipfile_serialization=zip_format)
    with pytest.raises(UnsafeGlobalError, match=r"GLOBAL (os|posix)\.system was not an allowed global") as info:
        framework.load(path)
    assert "add_safe_globals" in str(info.value) and str(path) in str(info.value)
    with pytest.raises(UnsafeGlobalError):
        framework.load(path, weights_only=False)  # framework never unpickles without the allowlist
    assert isinstance(info.value, pickle.UnpicklingError) and isinstance(info.value, CheckpointError)
    assert not marker.exists()


def test_whole_module_loads_only_when_its_classes_are_allowed(tmp_path):
    ours, _ = _models()
    path = tmp_path / "whole.pt"
    with open(path, "wb") as f:  # word_language_model's way: an open file
        framework.save(ours, f)  # a whole Module: torch's format (safetensors holds no objects)
    assert zipfile.is_zipfile(path)
    with pytest.raises(UnsafeGlobalError, match="framework.nn.modules.container.Sequential was not an allowed global"):
        framework.load(path)
    allowed = [nn.Sequential, nn.Linear, nn.BatchNorm1d, nn.ReLU]
    with framework.serialization.safe_globals(allowed), open(path, "rb") as f:
        back = framework.load(f)
    assert framework.serialization.get_safe_globals() == []  # the context restored the list
    x = framework.randn(3, 4)
    assert type(back) is nn.Sequential  # framework.load puts tensors on the CPU; run it where x is
    assert framework.equal(back.to(x.device)(x), ours(x))
    framework.serialization.add_safe_globals(allowed)
    try:
        assert isinstance(framework.load(path), nn.Sequential)
    finally:
        framework.serialization.clear_safe_globals()
    with pytest.raises(UnsafeGlobalError):
        framework.load(path)


def test_truncated_and_corrupted_torch_files(tmp_path):
    path = tmp_path / "m.pt"
    torch.save({"w": torch.randn(64, 64)}, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupted torch.save") as info:
        framework.load(path)
    assert str(path) in str(info.value)
    corrupt = bytearray(data)
    start = data.index(b"m/data/0") + 200  # inside the tensor's bytes: the zip's CRC no longer matches
    corrupt[start:start + 8] = b"\xff" * 8
    path.write_bytes(bytes(corrupt))
    with pytest.raises(CheckpointError, match="corrupted"):
        framework.load(path)
    torch.save({"w": torch.randn(64)}, path, _use_new_zipfile_serialization=False)
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(CheckpointError, match="truncated"):
        framework.load(path)


def _crafted(tmp_path, reduce_value):
    """A torch-style zip whose data.pkl is ``reduce_value`` (a (callable, args) pair) over one 4-float storage."""
    from framework.torch_format.writer import _TorchPickler

    class Crafted:
        def __reduce__(self):
            return reduce_value

    buf = io.BytesIO()
    _TorchPickler(buf).dump(Crafted())
    path = tmp_path / "crafted.pt"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("crafted/data.pkl", buf.getvalue())
        z.writestr("crafted/data/0", np.arange(4, dtype=np.float32).tobytes())
    return path


def test_crafted_tensor_windows_and_rebuild_calls_are_refused(tmp_path):
    import collections

    from framework.torch_format.writer import _Global, _StorageRef

    storage = _StorageRef("0", np.zeros(4, np.float32))
    rebuild = _Global("torch._utils", "_rebuild_tensor_v2")
    ok = _crafted(tmp_path, (rebuild, (storage, 1, (3,), (1,), False, collections.OrderedDict())))
    assert framework.load(ok).tolist() == [1.0, 2.0, 3.0]
    # a size far past the storage is refused before anything is allocated for it
    huge = _crafted(tmp_path, (rebuild, (storage, 0, (10 ** 12,), (1,), False, collections.OrderedDict())))
    with pytest.raises(CheckpointError, match="reaches past its storage of 4 elements"):
        framework.load(huge)
    # _rebuild_from_type_v2 may call only a tensor rebuild function
    sneaky = _crafted(tmp_path, (_Global("torch._tensor", "_rebuild_from_type_v2"),
                                 (_Global("torch", "Tensor"), _Global("torch", "Tensor"), (), {})))
    with pytest.raises(CheckpointError, match="may only call a tensor rebuild function"):
        framework.load(sneaky)


def test_a_checkpoint_saved_before_the_relay_names_the_old_module():
    """Files saved before the re-lay by family name framework.nn.layers.Linear: they load as nn.Linear."""
    import io
    import pickle

    from framework.torch_format.reader import _Unpickler
    old = pickle.dumps(None).replace(b"N.", b"cframework.nn.layers\nLinear\n.")  # GLOBAL 'framework.nn.layers Linear'
    with framework.serialization.safe_globals([nn.Linear]):
        assert _Unpickler(io.BytesIO(old)).load() is nn.Linear
    with pytest.raises(Exception, match="framework.nn.modules.linear.Linear was not an allowed global"):
        _Unpickler(io.BytesIO(old)).load()
