"""GANTrainer: one step = D step on real and ``fake.detach()``, then G step on a *fresh* ``D(fake)``.

This is seed 002's lesson in code.  ``fake.detach()`` keeps D's loss from reaching G; computing
``D(fake)`` again after ``opt_d.step()`` means G's backward never meets D's parameters as they were
before the step (they were changed in place, so that would be the version-counter error).
``mode="retain_graph"`` shows the other legal way: one D forward on ``fake`` for both losses, the first
backward with ``retain_graph=True`` (the second one needs the same saved tensors) and both optimizer
steps only after both backward passes.

Options from ``gan_techniques``: ``r1`` adds an R1 gradient penalty to D's loss (a double backward through D),
``pack`` makes D judge ``pack`` samples at a time (pass a ``Packed`` D), ``ema`` evaluates an average of G,
``d_steps`` runs that many D updates (each on its own real rows and fresh z, on ``fake.detach()``) per G update,
``noise="uniform"`` draws z uniformly from [-1, 1]^latent_dim instead of from a standard normal.
"""
from __future__ import annotations

import copy
import time

import numpy as np

import framework
import framework.nn.functional as F
from framework import nn

from .callbacks import ProgressBar
from .gan_techniques import r1_penalty
from .trainer import Trainer, TrainingError


class GANTrainer(Trainer):
    """Trains generator ``G`` against discriminator ``D`` for a number of steps on sampled real data."""

    # Data parallel (--distributed): every rank draws the same global batch of world_size x batch_size
    # (same seeds, same random state) and trains on its own slice of it.
    rank, world_size = 0, 1

    def __init__(self, G: nn.Module, D: nn.Module, opt_g, opt_d, sample_real, *, latent_dim: int,
                 batch_size: int = 256, mode: str = "detach", schedulers: dict | None = None, device: str = "cpu",
                 callbacks=None, progress: bool | None = None, out_dir: str | None = None,
                 checkpoint_every: int | None = None, eval_every: int | None = None, evaluate_fn=None,
                 data_seed: int = 0, keep_checkpoints: int = 3, ema: float | None = None, r1: float = 0.0,
                 pack: int = 1, d_steps: int = 1, noise: str = "normal", compile: bool = False) -> None:
        if mode not in ("detach", "retain_graph"):
            raise ValueError(f"mode must be 'detach' or 'retain_graph', not {mode!r}")
        if noise not in ("normal", "uniform"):
            raise ValueError(f"noise must be 'normal' or 'uniform', not {noise!r}")
        self.noise = noise
        super().__init__(G, opt_g, None, device=device, callbacks=callbacks, progress=progress, out_dir=out_dir,
                         checkpoint_every=checkpoint_every, keep_checkpoints=keep_checkpoints, compile=compile)
        self.G, self.D, self.opt_g, self.opt_d = G, D, opt_g, opt_d
        self.D.to(self.device)  # also to the CPU: a model built on another (default) device follows the trainer
        self.sample_real, self.latent_dim, self.batch_size, self.mode = sample_real, latent_dim, batch_size, mode
        self.gan_schedulers = dict(schedulers or {})
        self.eval_every, self.evaluate_fn = eval_every, evaluate_fn
        self.data_rng = np.random.default_rng(data_seed)
        self.snapshots: list = []  # (step, generated samples) for plots
        # an exponential moving average of G's weights (evaluated and saved instead of the raw G when set)
        self.ema = ema
        self.G_ema = copy.deepcopy(getattr(G, "module", G)) if ema else None  # unwrapped from DDP
        self.r1, self.pack = r1, pack
        if d_steps < 1:
            raise ValueError(f"d_steps must be at least 1, not {d_steps}")
        self.d_steps = d_steps  # D updates per G update; each draws its own real batch and z
        self.seconds = 0.0
        self.ones = framework.ones(batch_size, 1, device=self.device)
        self.zeros = framework.zeros(batch_size, 1, device=self.device)

    # ---- one step ------------------------------------------------------------------------------
    def train_step(self, real) -> dict:
        loss_d, loss_g = self._step(real)
        if self.G_ema is not None:
            self._update_ema()
        return {"loss_d": loss_d.item(), "loss_g": loss_g.item()}  # read outside the (compiled) step

    def _array_step(self, real):
        """Both updates; the losses come back as tensors (no host reads: the step can be compiled)."""
        n = real.shape[0] // self.d_steps
        for i in range(self.d_steps - 1):  # extra D updates (--d-steps), each on its own real rows and fresh z
            fake = self.G(self._z())
            self._d_update(self._d_loss(real[i * n:(i + 1) * n], fake.detach()))
        real = real[(self.d_steps - 1) * n:] if self.d_steps > 1 else real
        fake = self.G(self._z())
        if self.mode == "detach":
            loss_d = self._d_loss(real, fake.detach())
            self._d_update(loss_d)
            loss_g = F.binary_cross_entropy_with_logits(self.D(fake), self.ones)  # fresh D(fake), after the D step
            self.opt_g.zero_grad()
            loss_g.backward()
            self.opt_g.step()
        else:
            d_fake = self.D(fake)
            loss_g = F.binary_cross_entropy_with_logits(d_fake, self.ones)
            loss_d = self._d_loss(real, d_fake=d_fake)
            self.opt_g.zero_grad()
            loss_g.backward(retain_graph=True, inputs=list(self.G.parameters()))  # loss_d needs d_fake's graph too
            self.opt_d.zero_grad()
            loss_d.backward(inputs=list(self.D.parameters()))
            self.opt_d.step()  # steps only now: no backward left that would see the old parameters
            self.opt_g.step()
        return loss_d.detach(), loss_g.detach()

    def _z(self):
        return self._shard(self._latent(self.batch_size * self.pack * self.world_size))

    def _latent(self, n: int, generator=None):
        """n latent vectors: standard normal, or uniform on [-1, 1] with ``noise="uniform"``."""
        if self.noise == "uniform":  # a square of latents, the shape of the grid's square of modes
            return framework.rand(n, self.latent_dim, generator=generator, device=self.device) * 2 - 1
        return framework.randn(n, self.latent_dim, generator=generator, device=self.device)

    def _d_loss(self, real, fake=None, d_fake=None):
        """D's loss on real rows and on ``fake`` (detached by the caller) or on given logits ``d_fake``."""
        if self.r1:
            real.requires_grad_(True)  # the R1 penalty differentiates D with respect to its input
        d_real = self.D(real)
        d_fake = self.D(fake) if d_fake is None else d_fake
        loss_d = F.binary_cross_entropy_with_logits(d_real, self.ones) + \
            F.binary_cross_entropy_with_logits(d_fake, self.zeros)
        if self.r1:
            loss_d = loss_d + r1_penalty(d_real, real, self.r1)
        return loss_d

    def _d_update(self, loss_d) -> None:
        self.opt_d.zero_grad()
        loss_d.backward()
        self.opt_d.step()

    def _shard(self, batch, d_steps: int = 1):
        """This rank's rows of a global batch (all of it in a single process); with packing, pack x the rows,
        and for real data one batch per D update."""
        n = self.batch_size * self.pack * d_steps
        return batch[self.rank * n:(self.rank + 1) * n]

    @framework.no_grad()
    def _update_ema(self) -> None:
        for avg, p in zip(self.G_ema.parameters(), self.G.parameters()):
            avg.lerp_(p, 1 - self.ema)
        for avg, b in zip(self.G_ema.buffers(), self.G.buffers()):
            avg.copy_(b)

    # ---- evaluation ----------------------------------------------------------------------------
    @framework.no_grad()
    def generate(self, n: int, seed: int = 12345) -> np.ndarray:
        """n samples from G, always from the same latent vectors (a generator of its own, seeded)."""
        gen = framework.Generator(seed)
        model = self.G_ema if self.G_ema is not None else self.G
        was = model.training
        model.eval()
        z = self._latent(n, gen)
        out = model(z).cpu().numpy()
        model.train(was)
        return out

    def _evaluate(self) -> dict:
        samples = self.generate(2500)
        self.snapshots.append((self.step, samples))
        return self.evaluate_fn(samples) if self.evaluate_fn is not None else {}

    # ---- the loop -----------------------------------------------------------------------------
    def fit(self, steps: int, resume: bool = False):
        if resume:
            self.resume()
        bar = ProgressBar(steps, self.progress)
        self.callbacks.insert(0, bar)
        t0 = time.time() - self.seconds
        self.G.train()
        self.D.train()
        self._notify("on_train_begin")
        try:
            while self.step < steps:
                real = self.sample_real(self.batch_size * self.pack * self.world_size * self.d_steps, self.data_rng)
                real = framework.from_numpy(self._shard(real, self.d_steps)).to(device=self.device)
                logs = self.train_step(real)
                self.step += 1
                self._check_finite(logs)
                for s in self.gan_schedulers.values():
                    s.step()
                row = {"step": self.step, **logs}
                if self.eval_every and (self.step % self.eval_every == 0 or self.step == steps):
                    row.update(self._evaluate())
                    row["seconds"] = time.time() - t0
                    self.history.log(row)
                elif self.step % 10 == 0 or self.step == 1:
                    self.history.log(row)
                self.seconds = time.time() - t0
                self._notify("on_step_end", self.step, logs)
                if self.checkpoints and self.step % self.checkpoint_every == 0:
                    self.checkpoints.save(self.state_dict(), self.step)
        finally:
            self._notify("on_train_end")
            self.callbacks.remove(bar)
            self.history.write()
        return self.history

    # ---- checkpoint state ----------------------------------------------------------------------
    def _modules(self) -> dict:
        return {"G": self.G, "D": self.D, **({"G_ema": self.G_ema} if self.G_ema is not None else {})}

    def _optimizers(self) -> dict:
        return {"G": self.opt_g, "D": self.opt_d}

    def _schedulers(self) -> dict:
        return self.gan_schedulers

    def _extra_rng(self) -> dict:
        return {"data": self.data_rng.bit_generator.state}

    def _load_extra_rng(self, rng: dict) -> None:
        self.data_rng.bit_generator.state = rng["data"]

    def state_dict(self) -> dict:
        state = super().state_dict()
        state["seconds"] = self.seconds
        state["snapshots"] = [[s, arr] for s, arr in self.snapshots]
        return state

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        self.seconds = float(state.get("seconds", 0.0))
        self.snapshots = [(int(s), arr) for s, arr in state.get("snapshots", [])]


__all__ = ["GANTrainer", "TrainingError"]
