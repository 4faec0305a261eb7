"""Summary protobufs (tensorboard's own classes) built from Tensors, NumPy arrays and numbers.

The shapes match what torch.utils.tensorboard writes, so TensorBoard and tools that read PyTorch's event files
(e.g. tensorboard's EventAccumulator) see the same thing: scalars as ``simple_value``, histograms as
``HistogramProto``, images as PNG ``Summary.Image``, text through the text plugin, hyperparameters through the
hparams plugin.
"""
from __future__ import annotations

import io
import time

import numpy as np
from PIL import Image
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.plugins.hparams import api_pb2
from tensorboard.plugins.hparams import metadata as hparams_metadata
from tensorboard.plugins.hparams import plugin_data_pb2
from tensorboard.plugins.hparams import summary_v2 as hparams_v2
from tensorboard.plugins.text import summary_v2 as text_v2

from ... import backend
from ...tensor import Tensor


def to_numpy(value) -> np.ndarray:
    """A host NumPy array from a Tensor (any device), a NumPy/CuPy array, a list or a Python number."""
    if isinstance(value, Tensor):
        return value.detach().cpu().numpy()
    return backend.to_numpy(value)


def _tensorflow_bins() -> np.ndarray:
    """The default histogram edges of TensorFlow and PyTorch: +-1e-12 * 1.1**k up to 1e20, and 0."""
    positive = []
    v = 1e-12
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return np.array([-x for x in reversed(positive)] + [0.0] + positive)


DEFAULT_BINS = _tensorflow_bins()


def scalar(tag: str, value, new_style: bool = False, double_precision: bool = False) -> Summary:
    """One number: ``simple_value`` (or, with new_style, a float/double tensor for the scalars plugin)."""
    array = to_numpy(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {array.size} and "
                             f"{array.ndim} dimensions.")
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=number)])
    tensor = TensorProto(double_val=[number], dtype="DT_DOUBLE") if double_precision else \
        TensorProto(float_val=[number], dtype="DT_FLOAT")
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=tensor, metadata=meta)])


def histogram(tag: str, values, bins="tensorflow", max_bins: int | None = None) -> Summary:
    """A HistogramProto of ``values`` over ``bins`` (edges, a count, or numpy's names such as 'auto')."""
    flat = to_numpy(values).astype(np.float64).reshape(-1)
    if flat.size == 0:
        raise ValueError("The input has no element.")
    counts, edges = np.histogram(flat, bins=DEFAULT_BINS if isinstance(bins, str) and bins == "tensorflow" else bins)
    if max_bins is not None and len(counts) > max_bins:
        # merge groups of len // max_bins neighbouring bins (PyTorch's grouping: it can leave a few more than
        # max_bins), keeping the outer edges; the last group is padded with empty bins
        group = len(counts) // max_bins
        pad = (-len(counts)) % group
        counts = np.concatenate([counts, np.zeros(pad, counts.dtype)]).reshape(-1, group).sum(axis=1)
        edges = np.concatenate([edges[:-1:group], edges[-1:]])
    filled = np.flatnonzero(counts)
    if filled.size == 0:
        raise ValueError("The histogram is empty: no value lies within the bins.")
    first, last = int(filled[0]), int(filled[-1]) + 1
    # bucket_limit holds each bucket's right edge: an empty bucket before the first filled one keeps its left edge
    if first > 0:
        counts, limits = counts[first - 1:last], edges[first:last + 1]
    else:
        counts, limits = np.concatenate([[0], counts[:last]]), edges[:last + 1]
    hist = HistogramProto(min=float(flat.min()), max=float(flat.max()), num=int(flat.size), sum=float(flat.sum()),
                          sum_squares=float(flat @ flat), bucket_limit=limits.tolist(), bucket=counts.tolist())
    return Summary(value=[Summary.Value(tag=tag, histo=hist)])


def _check_format(array: np.ndarray, dataformats: str) -> str:
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt):
        raise AssertionError(f"You can not use the same dimension shorthand twice. input_format: {dataformats}")
    if array.ndim != len(fmt):
        raise AssertionError(f"size of input tensor and input format are different. tensor shape: {array.shape}, "
                             f"input_format: {dataformats}")
    if set(fmt) - set("NCHW"):
        raise ValueError(f"dataformats {dataformats!r}: use the letters N, C, H and W (e.g. 'CHW', 'HWC', 'NCHW')")
    return fmt


