"""Hand-written NumPy layers with manual backward and an Adam step: the speed limit for a NumPy engine."""
from __future__ import annotations

import numpy as np


class Linear:
    def __init__(self, w: np.ndarray, b: np.ndarray) -> None:
        self.w, self.b = w.copy(), b.copy()
        self.gw, self.gb = np.zeros_like(w), np.zeros_like(b)

    def forward(self, x):
        self.x = x
        return x @ self.w.T + self.b

    def backward(self, g):
        self.gw += g.T @ self.x
        self.gb += g.sum(0)
        return g @ self.w

    def params(self):
        return [(self.w, self.gw), (self.b, self.gb)]


class ReLU:
    def forward(self, x):
        self.mask = x > 0
        return x * self.mask

    def backward(self, g):
        return g * self.mask


class LeakyReLU:
    def __init__(self, slope: float = 0.2) -> None:
        self.slope = slope

    def forward(self, x):
        self.x = x
        return np.maximum(x, x * self.slope)

    def backward(self, g):
        return g * np.where(self.x > 0, 1.0, self.slope).astype(g.dtype)


class Sequential:
    def __init__(self, layers) -> None:
        self.layers = layers

    def forward(self, x):
        for layer in self.layers:
            x = layer.forward(x)
        return x

    def backward(self, g):
        for layer in reversed(self.layers):
            g = layer.backward(g)
        return g

    def params(self):
        return [p for layer in self.layers if isinstance(layer, Linear) for p in layer.params()]

    def zero_grad(self):
        for _, g in self.params():
            g[...] = 0


class Adam:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8) -> None:
        self.params, self.lr, self.betas, self.eps = params, lr, betas, eps
        self.m = [np.zeros_like(p) for p, _ in params]
        self.v = [np.zeros_like(p) for p, _ in params]
        self.t = 0

    def step(self):
        self.t += 1
        b1, b2 = self.betas
        bc1, bc2 = 1 - b1 ** self.t, (1 - b2 ** self.t) ** 0.5
        for (p, g), m, v in zip(self.params, self.m, self.v):
            m += (1 - b1) * (g - m)
            v *= b2
            v += (1 - b2) * g * g
            p -= (self.lr / bc1) * (m / (np.sqrt(v) / bc2 + self.eps))


def bce_with_logits(x, t):
    """Mean BCE on logits and its gradient."""
    loss = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x))) + (1 - t) * x
    s = 1 / (1 + np.exp(-x))
    return float(loss.mean()), ((s - t) / x.size).astype(x.dtype)


def cross_entropy(logits, y):
    """Mean cross-entropy on class indices and its gradient."""
    z = logits - logits.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    n = len(y)
    loss = -logp[np.arange(n), y].mean()
    g = np.exp(logp)
    g[np.arange(n), y] -= 1
    return float(loss), (g / n).astype(logits.dtype)
