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
