"""framework.utils.tensorboard.SummaryWriter: what it writes, read back with tensorboard's own EventAccumulator;
PyTorch's SummaryWriter as the oracle for the histogram and image encodings; the trainers' --tensorboard."""
import glob
import importlib
import io
import json
import os
import re
import socket
import sys

import numpy as np
import pytest

import framework
from framework import nn

from conftest import device_name

pytest.importorskip("tensorboard")
from PIL import Image  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from tensorboard.plugins.hparams import api_pb2, metadata  # noqa: E402

from framework.utils.tensorboard import SummaryWriter  # noqa: E402

DEVICE = device_name()
DEV = [] if DEVICE == "cpu" else ["--device", "cuda"]


def read(log_dir) -> EventAccumulator:
    """Every event of the run in ``log_dir`` (no sampling)."""
    return EventAccumulator(str(log_dir), size_guidance={"scalars": 0, "histograms": 0, "images": 0,
                                                         "tensors": 0}).Reload()


def pixels(image_event) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(image_event.encoded_image_string)))


def as_pixels(array: np.ndarray) -> np.ndarray:
    """PyTorch's rule: uint8 as it is, anything else scaled from [0, 1] to [0, 255], clipped, truncated."""
    if array.dtype == np.uint8:
        return array
    return (array.astype(np.float32) * 255).clip(0, 255).astype(np.uint8)


# ---- scalars ---------------------------------------------------------------------------------------------

def test_scalars_from_tensors_arrays_and_numbers_round_trip(tmp_path):
    values = [framework.tensor(0.25, device=DEVICE), np.float32(1.5), 2, -3.125, framework.tensor([7.0]),
              np.array([[0.5]])]
    with SummaryWriter(tmp_path) as w:
        for step, v in enumerate(values):
            w.add_scalar("loss", v, step, walltime=100.0 + step)
        w.add_scalar("precise", 1 / 3, 0, new_style=True, double_precision=True)
    acc = read(tmp_path)
    events = acc.Scalars("loss")
    assert [e.step for e in events] == list(range(len(values)))
    assert [e.value for e in events] == [0.25, 1.5, 2.0, -3.125, 7.0, 0.5]
    assert [e.wall_time for e in events] == [100.0 + s for s in range(len(values))]
    assert acc.Tensors("precise")[0].tensor_proto.double_val == [1 / 3]


