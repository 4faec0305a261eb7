"""GAN models: MLP generator/discriminator for 2-D data, DCGAN-style conv models for 8x8 or 28x28 images."""
from __future__ import annotations

from framework import nn

from .mlp import MLP


class Generator(MLP):
    """z (latent_dim) -> a 2-D point: Linear/activation stack."""

    def __init__(self, latent_dim: int = 16, hidden: int = 128, depth: int = 2, out_dim: int = 2,
                 activation: str = "relu") -> None:
        super().__init__([latent_dim] + [hidden] * depth + [out_dim], activation=activation)
        self.latent_dim = latent_dim


class BNGenerator(nn.Sequential):
    """z -> a 2-D point: (Linear, BatchNorm1d, ReLU) x depth, then Linear.  Batch norm keeps each layer's
    pre-activations at unit scale, so G can grow the steep transitions between modes that leave few samples
    stranded between them (the 'sharp' recipe's generator)."""

    def __init__(self, latent_dim: int = 2, hidden: int = 128, depth: int = 4, out_dim: int = 2) -> None:
        layers, width = [], latent_dim
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.BatchNorm1d(hidden), nn.ReLU()]
            width = hidden
        super().__init__(*layers, nn.Linear(width, out_dim))
        self.latent_dim = latent_dim


class Discriminator(MLP):
    """A 2-D point -> one logit (real vs fake)."""

    def __init__(self, in_dim: int = 2, hidden: int = 128, depth: int = 2) -> None:
        super().__init__([in_dim] + [hidden] * depth + [1], activation="leaky_relu")


class ConvGenerator(nn.Module):
    """DCGAN-style: z -> (C, S, S) image in [0, 1] for S = 8 or 28, upsampling with ConvTranspose2d."""

    def __init__(self, latent_dim: int = 32, size: int = 8, channels: int = 1, width: int = 32) -> None:
        super().__init__()
        if size not in (8, 28):
            raise ValueError(f"ConvGenerator supports 8x8 or 28x28 images, not {size}x{size}")
        self.latent_dim, self.size, self.width = latent_dim, size, width
        self.start = 2 if size == 8 else 7
        self.fc = nn.Linear(latent_dim, width * 2 * self.start * self.start)
        self.net = nn.Sequential(
            nn.BatchNorm2d(width * 2), nn.ReLU(inplace=True),
            nn.ConvTranspose2d(width * 2, width, 4, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.ConvTranspose2d(width, channels, 4, stride=2, padding=1), nn.Sigmoid())

    def forward(self, z):
        h = self.fc(z).reshape(z.shape[0], self.width * 2, self.start, self.start)
        return self.net(h)


class ConvDiscriminator(nn.Module):
    """DCGAN-style: (C, S, S) image -> one logit, downsampling with strided Conv2d."""

    def __init__(self, size: int = 8, channels: int = 1, width: int = 32) -> None:
        super().__init__()
        if size not in (8, 28):
            raise ValueError(f"ConvDiscriminator supports 8x8 or 28x28 images, not {size}x{size}")
        end = 2 if size == 8 else 7
        self.net = nn.Sequential(
            nn.Conv2d(channels, width, 4, stride=2, padding=1), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(width, width * 2, 4, stride=2, padding=1), nn.LeakyReLU(0.2, inplace=True),
            nn.Flatten(), nn.Linear(width * 2 * end * end, 1))

    def forward(self, x):
        return self.net(x)
