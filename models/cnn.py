"""A small CNN classifier for 8x8 digits or 28x28 images."""
from __future__ import annotations

from framework import nn


class SmallCNN(nn.Module):
    """conv-(bn)-relu blocks with max-pooling, then a linear head (8x8: two convs, one pool; 28x28: two pools)."""

    def __init__(self, num_classes: int = 10, size: int = 8, channels: int = 1, width: int = 16) -> None:
        super().__init__()
        if size == 8:
            self.features = nn.Sequential(nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width),
                                          nn.ReLU(inplace=True), nn.Conv2d(width, width, 3, padding=1),
                                          nn.BatchNorm2d(width), nn.ReLU(inplace=True), nn.MaxPool2d(2))
            flat = width * 4 * 4
        elif size == 28:
            self.features = nn.Sequential(nn.Conv2d(channels, width, 3, padding=1), nn.ReLU(inplace=True),
                                          nn.MaxPool2d(2), nn.Conv2d(width, width * 2, 3, padding=1),
                                          nn.ReLU(inplace=True), nn.MaxPool2d(2))
            flat = width * 2 * 7 * 7
        else:
            raise ValueError(f"SmallCNN supports 8x8 or 28x28 images, not {size}x{size}")
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(flat, 64), nn.ReLU(inplace=True), nn.Linear(64, num_classes))

    def forward(self, x):
        return self.head(self.features(x))
