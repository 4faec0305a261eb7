"""Single-image super-resolution: a small CNN predicts r*r sub-pixel maps that PixelShuffle lays out r times larger.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises Conv2d with padding, nn.PixelShuffle, nn.init.orthogonal_ with calculate_gain, avg_pool2d to make the
low-resolution inputs, MSELoss, Adam, a PSNR evaluation and saving the whole model with torch.save.

Run: PYTHONPATH=. python tests/scripts/pixel_shuffle_upscaler.py --epochs 3
"""
import argparse
import math

import framework as torch
import framework.nn as nn
import framework.nn.functional as F
from framework.utils.data import DataLoader, TensorDataset


def smooth_images(count: int, side: int):
    """(count, 1, side, side) images in [0, 1]: each the mean of three random plane waves."""
    ys, xs = torch.meshgrid(torch.linspace(0, 1, side), torch.linspace(0, 1, side), indexing="ij")
    k = 6 * torch.rand(count, 3, 2)  # three waves per image, random direction and frequency
    waves = torch.cos(k[..., 0, None, None] * xs + k[..., 1, None, None] * ys + 6 * torch.rand(count, 3, 1, 1))
    high = (0.5 + waves.mean(dim=1, keepdim=True) / 2).clamp(0, 1)
    return high


class SubPixelNet(nn.Module):
    """Features at low resolution, then `factor**2` output channels rearranged into one channel at full size."""

    def __init__(self, factor: int, width: int = 32):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, width, 5, padding=2), nn.ReLU(),
                                  nn.Conv2d(width, width // 2, 3, padding=1), nn.ReLU())
        self.to_subpixels = nn.Conv2d(width // 2, factor ** 2, 3, padding=1)
        self.shuffle = nn.PixelShuffle(factor)
        for layer in self.body:
            if isinstance(layer, nn.Conv2d):
                nn.init.orthogonal_(layer.weight, nn.init.calculate_gain("relu"))
        nn.init.orthogonal_(self.to_subpixels.weight)

    def forward(self, low):
        return self.shuffle(self.to_subpixels(self.body(low)))


def train_epoch(model, loader, optimizer, criterion) -> list:
    losses = []
    for low, high in loader:
        optimizer.zero_grad()
        loss = criterion(model(low), high)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def psnr(model, loader) -> float:
    """Mean peak signal-to-noise ratio in dB (peak 1.0) of the upscaled images."""
    total = 0.0
    with torch.no_grad():
        for low, high in loader:
            total += 10 * math.log10(1 / F.mse_loss(model(low), high).item())
    return total / len(loader)


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="sub-pixel super-resolution on synthetic waves")
    parser.add_argument("--factor", type=int, default=3)
    parser.add_argument("--side", type=int, default=24, help="high-resolution side (a multiple of --factor)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--save", default="", help="where to torch.save the whole trained model")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    high = smooth_images(8, args.side)
    low = F.avg_pool2d(high, args.factor)
    loader = DataLoader(TensorDataset(low, high), batch_size=args.batch_size, shuffle=True)
    model = SubPixelNet(args.factor)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    losses = []
    for epoch in range(1, args.epochs + 1):
        losses += train_epoch(model, loader, optimizer, nn.MSELoss())
        print(f"epoch {epoch}: loss {losses[-1]:.5f}, PSNR {psnr(model, loader):.2f} dB")
    if args.save:
        torch.save(model, args.save)
    return losses


if __name__ == "__main__":
    main()
