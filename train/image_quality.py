"""Image-GAN quality, measured by a digit classifier the framework trains itself.

The classifier labels generated images; from its outputs: how many classes are covered (at least 1 % of the
samples), the KL divergence of the class histogram from uniform, the share of confidently classified samples
(max probability >= 0.9), and the Frechet distance between its penultimate features for generated and real
test images (FID's formula on our own small network; the same distance for real held-out images is the floor).
"""
from __future__ import annotations

import numpy as np

import framework
from framework import nn, optim
from framework.utils.data import DataLoader, TensorDataset
from models import SmallCNN

from .trainer import Trainer


def class_metrics(probs: np.ndarray, min_fraction: float = 0.01, confident: float = 0.9) -> dict:
    """Modes covered, KL(class histogram || uniform) in nats and the confident share, from (N, K) probabilities."""
    n, k = probs.shape
    hist = np.bincount(probs.argmax(1), minlength=k) / n
    nonzero = hist > 0
    kl = float((hist[nonzero] * np.log(hist[nonzero] * k)).sum())
    return {"modes_covered": int((hist >= min_fraction).sum()), "n_modes": int(k), "kl_uniform": kl,
            "confident_fraction": float((probs.max(1) >= confident).mean()),
            "class_histogram": [round(float(h), 4) for h in hist]}


def frechet_distance(a: np.ndarray, b: np.ndarray) -> float:
    """|mu_a - mu_b|^2 + tr(S_a + S_b - 2 (S_a^1/2 S_b S_a^1/2)^1/2) between two (N, D) feature sets."""
    mu_a, mu_b = a.mean(0), b.mean(0)
    s_a, s_b = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    w, v = np.linalg.eigh(s_a)
    root_a = (v * np.sqrt(np.clip(w, 0, None))) @ v.T
    cross = np.linalg.eigvalsh(root_a @ s_b @ root_a)  # symmetric, so its root's trace is sum(sqrt(eigenvalues))
    trace_root = np.sqrt(np.clip(cross, 0, None)).sum()
    return float(((mu_a - mu_b) ** 2).sum() + np.trace(s_a) + np.trace(s_b) - 2 * trace_root)


def train_classifier(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray,
                     epochs: int = 30, seed: int = 0) -> tuple[nn.Module, float]:
    """A SmallCNN trained with framework's Trainer; returns (model in eval mode, test accuracy)."""
    framework.manual_seed(seed)
    model = SmallCNN(10, x_train.shape[-1], width=32)
    opt = optim.Adam(model.parameters(), lr=2e-3)
    trainer = Trainer(model, opt, nn.CrossEntropyLoss(), scheduler=optim.lr_scheduler.CosineAnnealingLR(opt, epochs),
                      progress=False)
    train = TensorDataset(framework.from_numpy(x_train), framework.from_numpy(y_train))
    trainer.fit(DataLoader(train, batch_size=64, shuffle=True), epochs)
    model.eval()
    probs, _ = classify(model, x_test)
    return model, float((probs.argmax(1) == y_test).mean())


@framework.no_grad()
def classify(model: nn.Module, images: np.ndarray, batch: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """(softmax probabilities, penultimate features) of a SmallCNN for (N, 1, S, S) images."""
    probs, feats = [], []
    for i in range(0, len(images), batch):
        h = model.head[2](model.head[1](model.head[0](model.features(framework.from_numpy(images[i:i + batch])))))
        probs.append(model.head[3](h).softmax(dim=1).numpy())
        feats.append(h.numpy())
    return np.concatenate(probs), np.concatenate(feats)


def image_quality(model: nn.Module, generated: np.ndarray, real_test: np.ndarray, real_train: np.ndarray) -> dict:
    """class_metrics of the generated images, their Frechet distance to the real test set, and the floor: the
    distance of the real training images (what a perfect G would reproduce) to the same test set."""
    probs, feats = classify(model, generated)
    _, test_feats = classify(model, real_test)
    _, held_feats = classify(model, real_train)
    return {**class_metrics(probs), "frechet_distance": frechet_distance(feats, test_feats),
            "frechet_floor_real": frechet_distance(held_feats, test_feats), "n_generated": len(generated)}
