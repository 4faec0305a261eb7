"""Techniques that make the GAN demo cover every mode sharply; each one is a ``python -m train gan`` option.

- ``r1_penalty``: R1 gradient penalty on D at real data (Mescheder et al. 2018).  It needs the gradient of D's
  output with respect to its *input* as part of the loss, so ``autograd.grad(..., create_graph=True)`` records the
  backward pass itself and ``loss_d.backward()`` then differentiates through it (a double backward through D).
- ``Packed``: PacGAN packing (Lin et al. 2018): D judges ``k`` samples at once, so a G that repeats itself (mode
  collapse) is easy to tell from real data.
- ``late_decay``: a constant learning rate that drops late in training, so G settles on the modes it found.
- ``MinibatchStd``: minibatch standard deviation (Karras et al. 2018): D also sees how spread out the whole batch
  is, so a G whose samples bunch on a few modes is easy to tell from real data.
- ``spectral_normed``: spectral normalisation (Miyato et al. 2018) of every Linear/Conv layer of D: each weight is
  divided by its largest singular value (``nn.utils.parametrizations.spectral_norm``, as in torch), which bounds D's
  Lipschitz constant, so D cannot become steep enough to overpower G.
"""
from __future__ import annotations

import framework
from framework import nn
from framework.nn.utils.parametrizations import spectral_norm


def r1_penalty(d_real, real, gamma: float):
    """gamma / 2 * E[|grad_x D(x)|^2] at real x; ``real`` must require grad and ``d_real = D(real)``."""
    (grad,) = framework.autograd.grad(d_real.sum(), real, create_graph=True)  # keep the graph: we backprop through it
    return gamma / 2 * grad.pow(2).flatten(1).sum(1).mean()


class Packed(nn.Module):
    """PacGAN: ``D`` sees ``k`` samples concatenated: (B * k, *shape) -> D on (B, k * shape) for vectors,
    (B, k * C, H, W) for images (``D`` must be built for that input)."""

    def __init__(self, D: nn.Module, k: int) -> None:
        super().__init__()
        self.D, self.k = D, k

    def forward(self, x):
        n = x.shape[0] // self.k
        return self.D(x.reshape(n, self.k * x.shape[1], *x.shape[2:]))


class MinibatchStd(nn.Module):
    """D on (x, the batch's mean per-feature std as one more column): (B, F) -> ``D`` on (B, F + 1) (``D`` must be
    built for that input).  The std is taken over the whole batch D judges, real or fake."""

    def __init__(self, D: nn.Module) -> None:
        super().__init__()
        self.D = D

    def forward(self, x):
        spread = x.std(0).mean().reshape(1, 1).expand(x.shape[0], 1)  # one number per batch, to every row
        return self.D(framework.cat([x, spread], 1))


def late_decay(total_steps: int, at: float = 0.75, factor: float = 0.1):
    """A LambdaLR factor: 1 until ``at * total_steps``, then ``factor``."""
    boundary = int(at * total_steps)

    def factor_at(step: int) -> float:
        return 1.0 if step < boundary else factor
    return factor_at


def spectral_normed(D: nn.Module) -> nn.Module:
    """``D`` with ``spectral_norm`` on every Linear, Conv2d and ConvTranspose2d (in place; returns ``D``)."""
    for m in list(D.modules()):  # a list first: registering adds submodules while we walk
        if isinstance(m, (nn.Linear, nn.Conv2d, nn.ConvTranspose2d)):
            spectral_norm(m)
    return D
