"""Figures written to PNG files with matplotlib's Agg canvas (no pyplot state, never plt.show())."""
from __future__ import annotations

import math
import os

import numpy as np


def _figure(w: float, h: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path: str) -> str:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.tight_layout()
    fig.savefig(path)
    return path


def plot_curves(series: dict, path: str, title: str = "", xlabel: str = "step", logy: bool = False) -> str:
    """One line per name: series = {name: (xs, ys)}."""
    fig = _figure(7, 4)
    ax = fig.add_subplot(1, 1, 1)
    for name, (xs, ys) in series.items():
        if len(xs):
            ax.plot(xs, ys, label=name, linewidth=1)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    if logy:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    if series:
        ax.legend()
    return _save(fig, path)


def plot_samples_2d(snapshots: list, real: np.ndarray, centers: np.ndarray, path: str) -> str:
    """A row of scatter plots of generated 2-D samples over training, real data and mode centres behind."""
    return _save(samples_2d_figure(snapshots, real, centers), path)


def samples_2d_figure(snapshots: list, real: np.ndarray, centers: np.ndarray):
    """plot_samples_2d's figure (also logged to TensorBoard)."""
    n = max(1, len(snapshots))
    fig = _figure(3 * n, 3.2)
    lim = float(np.abs(centers).max()) * 1.6
    for i, (step, samples) in enumerate(snapshots):
        ax = fig.add_subplot(1, n, i + 1)
        ax.scatter(real[:, 0], real[:, 1], s=2, c="#bbbbbb", alpha=0.5)
        ax.scatter(samples[:, 0], samples[:, 1], s=2, c="#1f77b4", alpha=0.6)
        ax.scatter(centers[:, 0], centers[:, 1], s=20, c="red", marker="x")
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.set_aspect("equal")
        ax.set_title(f"step {step}")
        ax.set_xticks([])
        ax.set_yticks([])
    fig.tight_layout()
    return fig


def plot_image_grid(images: np.ndarray, path: str, title: str = "") -> str:
    """(N, 1, H, W) images in [0, 1] as a square grid."""
    n = len(images)
    cols = int(math.ceil(math.sqrt(n)))
    rows = int(math.ceil(n / cols))
    fig = _figure(cols * 0.8 + 0.5, rows * 0.8 + 0.6)
    for i in range(n):
        ax = fig.add_subplot(rows, cols, i + 1)
        ax.imshow(images[i, 0], cmap="gray", vmin=0, vmax=1)
        ax.axis("off")
    fig.suptitle(title)
    return _save(fig, path)


def plot_function(x: np.ndarray, curves: dict, path: str, title: str = "") -> str:
    """Curves over one x axis: curves = {label: ys}."""
    return plot_curves({k: (x, v) for k, v in curves.items()}, path, title, xlabel="x")


def plot_decision_boundary(predict, x: np.ndarray, y: np.ndarray, path: str, title: str = "") -> str:
    """Colour the plane by ``predict(points) -> class`` and overlay the data."""
    return _save(decision_boundary_figure(predict, x, y, title), path)


def decision_boundary_figure(predict, x: np.ndarray, y: np.ndarray, title: str = ""):
    """plot_decision_boundary's figure (also logged to TensorBoard)."""
    pad = 0.5
    xs = np.linspace(x[:, 0].min() - pad, x[:, 0].max() + pad, 200)
    ys = np.linspace(x[:, 1].min() - pad, x[:, 1].max() + pad, 200)
    gx, gy = np.meshgrid(xs, ys)
    z = predict(np.stack([gx.ravel(), gy.ravel()], 1).astype(np.float32)).reshape(gx.shape)
    fig = _figure(5, 5)
    ax = fig.add_subplot(1, 1, 1)
    ax.contourf(gx, gy, z, alpha=0.3, cmap="viridis")
    ax.scatter(x[:, 0], x[:, 1], c=y, s=6, cmap="viridis")
    ax.set_title(title)
    fig.tight_layout()
    return fig
