"""GAN quality metrics for 2-D mixtures: modes covered and the fraction of high-quality samples."""
from __future__ import annotations

import numpy as np


def mode_metrics(samples: np.ndarray, centers: np.ndarray, std: float, threshold_std: float = 3.0,
                 min_fraction: float = 0.01) -> dict:
    """A sample is high quality within ``threshold_std`` stds of its nearest centre; a mode is covered
    when at least ``min_fraction`` of *all* samples are high-quality samples of it."""
    d2 = ((samples[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
    nearest = d2.argmin(1)
    hq = np.sqrt(d2[np.arange(len(samples)), nearest]) <= threshold_std * std
    counts = np.bincount(nearest[hq], minlength=len(centers))
    covered = int((counts >= min_fraction * len(samples)).sum())
    return {"modes_covered": covered, "n_modes": int(len(centers)), "high_quality_fraction": float(hq.mean())}
