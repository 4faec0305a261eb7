"""framework.save/load: round trips, atomic writes, and clear errors for bad files (never unpickles)."""
import os
import pickle

import numpy as np
import pytest

import framework
from framework import nn
from framework.serialization import CheckpointError


def test_round_trip_nested(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    obj = {"model": model.state_dict(), "step": 7, "opt": {"state": {0: {"step": 3.0}}, "groups": [{"lr": 0.1}]},
           "name": "run", "betas": (0.9, 0.999), "none": None, "arr": np.arange(3), "x": framework.ones(2, dtype=framework.float64)}
    path = tmp_path / "ck.safetensors"
    framework.save(obj, path)
    back = framework.load(path)
    assert back["step"] == 7 and back["opt"]["state"][0]["step"] == 3.0 and back["betas"] == (0.9, 0.999)
    assert back["none"] is None and back["name"] == "run" and back["arr"].tolist() == [0, 1, 2]
    assert back["x"].dtype is framework.float64
    for k, v in model.state_dict().items():
        assert framework.equal(back["model"][k], v.cpu()) and back["model"][k].dtype is v.dtype  # loads on cpu
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    fresh.load_state_dict(back["model"])


def test_tensor_and_parameter_round_trip(tmp_path):
    p = nn.Parameter(framework.randn(2, 2))
    framework.save(p, tmp_path / "p")
    q = framework.load(tmp_path / "p")
    assert isinstance(q, nn.Parameter) and q.requires_grad and framework.equal(q, p.cpu())  # load: on the cpu


def test_unsupported_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="cannot store an object of type object"):
        framework.save({"x": object()}, tmp_path / "bad")
    assert not os.listdir(tmp_path)  # no temp file left behind


@pytest.mark.parametrize("content,match", [
    (b"", "truncated file"),
    (b"\x10\x00\x00\x00\x00\x00\x00\x00{", "truncated or corrupted"),
    (b"\x05\x00\x00\x00\x00\x00\x00\x00{abc}", "corrupted file"),
    (pickle.dumps({"a": 1}), "pickle"),
    (b"PK\x03\x04rest-of-a-zip", "pickle"),
])
def test_bad_files_give_clear_errors(tmp_path, content, match):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=match) as info:
        framework.load(path)
    assert str(path) in str(info.value)


def test_truncated_real_checkpoint(tmp_path):
    path = tmp_path / "ck"
    framework.save({"w": framework.randn(100, 100)}, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="corrupted|truncated"):
        framework.load(path)


def test_pickle_payload_is_never_executed(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "evil.safetensors"
    path.write_bytes(pickle.dumps(Evil()))
    with pytest.raises(CheckpointError):
        framework.load(path)
    assert not marker.exists()


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(CheckpointError, match="no such file"):
        framework.load(tmp_path / "nope")
    with pytest.raises(CheckpointError, match="is a directory"):
        framework.load(tmp_path)


def test_plain_safetensors_file_loads_as_flat_dict(tmp_path):
    from safetensors.numpy import save_file

    save_file({"weight": np.ones((2, 2), np.float32)}, str(tmp_path / "plain"))
    out = framework.load(tmp_path / "plain")
    assert out["weight"].shape == (2, 2)


def test_crash_during_save_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "ck"
    framework.save({"v": framework.tensor([1.0])}, path)

    def crash(*args, **kwargs):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="simulated"):
        framework.save({"v": framework.tensor([2.0])}, path)
    monkeypatch.undo()
    assert framework.load(path)["v"].tolist() == [1.0]
    assert os.listdir(tmp_path) == ["ck"]  # the temporary file was cleaned up


def test_state_dict_shape_mismatch_after_load(tmp_path):
    framework.save(nn.Linear(2, 3).state_dict(), tmp_path / "ck")
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        nn.Linear(2, 4).load_state_dict(framework.load(tmp_path / "ck"))


def test_open_files_work_as_paths(tmp_path):
    import io

    buf = io.BytesIO()
    framework.save({"w": framework.arange(3.0)}, buf)
    buf.seek(0)
    assert framework.load(buf)["w"].tolist() == [0.0, 1.0, 2.0]


def test_safetensors_header_starting_like_a_pickle_loads(tmp_path):
    # a header of 640-1535 bytes makes the file's first byte 0x80, a pickle's first byte too
    for n in range(1, 60):
        sd = {f"layer{i}.weight": framework.ones(2) for i in range(n)}
        path = tmp_path / f"m{n}.safetensors"
        framework.save(sd, path)
        if path.read_bytes()[:1] == b"\x80":
            break
    else:
        pytest.fail("no state dict gave a header of 640-1535 bytes")
    out = framework.load(path)
    assert sorted(out) == sorted(sd) and all(out[k].tolist() == [1.0, 1.0] for k in out)
