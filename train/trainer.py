"""Trainer: the training loop with callbacks, progress, metrics history, NaN checks and checkpoints.

``fit(train_loader, epochs)`` runs ``train_step(batch) -> dict`` for every batch; override
``train_step`` for anything unusual (GANTrainer does).  Checkpoints hold models, optimizers,
schedulers, RNG states and counters, so ``resume=True`` continues exactly where a run stopped.
"""
from __future__ import annotations

import math
import time

import numpy as np

import framework
from framework import nn

from .callbacks import Callback, History, ProgressBar
from .checkpoint import CheckpointManager


class TrainingError(RuntimeError):
    """Training cannot go on (e.g. the loss became NaN); the message says at which step."""


def _to_device(batch, device: str):
    if isinstance(batch, framework.Tensor):
        return batch.to(device=device)
    if isinstance(batch, (tuple, list)):
        return type(batch)(_to_device(b, device) for b in batch)
    return batch


class Trainer:
    """Supervised training: ``loss_fn(model(x), y)`` per batch; accuracy when the targets are class indices."""

    def __init__(self, model: nn.Module, optimizer, loss_fn, *, scheduler=None, device: str = "cpu",
                 callbacks: list[Callback] | None = None, progress: bool | None = None, out_dir: str | None = None,
                 checkpoint_every: int | None = None, keep_checkpoints: int = 3, compile: bool = False) -> None:
        self.model, self.optimizer, self.loss_fn, self.scheduler = model, optimizer, loss_fn, scheduler
        # compile=True: the step's array work is captured once and replayed (framework.compile); the loss is
        # read on the host outside the compiled step, so reading it is no graph break
        self._step = framework.compile(self._array_step) if compile else self._array_step
        self.device = framework.device(device)
        self.callbacks = list(callbacks or [])
        self.progress, self.out_dir = progress, out_dir
        self.history = History(out_dir)
        self.checkpoint_every = checkpoint_every
        self.checkpoints = CheckpointManager(f"{out_dir}/checkpoints", keep_checkpoints) \
            if out_dir and checkpoint_every else None
        self.step = 0
        self.epoch = 0
        self.started = None
        self.model.to(self.device)  # also to the CPU: a model built on another (default) device follows the trainer

    # ---- what one step does --------------------------------------------------------------------
    def train_step(self, batch) -> dict:
        loss, acc = self._step(*batch)
        logs = {"loss": loss.item()}
        if acc is not None:
            logs["acc"] = acc.item()
        return logs

    def _array_step(self, x, y):
        """zero_grad, forward, backward, optimizer step: (loss, accuracy or None) as tensors (no host reads)."""
        self.optimizer.zero_grad()
        out = self.model(x)
        loss = self.loss_fn(out, y)
        loss.backward()
        self.optimizer.step()
        acc = None
        if not y.is_floating_point() and out.ndim == 2:
            acc = (out.detach().argmax(dim=1) == y).float().mean()
        return loss.detach(), acc

    @framework.no_grad()
    def evaluate(self, loader) -> dict:
        """Mean loss (and accuracy for class targets) over a loader, in eval mode."""
        was_training = self.model.training
        self.model.eval()
        total, n, correct = 0.0, 0, 0
        for batch in loader:
            x, y = _to_device(batch, self.device)
            out = self.model(x)
            total += self.loss_fn(out, y).item() * len(y)
            n += len(y)
            if not y.is_floating_point() and out.ndim == 2:
                correct += int((out.argmax(dim=1) == y).sum().item())
        self.model.train(was_training)
        result = {"loss": total / max(n, 1)}
        if correct or (n and not y.is_floating_point()):
            result["acc"] = correct / max(n, 1)
        return result

    # ---- the loop -----------------------------------------------------------------------------
    def _check_finite(self, logs: dict) -> None:
        for k, v in logs.items():
            if isinstance(v, float) and not math.isfinite(v):
                raise TrainingError(f"{k} became {v} at step {self.step} (epoch {self.epoch}); lower the learning "
                                    "rate or check the data for NaN/Inf values")

    def _notify(self, event: str, *args) -> None:
        for cb in self.callbacks:
            getattr(cb, event)(self, *args)

    def fit(self, train_loader, epochs: int, val_loader=None, resume: bool = False) -> History:
        """Train for ``epochs`` epochs (continuing from the newest checkpoint when resume=True)."""
        if resume:
            self.resume()
        total = epochs * len(train_loader)
        bar = ProgressBar(total, self.progress if self.progress is not None else None)
        self.callbacks.insert(0, bar)
        self.started = time.time()
        self.model.train()
        self._notify("on_train_begin")
        try:
            while self.epoch < epochs:
                self._notify("on_epoch_begin", self.epoch)
                if hasattr(getattr(train_loader, "sampler", None), "set_epoch"):
                    train_loader.sampler.set_epoch(self.epoch)  # a DistributedSampler reshuffles per epoch
                sums: dict = {}
                for batch in train_loader:
                    logs = self.train_step(_to_device(batch, self.device))
                    self._check_finite(logs)
                    self.step += 1
                    for k, v in logs.items():
                        sums[k] = sums.get(k, 0.0) + v
                    self._notify("on_step_end", self.step, logs)
                n = max(len(train_loader), 1)
                row = {"epoch": self.epoch + 1, "step": self.step, **{f"train_{k}": v / n for k, v in sums.items()}}
                if val_loader is not None:
                    row.update({f"val_{k}": v for k, v in self.evaluate(val_loader).items()})
                if self.scheduler is not None:
                    self.scheduler.step()
                row["seconds"] = time.time() - self.started
                self.history.log(row)
                self.epoch += 1
                self._notify("on_epoch_end", self.epoch, row)
                if self.checkpoints and self.epoch % self.checkpoint_every == 0:
                    self.checkpoints.save(self.state_dict(), self.epoch)
        finally:
            self._notify("on_train_end")
            self.callbacks.remove(bar)
            self.history.write()
        return self.history

    # ---- checkpoint state ----------------------------------------------------------------------
    def _modules(self) -> dict:
        return {"model": self.model}

    def _optimizers(self) -> dict:
        return {"optimizer": self.optimizer}

    def _schedulers(self) -> dict:
        return {"scheduler": self.scheduler} if self.scheduler is not None else {}

    def _extra_rng(self) -> dict:
        return {}

    def state_dict(self) -> dict:
        return {
            "modules": {k: m.state_dict() for k, m in self._modules().items()},
            "optimizers": {k: o.state_dict() for k, o in self._optimizers().items()},
            "schedulers": {k: s.state_dict() for k, s in self._schedulers().items()},
            "rng": {"framework": framework.get_rng_state(), **self._extra_rng()},
            "step": self.step, "epoch": self.epoch, "history": self.history.rows,
        }

    def load_state_dict(self, state: dict) -> None:
        for k, m in self._modules().items():
            m.load_state_dict(state["modules"][k])
        for k, o in self._optimizers().items():
            o.load_state_dict(state["optimizers"][k])
        for k, s in self._schedulers().items():
            s.load_state_dict(state["schedulers"][k])
        framework.set_rng_state(state["rng"]["framework"])
        self._load_extra_rng(state["rng"])
        self.step, self.epoch = int(state["step"]), int(state["epoch"])
        self.history.rows = list(state["history"])

    def _load_extra_rng(self, rng: dict) -> None:
        pass

    def resume(self) -> bool:
        """Load the newest readable checkpoint; False when there is none (a fresh start)."""
        if self.checkpoints is None:
            return False
        state = self.checkpoints.load_latest()
        if state is None:
            return False
        self.load_state_dict(state)
        return True


def seed_everything(seed: int) -> np.random.Generator:
    """Seed framework's generator and return a numpy Generator for data sampling."""
    framework.manual_seed(seed)
    return np.random.default_rng(seed)
