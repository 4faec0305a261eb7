"""Callbacks: hooks a Trainer calls at fixed points; ProgressBar (tqdm) and History (metrics files)."""
from __future__ import annotations

import csv
import json
import math
import os
import sys
import time


class Callback:
    """Override any of these; ``trainer`` is the running Trainer, ``logs`` a dict of floats."""

    def on_train_begin(self, trainer) -> None: ...

    def on_epoch_begin(self, trainer, epoch: int) -> None: ...

    def on_step_end(self, trainer, step: int, logs: dict) -> None: ...

    def on_epoch_end(self, trainer, epoch: int, logs: dict) -> None: ...

    def on_train_end(self, trainer) -> None: ...


class ProgressBar(Callback):
    """A tqdm bar with the latest loss(es) and steps/s; silent when not on a terminal or disabled."""

    def __init__(self, total: int, enabled: bool | None = None, desc: str = "train") -> None:
        self.total, self.desc = total, desc
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.bar = None

    def on_train_begin(self, trainer) -> None:
        if self.enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=self.total, initial=trainer.step, desc=self.desc, unit="step", dynamic_ncols=True)

    def on_step_end(self, trainer, step: int, logs: dict) -> None:
        if self.bar is not None:
            self.bar.update(1)
            if step % 10 == 0:
                self.bar.set_postfix({k: f"{v:.4f}" for k, v in logs.items() if isinstance(v, float)}, refresh=False)

    def on_train_end(self, trainer) -> None:
        if self.bar is not None:
            self.bar.close()


class History(Callback):
    """Collects logged rows and writes them as ``metrics.csv`` and ``history.json`` in ``out_dir``."""

    def __init__(self, out_dir: str | None = None) -> None:
        self.out_dir = out_dir
        self.rows: list[dict] = []
        self.started = time.time()

    def log(self, row: dict) -> None:
        self.rows.append({k: (float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
                          for k, v in row.items()})

    def column(self, key: str) -> tuple[list, list]:
        """(steps, values) of one metric, skipping rows without it."""
        xs, ys = [], []
        for r in self.rows:
            if key in r and r[key] is not None and not (isinstance(r[key], float) and math.isnan(r[key])):
                xs.append(r.get("step", len(xs)))
                ys.append(r[key])
        return xs, ys

    def write(self) -> None:
        if not self.out_dir or not self.rows:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        keys = []
        for r in self.rows:
            keys.extend(k for k in r if k not in keys)
        with open(os.path.join(self.out_dir, "metrics.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(self.rows)
        with open(os.path.join(self.out_dir, "history.json"), "w") as f:
            json.dump(self.rows, f, indent=1)

    def on_train_end(self, trainer) -> None:
        self.write()


class TensorBoard(Callback):
    """Logs a run for TensorBoard into ``log_dir`` (framework.utils.tensorboard, needs the tensorboard package).

    Every step: its losses (``train/<name>``) and each optimizer's learning rate (``lr/<optimizer>``); every
    history row (an epoch, or an evaluation): its metrics (``metrics/<name>``); every ``every`` steps (or each
    epoch when ``every`` is None) and at the end: a histogram of every weight (``weights/<model>/<name>``) and
    whatever ``samples(trainer, writer, step)`` logs (sample images).
    """

    _NOT_METRICS = ("step", "epoch", "seconds")

    def __init__(self, log_dir: str, every: int | None = None, samples=None) -> None:
        self.log_dir, self.every, self.samples = log_dir, every, samples
        self.writer = None
        self._rows = 0  # history rows already logged
        self._snapshot_step = None
        self._last_logs: dict = {}  # the latest step's logs (logged per step, so not again from history rows)

    def on_train_begin(self, trainer) -> None:
        from framework.utils.tensorboard import SummaryWriter  # the tensorboard package: only with --tensorboard

        # a resumed run drops what an earlier run logged after the checkpoint it resumes from
        self.writer = SummaryWriter(self.log_dir, purge_step=trainer.step or None)
        self._rows = len(trainer.history.rows)

    def on_step_end(self, trainer, step: int, logs: dict) -> None:
        for name, value in logs.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.writer.add_scalar(f"train/{name}", value, step)
        for name, opt in trainer._optimizers().items():
            for i, group in enumerate(opt.param_groups):
                self.writer.add_scalar(f"lr/{name}" + (f"/{i}" if i else ""), group["lr"], step)
        self._last_logs = logs
        self._log_rows(trainer)
        if self.every and step % self.every == 0:
            self._snapshot(trainer, step)

    def on_epoch_end(self, trainer, epoch: int, logs: dict) -> None:
        self._log_rows(trainer)
        if not self.every:
            self._snapshot(trainer, trainer.step)

    def on_train_end(self, trainer) -> None:
        if self.writer is None:
            return
        self._log_rows(trainer)
        self._snapshot(trainer, trainer.step)
        self.writer.close()

    def _log_rows(self, trainer) -> None:
        """The history rows written since the last call, each at its own step."""
        for row in trainer.history.rows[self._rows:]:
            step = int(row.get("step", trainer.step))
            for name, value in row.items():
                if name in self._NOT_METRICS or name in self._last_logs:
                    continue
                if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                    self.writer.add_scalar(f"metrics/{name}", value, step)
        self._rows = len(trainer.history.rows)

    def _snapshot(self, trainer, step: int) -> None:
        if step == self._snapshot_step:  # the end of training right after a snapshot: nothing new
            return
        self._snapshot_step = step
        for model_name, model in trainer._modules().items():
            for name, p in model.named_parameters():
                self.writer.add_histogram(f"weights/{model_name}/{name}", p, step)
        if self.samples is not None:
            self.samples(trainer, self.writer, step)
        self.writer.flush()