def test_scalar_of_many_elements_is_refused(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(AssertionError, match=r"Tensor should contain one element \(0 dimensions\)"):
            w.add_scalar("x", framework.ones(3, device=DEVICE), 0)


def test_add_scalars_writes_one_run_per_key(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("run/loss", {"train": 1.0 / (step + 1), "val": framework.tensor(2.0 * step)}, step)
    assert [e.value for e in read(tmp_path / "run_loss_train").Scalars("run/loss")] == pytest.approx([1, 0.5, 1 / 3])
    assert [e.value for e in read(tmp_path / "run_loss_val").Scalars("run/loss")] == [0.0, 2.0, 4.0]


# ---- histograms ------------------------------------------------------------------------------------------

def _check_histogram(h, values: np.ndarray) -> None:
    """The summary statistics, and every value counted in the bucket that holds it."""
    values = values.astype(np.float64).reshape(-1)
    assert (h.num, h.min, h.max) == (values.size, values.min(), values.max())
    assert h.sum == pytest.approx(values.sum()) and h.sum_squares == pytest.approx(values @ values)
    limits, counts = np.array(h.bucket_limit), np.array(h.bucket)
    assert counts[0] == 0  # the empty bucket whose right edge is the first filled bucket's left edge
    assert np.array_equal(np.histogram(values, bins=limits)[0], counts[1:])
    assert counts.sum() == values.size


def test_histogram_round_trip(tmp_path):
    framework.manual_seed(0)
    weights = framework.randn(500, device=DEVICE) * 3
    ints = np.arange(-20, 30)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("w", weights, 1)
        w.add_histogram("w", weights + 1, 2)
        w.add_histogram("ints", ints, 0, bins=10)
        w.add_histogram("coarse", ints, 0, bins=40, max_bins=7)
    acc = read(tmp_path)
    first, second = acc.Histograms("w")
    assert (first.step, second.step) == (1, 2)
    _check_histogram(first.histogram_value, weights.cpu().numpy())
    _check_histogram(second.histogram_value, (weights + 1).cpu().numpy())
    _check_histogram(acc.Histograms("ints")[0].histogram_value, ints)
    coarse = acc.Histograms("coarse")[0].histogram_value
    assert len(coarse.bucket) <= 40 // 5 + 1 and sum(coarse.bucket) == ints.size  # groups of 40 // 7 bins


def test_histogram_of_nothing_is_refused(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="The input has no element."):
        w.add_histogram("empty", np.zeros(0), 0)


def test_histograms_match_pytorchs(tmp_path):
    torch_tb = pytest.importorskip("torch.utils.tensorboard")
    values = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    with SummaryWriter(tmp_path / "ours") as w, torch_tb.SummaryWriter(str(tmp_path / "theirs")) as t:
        for writer in (w, t):
            writer.add_histogram("default", values, 0)
            writer.add_histogram("auto", values, 0, bins="auto")
            writer.add_histogram("merged", values, 0, bins=50, max_bins=8)
    ours, theirs = read(tmp_path / "ours"), read(tmp_path / "theirs")
    for tag in ("default", "auto", "merged"):
        a, b = ours.Histograms(tag)[0].histogram_value, theirs.Histograms(tag)[0].histogram_value
        assert list(a.bucket) == list(b.bucket) and list(a.bucket_limit) == pytest.approx(list(b.bucket_limit))
        assert (a.min, a.max, a.num) == (b.min, b.max, b.num) and a.sum == pytest.approx(b.sum)


# ---- images, figures, text -------------------------------------------------------------------------------

def test_images_chw_hwc_float_and_uint8_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    chw = rng.random((3, 6, 10)).astype(np.float32)
    chw[0, 0, 0], chw[1, 0, 0] = 1.7, -0.3  # out of [0, 1]: clipped
    hwc_u8 = rng.integers(0, 256, (6, 10, 3)).astype(np.uint8)
    gray = rng.random((6, 10))
    with SummaryWriter(tmp_path) as w:
        w.add_image("chw_float", framework.from_numpy(chw).to(DEVICE), 0)
        w.add_image("hwc_float", chw.transpose(1, 2, 0), 0, dataformats="HWC")
        w.add_image("chw_uint8", framework.from_numpy(hwc_u8.transpose(2, 0, 1).copy()).to(DEVICE), 0)
        w.add_image("hwc_uint8", hwc_u8, 0, dataformats="HWC")
        w.add_image("hw", gray, 0, dataformats="HW")
        w.add_image("one_channel", gray[None], 0)
    acc = read(tmp_path)
    want = as_pixels(chw.transpose(1, 2, 0))
    for tag in ("chw_float", "hwc_float"):
        img = acc.Images(tag)[0]
        assert (img.width, img.height) == (10, 6)
        assert np.array_equal(pixels(img), want)
    assert want[0, 0, 0] == 255 and want[0, 0, 1] == 0
    for tag in ("chw_uint8", "hwc_uint8"):
        assert np.array_equal(pixels(acc.Images(tag)[0]), hwc_u8)
    for tag in ("hw", "one_channel"):  # gray: the same value in R, G and B
        assert np.array_equal(pixels(acc.Images(tag)[0]), np.repeat(as_pixels(gray)[:, :, None], 3, axis=2))


def test_add_images_lays_a_batch_out_as_pytorch_does(tmp_path):
    torch_tb = pytest.importorskip("torch.utils.tensorboard")
    batch = np.random.default_rng(2).random((11, 3, 4, 5)).astype(np.float32)  # 8 columns: a second, short row
    with SummaryWriter(tmp_path / "ours") as w, torch_tb.SummaryWriter(str(tmp_path / "theirs")) as t:
        for writer in (w, t):
            writer.add_images("nchw", batch, 0)
            writer.add_images("nhwc", batch.transpose(0, 2, 3, 1), 0, dataformats="NHWC")
            writer.add_images("gray", batch[:, :1], 0)
    ours, theirs = read(tmp_path / "ours"), read(tmp_path / "theirs")
    for tag in ("nchw", "nhwc", "gray"):
        mine = pixels(ours.Images(tag)[0])
        assert mine.shape == (2 * 4, 8 * 5, 3)
        assert np.array_equal(mine, pixels(theirs.Images(tag)[0]))
    assert np.array_equal(pixels(ours.Images("nchw")[0])[4:8, 5:10], as_pixels(batch[9].transpose(1, 2, 0)))


def test_bad_dataformats_are_refused(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(AssertionError, match="size of input tensor and input format are different."):
            w.add_image("x", np.zeros((3, 4, 4)), 0, dataformats="HW")
        with pytest.raises(AssertionError, match="You can not use the same dimension shorthand twice."):
            w.add_image("x", np.zeros((3, 4, 4)), 0, dataformats="CHH")


def test_figure_is_rendered_and_closed(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=50)
    plt.plot([0, 1], [0, 1], color="red", linewidth=4)
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 3)
        kept = plt.figure(figsize=(1, 1), dpi=40)
        w.add_figure("figs", [kept, kept], 4, close=False)
    still_open = [plt.figure(n) for n in plt.get_fignums()]
    assert not any(f is fig for f in still_open) and any(f is kept for f in still_open)
    plt.close(kept)
    acc = read(tmp_path)
    img = acc.Images("fig")[0]
    assert (img.step, img.width, img.height) == (3, 100, 50)
    rgb = pixels(img).astype(int)
    assert ((rgb[:, :, 0] > 200) & (rgb[:, :, 1] < 80) & (rgb[:, :, 2] < 80)).any()  # the red line is drawn
    assert (acc.Images("figs")[0].width, acc.Images("figs")[0].height) == (80, 40)  # two figures side by side


def test_text_round_trip(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "lr **0.1**, ünïcode", 5)
    event = read(tmp_path).Tensors("notes/text_summary")[0]
    assert event.step == 5 and event.tensor_proto.string_val == ["lr **0.1**, ünïcode".encode()]
    assert read(tmp_path).SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"


# ---- hyperparameters and the graph -----------------------------------------------------------------------

def test_hparams_round_trip(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"lr": 0.01, "optimizer": "adam", "batchnorm": True, "layers": 3,
                       "decay": framework.tensor(0.5, device=DEVICE), "unused": None},
                      {"hparam/accuracy": 0.9, "hparam/loss": framework.tensor(0.25)},
                      hparam_domain_discrete={"optimizer": ["adam", "sgd"]}, run_name="trial")
    acc = read(tmp_path / "trial")
    content = acc.PluginTagToContent("hparams")
    start = metadata.parse_session_start_info_plugin_data(content[metadata.SESSION_START_INFO_TAG])
    assert start.hparams["lr"].number_value == 0.01 and start.hparams["optimizer"].string_value == "adam"
    assert start.hparams["batchnorm"].bool_value is True and start.hparams["layers"].number_value == 3
    assert start.hparams["decay"].number_value == 0.5 and "unused" not in start.hparams
    experiment = metadata.parse_experiment_plugin_data(content[metadata.EXPERIMENT_TAG])
    infos = {i.name: i for i in experiment.hparam_infos}
    assert infos["optimizer"].type == api_pb2.DATA_TYPE_STRING
    assert list(infos["optimizer"].domain_discrete.values) and \
        [v.string_value for v in infos["optimizer"].domain_discrete.values] == ["adam", "sgd"]
    assert infos["batchnorm"].type == api_pb2.DATA_TYPE_BOOL and infos["lr"].type == api_pb2.DATA_TYPE_FLOAT64
    assert [m.name.tag for m in experiment.metric_infos] == ["hparam/accuracy", "hparam/loss"]
    end = metadata.parse_session_end_info_plugin_data(content[metadata.SESSION_END_INFO_TAG])
    assert end.status == api_pb2.STATUS_SUCCESS
    assert acc.Scalars("hparam/accuracy")[0].value == pytest.approx(0.9)
    assert acc.Scalars("hparam/loss")[0].value == 0.25


def test_hparams_refuse_what_pytorch_refuses(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary."):
            w.add_hparams([("lr", 0.1)], {})
        with pytest.raises(TypeError, match=r"hparam_domain_discrete\[lr\] should be a list of same type"):
            w.add_hparams({"lr": 0.1}, {}, hparam_domain_discrete={"lr": ["a"]})
        with pytest.raises(ValueError, match="value should be one of int, float, str, bool, or torch.Tensor"):
            w.add_hparams({"lr": [0.1]}, {})


def test_graph_of_a_model(tmp_path):
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).to(DEVICE)
    with SummaryWriter(tmp_path) as w:
        w.add_graph(model, framework.randn(5, 4, device=DEVICE))
    nodes = {n.name: n for n in read(tmp_path).Graph().node}
    params = {n for n, node in nodes.items() if node.op == "Parameter"}
    assert params == {"Sequential/0/weight", "Sequential/0/bias", "Sequential/2/weight", "Sequential/2/bias"}
    assert nodes["input/0"].op == "Input" and nodes["input/0"].attr["shape"].s == b"(5, 4)"
    (out,) = [n for n in nodes.values() if n.op == "Output"]
    assert out.attr["shape"].s == b"(5, 2)"

    def sources(name):  # every node upstream of ``name``
        seen, todo = set(), [name]
        while todo:
            for i in nodes[todo.pop()].input:
                if i not in seen:
                    seen.add(i)
                    todo.append(i)
        return seen

    assert params | {"input/0"} <= sources(out.name)  # every parameter and the input reach the output
    assert any(nodes[n].op == "ReluBackward0" for n in sources(out.name))
    assert "Sequential/2/weight" not in sources(next(n for n in nodes if nodes[n].op == "ReluBackward0"))
    assert all(p.grad is None for p in model.parameters())  # nothing was run backward


# ---- the writer itself -----------------------------------------------------------------------------------

def test_default_log_dir_is_pytorchs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lr0.1") as w:
        w.add_scalar("x", 1.0, 0)
    pattern = r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_" + re.escape(socket.gethostname()) + r"_lr0\.1"
    assert re.fullmatch(pattern, w.get_logdir().replace(os.sep, "/"))
    assert glob.glob(os.path.join(w.get_logdir(), "events.out.tfevents.*"))


def test_flush_close_reopen_suffix_and_purge_step(tmp_path):
    w = SummaryWriter(tmp_path, filename_suffix=".first", max_queue=1000, flush_secs=3600)
    w.add_scalar("x", 1.0, 0)
    w.flush()  # written now, although the queue is far from full
    assert [e.value for e in read(tmp_path).Scalars("x")] == [1.0]
    w.close()
    w.add_scalar("x", 2.0, 1)  # after close, a new event file
    w.close()
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*.first"))) == 2
    with SummaryWriter(tmp_path, purge_step=1) as again:  # a restart at step 1: the earlier step 1 is dropped
        again.add_scalar("x", 3.0, 1)
    assert [(e.step, e.value) for e in read(tmp_path).Scalars("x")] == [(0, 1.0), (1, 3.0)]


def test_without_tensorboard_the_import_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "tensorboard" or m.startswith(("tensorboard.",
                                                                                "framework.utils.tensorboard"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tensorboard", None)  # `import tensorboard` now raises ImportError
    with pytest.raises(ImportError, match=re.escape('pip install "framework[tensorboard]"')):
        importlib.import_module("framework.utils.tensorboard")
    from train.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["classify", "--data", "moons", "--tensorboard", "--epochs", "1"])
    assert exit_.value.code == 2


# ---- the trainers' --tensorboard -------------------------------------------------------------------------

def test_classify_tensorboard_logs_the_loss_curve_metrics_and_weights(tmp_path, capsys):
    from train.cli import main

    out = tmp_path / "run"
    assert main(["classify", *DEV, "--data", "moons", "--epochs", "2", "--batch-size", "200", "--out", str(out),
                 "--no-progress", "--tensorboard"]) == 0
    assert "tensorboard/" in capsys.readouterr().out
    history = json.loads((out / "metrics.json").read_text())["history"]
    acc = read(out / "tensorboard")
    losses = acc.Scalars("train/loss")
    steps = int(history[-1]["step"])
    assert [e.step for e in losses] == list(range(1, steps + 1))
    per_epoch = steps // 2  # the epoch's mean of the logged step losses is the history's train_loss
    for epoch, row in enumerate(history):
        logged = [e.value for e in losses[epoch * per_epoch:(epoch + 1) * per_epoch]]
        assert np.mean(logged) == pytest.approx(row["train_loss"], rel=1e-6)
    assert [e.value for e in acc.Scalars("metrics/val_acc")] == pytest.approx([r["val_acc"] for r in history])
    assert [e.step for e in acc.Scalars("metrics/val_acc")] == [r["step"] for r in history]
    lrs = [e.value for e in acc.Scalars("lr/optimizer")]
    assert lrs[0] == pytest.approx(0.01) and lrs[-1] < lrs[0]  # the cosine schedule, stepped each epoch
    assert {"weights/model/0.weight", "weights/model/0.bias"} <= set(acc.Tags()["histograms"])
    assert [e.step for e in acc.Images("samples/decision_boundary")] == [per_epoch, steps]


def test_gan_tensorboard_logs_both_losses_and_samples(tmp_path):
    from train.cli import main

    out = tmp_path / "gan"
    assert main(["gan", *DEV, "--quick", "--steps", "12", "--batch-size", "64", "--eval-every", "6", "--out",
                 str(out), "--no-progress", "--tensorboard"]) == 0
    history = json.loads((out / "metrics.json").read_text())["history"]
    acc = read(out / "tensorboard")
    for name in ("loss_d", "loss_g"):
        curve = {e.step: e.value for e in acc.Scalars(f"train/{name}")}
        assert sorted(curve) == list(range(1, 13))
        for row in history:  # the history's rows (steps 1, 6, 10, 12) agree with the curve
            assert curve[row["step"]] == pytest.approx(row[name], rel=1e-6)
    assert [e.step for e in acc.Scalars("metrics/modes_covered")] == [6, 12]
    assert {"lr/G", "lr/D"} <= set(acc.Tags()["scalars"])
    assert any(t.startswith("weights/G/") for t in acc.Tags()["histograms"])
    assert any(t.startswith("weights/D/") for t in acc.Tags()["histograms"])
    assert [e.step for e in acc.Images("samples/generated")] == [6, 12]


PYTORCH_SCRIPT = '''
import torch
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(0)
writer = SummaryWriter(LOG_DIR)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    x = torch.randn(8, 2)
    loss = ((model(x) - x.sum(1, keepdim=True)) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    writer.add_scalar("Loss/train", loss, step)  # a tensor that requires grad, as tutorials pass it
    writer.add_histogram("weight", model.weight, step)
writer.add_graph(model, torch.randn(3, 2))
writer.close()
'''


@pytest.mark.explicit_device
@pytest.mark.parametrize("backend", ["framework", "torch"])
def test_a_pytorch_script_runs_with_framework_as_torch(tmp_path, backend):
    if backend == "torch":
        pytest.importorskip("torch")
    source = PYTORCH_SCRIPT if backend == "torch" else re.sub(r"\btorch\b", "framework", PYTORCH_SCRIPT)
    exec(compile(source, "script.py", "exec"), {"LOG_DIR": str(tmp_path)})
    acc = read(tmp_path)
    assert [e.step for e in acc.Scalars("Loss/train")] == [0, 1, 2, 3, 4]
    assert acc.Scalars("Loss/train")[-1].value < acc.Scalars("Loss/train")[0].value
    assert len(acc.Histograms("weight")) == 5 and acc.Graph() is not None
