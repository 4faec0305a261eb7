"""SummaryWriter and FileWriter: torch.utils.tensorboard's classes, writing through tensorboard's EventFileWriter."""
from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary
from .graph import graph_def


class FileWriter:
    """Wraps summaries in Event protobufs and hands them to tensorboard's EventFileWriter (one event file)."""

    def __init__(self, log_dir, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = "") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step=None, walltime: float | None = None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)  # a NumPy or 0-d Tensor step is not accepted by every protobuf version
        self.event_writer.add_event(event)

    def add_summary(self, summary_pb, global_step=None, walltime: float | None = None) -> None:
        self.add_event(Event(summary=summary_pb), global_step, walltime)

    def add_graph(self, graph, walltime: float | None = None) -> None:
        self.add_event(Event(graph_def=graph.SerializeToString()), None, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()

    def reopen(self) -> None:
        self.event_writer.reopen()


def default_log_dir(comment: str = "") -> str:
    """PyTorch's default: runs/<Mon><DD>_<HH>-<MM>-<SS>_<hostname><comment>."""
    return os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname() + comment)


class SummaryWriter:
    """Writes scalars, histograms, images, figures, text, hyperparameters and the model graph for TensorBoard.

    Values may be framework Tensors (on any device), NumPy arrays or Python numbers.
    """

    def __init__(self, log_dir=None, comment: str = "", purge_step: int | None = None, max_queue: int = 10,
                 flush_secs: float = 120, filename_suffix: str = "") -> None:
        self.log_dir = str(log_dir) if log_dir else default_log_dir(comment)
        self.purge_step, self.max_queue, self.flush_secs = purge_step, max_queue, flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict | None = None
        self._get_file_writer()

    def _get_file_writer(self) -> FileWriter:
        """The main FileWriter, made again after close()."""
        if self.file_writer is None or self.all_writers is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # a restart marker: TensorBoard drops the events at or after this step written by an earlier run
                self.file_writer.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    # ---- numbers ------------------------------------------------------------------------------------
    def add_scalar(self, tag: str, scalar_value, global_step=None, walltime: float | None = None,
                   new_style: bool = False, double_precision: bool = False) -> None:
        """One value of the curve ``tag`` at ``global_step``."""
        self._get_file_writer().add_summary(summary.scalar(tag, scalar_value, new_style, double_precision),
                                            global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step=None,
                    walltime: float | None = None) -> None:
        """Several curves on one chart: each key is written to its own run, ``<log_dir>/<main_tag>_<key>``."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for key, value in tag_scalar_dict.items():
            run_dir = base + "/" + main_tag.replace("/", "_") + "_" + key
            writer = self.all_writers.get(run_dir)
            if writer is None:
                writer = self.all_writers[run_dir] = FileWriter(run_dir, self.max_queue, self.flush_secs,
                                                                self.filename_suffix)
            writer.add_summary(summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag: str, values, global_step=None, bins="tensorflow", walltime: float | None = None,
                      max_bins: int | None = None) -> None:
        """The distribution of ``values`` (default bins: TensorFlow's exponential ones, as PyTorch's)."""
        self._get_file_writer().add_summary(summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    # ---- pictures and text --------------------------------------------------------------------------
    def add_image(self, tag: str, img_tensor, global_step=None, walltime: float | None = None,
                  dataformats: str = "CHW") -> None:
        """One image: float values in [0, 1] or uint8 in [0, 255]; dataformats CHW, HWC, HW (or NCHW: a grid)."""
        self._get_file_writer().add_summary(summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag: str, img_tensor, global_step=None, walltime: float | None = None,
                   dataformats: str = "NCHW") -> None:
        """A batch of images shown as one grid of up to 8 columns (dataformats NCHW or NHWC)."""
        self._get_file_writer().add_summary(summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_figure(self, tag: str, figure, global_step=None, close: bool = True,
                   walltime: float | None = None) -> None:
        """A matplotlib figure (or a list of them, as a grid) rendered to an image; closed unless close=False."""
        images = summary.figure_to_image(figure, close)
        self.add_image(tag, images, global_step, walltime, dataformats="NCHW" if images.ndim == 4 else "CHW")

    def add_text(self, tag: str, text_string: str, global_step=None, walltime: float | None = None) -> None:
        """Markdown text, shown under ``tag`` in TensorBoard's text tab."""
        self._get_file_writer().add_summary(summary.text(tag, text_string), global_step, walltime)

    # ---- runs and models ----------------------------------------------------------------------------
    def add_hparams(self, hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None,
                    run_name: str | None = None, global_step=None) -> None:
        """Hyperparameters and final metrics of a run, in the sub-run ``run_name`` (default: the current time)."""
        exp, start, end = summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run_dir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=run_dir) as w:
            for pb in (exp, start, end):
                w.file_writer.add_summary(pb, global_step)
            for tag, value in metric_dict.items():
                w.add_scalar(tag, value, global_step)

    def add_graph(self, model, input_to_model=None, verbose: bool = False, use_strict_trace: bool = True) -> None:
        """The autograd graph of ``model(input_to_model)``: backward nodes as ops, parameters by their names."""
        graph = graph_def(model, input_to_model)
        if verbose:
            print(graph)
        self._get_file_writer().add_graph(graph)

    # ---- files --------------------------------------------------------------------------------------
    def flush(self) -> None:
        """Write every pending event to disk."""
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every event file (a later add_* opens a new one)."""
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.close()