def image_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """N images (NCHW) laid out in rows of ``ncols`` on one CHW canvas (one-channel images made RGB)."""
    if images.shape[1] == 1:
        images = np.repeat(images, 3, axis=1)
    n, c, h, w = images.shape
    cols = min(n, ncols)
    rows = -(-n // cols)
    canvas = np.zeros((c, rows * h, cols * w), dtype=images.dtype)
    for i in range(n):
        r, k = divmod(i, cols)
        canvas[:, r * h:(r + 1) * h, k * w:(k + 1) * w] = images[i]
    return canvas


def to_hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    """An HWC array (1, 3 or 4 channels; gray made RGB) from an image or a batch of images in ``dataformats``."""
    fmt = _check_format(array, dataformats)
    if len(fmt) == 4:
        grid = image_grid(array.transpose([fmt.index(ch) for ch in "NCHW"]))
        return grid.transpose(1, 2, 0)
    if len(fmt) == 2:
        array = array.transpose([fmt.index(ch) for ch in "HW"])[:, :, None]
    else:
        array = array.transpose([fmt.index(ch) for ch in "HWC"])
    if array.shape[2] == 1:
        array = np.repeat(array, 3, axis=2)
    if array.shape[2] not in (3, 4):
        raise ValueError(f"an image needs 1, 3 or 4 channels, got {array.shape[2]} (HWC shape {array.shape})")
    return array


def encode_image(hwc: np.ndarray) -> Summary.Image:
    """A PNG ``Summary.Image`` of a uint8 HWC array."""
    buffer = io.BytesIO()
    Image.fromarray(hwc).save(buffer, format="PNG")
    height, width, channels = hwc.shape
    return Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=buffer.getvalue())


def image(tag: str, img, dataformats: str = "CHW") -> Summary:
    """One image (or a grid of a batch): uint8 values as they are, other dtypes scaled from [0, 1] to [0, 255]."""
    array = to_numpy(img)
    hwc = to_hwc(array, dataformats)
    scale = 1 if array.dtype == np.uint8 else 255
    pixels = (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=encode_image(pixels))])


def figure_to_image(figures, close: bool = True) -> np.ndarray:
    """A matplotlib figure as a uint8 CHW array (a list of figures: NCHW), rendered with the Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # optional dependency: only for add_figure
    import matplotlib.pyplot as plt  # optional dependency: only for add_figure

    def render(figure) -> np.ndarray:
        if close:  # before the Agg canvas replaces pyplot's: plt.close finds the figure through its canvas
            plt.close(figure)
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba())
        return np.ascontiguousarray(rgba[:, :, :3].transpose(2, 0, 1))

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)


def text(tag: str, text_string: str) -> Summary:
    """A text summary (markdown in TensorBoard) under ``tag/text_summary``, as PyTorch names it."""
    return text_v2.text_pb(f"{tag}/text_summary", text_string)


def _hparam_value(name: str, value):
    """A hyperparameter as bool, float or str; a one-element Tensor or array as its number."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        return float(to_numpy(value).reshape(-1)[0])
    raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")


_HPARAM_TYPES = {bool: api_pb2.DATA_TYPE_BOOL, str: api_pb2.DATA_TYPE_STRING}


def hparams(hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None) -> tuple:
    """The hparams plugin's three summaries: the experiment (names and types), the session's values, its end."""
    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("hparam_dict and metric_dict should be dictionary.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    values = {k: _hparam_value(k, v) for k, v in hparam_dict.items() if v is not None}
    infos = []
    for name, value in values.items():
        info = api_pb2.HParamInfo(name=name, type=_HPARAM_TYPES.get(type(value), api_pb2.DATA_TYPE_FLOAT64))
        if name in domains:
            hparams_v2.Discrete(domains[name]).update_hparam_info(info)
        infos.append(info)
    now = time.time()
    experiment = api_pb2.Experiment(hparam_infos=infos, time_created_secs=now, metric_infos=[
        api_pb2.MetricInfo(name=api_pb2.MetricName(tag=tag)) for tag in metric_dict])
    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.STATUS_SUCCESS, end_time_secs=now)
    return (_hparams_summary(hparams_metadata.EXPERIMENT_TAG, plugin_data_pb2.HParamsPluginData(experiment=experiment)),
            hparams_v2.hparams_pb(values, start_time_secs=now),
            _hparams_summary(hparams_metadata.SESSION_END_INFO_TAG,
                             plugin_data_pb2.HParamsPluginData(session_end_info=end)))


def _hparams_summary(tag: str, plugin_data) -> Summary:
    meta = hparams_metadata.create_summary_metadata(plugin_data)
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=hparams_metadata.NULL_TENSOR)])
