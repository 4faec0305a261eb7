"""Fast style transfer: a feed-forward image transformer trained against a frozen feature network, with a content
loss on one feature map and a Gram-matrix style loss on several.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises ReflectionPad2d, InstanceNorm2d(affine=True), residual blocks, nearest-neighbour F.interpolate, a frozen
VGG-shaped feature extractor (requires_grad_(False)) returning a namedtuple, bmm Gram matrices, per-channel
normalisation with new_tensor, MSELoss, Adam and per-epoch state_dict saves.

Run: PYTHONPATH=. python tests/scripts/gram_style_transfer.py --save-dir /tmp/style
"""
import argparse
import os
from collections import namedtuple

import framework as torch
import framework.nn as nn
import framework.nn.functional as F
from framework.utils.data import DataLoader, TensorDataset

Features = namedtuple("Features", ["low", "mid", "high"])
CHANNEL_MEAN, CHANNEL_STD = [0.45, 0.45, 0.4], [0.23, 0.22, 0.23]  # rough statistics of natural photographs


def conv_norm(cin: int, cout: int, kernel: int, stride: int = 1, relu: bool = True) -> nn.Sequential:
    """Reflection padding keeps borders natural; instance norm normalises each image on its own."""
    layers = [nn.ReflectionPad2d(kernel // 2), nn.Conv2d(cin, cout, kernel, stride),
              nn.InstanceNorm2d(cout, affine=True)]
    return nn.Sequential(*layers, nn.ReLU()) if relu else nn.Sequential(*layers)


class Residual(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.body = nn.Sequential(conv_norm(channels, channels, 3), conv_norm(channels, channels, 3, relu=False))

    def forward(self, x):
        return x + self.body(x)


class Stylizer(nn.Module):
    """Down by two, residual blocks, up by two (nearest upsampling then a convolution), back to three channels."""

    def __init__(self, width: int = 8, blocks: int = 2):
        super().__init__()
        self.encode = nn.Sequential(conv_norm(3, width, 5), conv_norm(width, 2 * width, 3, stride=2))
        self.blocks = nn.Sequential(*[Residual(2 * width) for _ in range(blocks)])
        self.decode = conv_norm(2 * width, width, 3)
        self.out = nn.Sequential(nn.ReflectionPad2d(2), nn.Conv2d(width, 3, 5))

    def forward(self, images):
        x = self.blocks(self.encode(images))
        x = self.decode(F.interpolate(x, scale_factor=2, mode="nearest"))
        return self.out(x)


class FeatureNet(nn.Module):
    """A VGG-shaped stack (3x3 convolutions, ReLU, max-pooling), untrained and frozen: three tapped outputs."""

    def __init__(self, width: int = 8):
        super().__init__()

        def stage(cin, cout, pool):
            return nn.Sequential(*([nn.MaxPool2d(2)] if pool else []), nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())

        self.stages = nn.ModuleList([stage(3, width, False), stage(width, 2 * width, True),
                                     stage(2 * width, 4 * width, True)])
        self.requires_grad_(False)

    def forward(self, images):
        taps = []
        for stage in self.stages:
            images = stage(images)
            taps.append(images)
        return Features(*taps)


def gram(maps):
    """Channel-by-channel correlations of feature maps, normalised by their size: (batch, channels, channels)."""
    b, c, h, w = maps.size()
    flat = maps.view(b, c, h * w)
    return flat.bmm(flat.transpose(1, 2)) / (c * h * w)


def normalise(batch):
    """Pixels in [0, 255] to per-channel standardised values, as the feature network expects."""
    mean = batch.new_tensor(CHANNEL_MEAN).view(-1, 1, 1)
    std = batch.new_tensor(CHANNEL_STD).view(-1, 1, 1)
    return (batch / 255.0 - mean) / std


def train(args, stylizer, features, dataset, style) -> list:
    """Train the stylizer; returns (content loss, style loss) per step."""
    loader = DataLoader(dataset, batch_size=args.batch_size)
    optimizer = torch.optim.Adam(stylizer.parameters(), args.lr)
    mse = nn.MSELoss()
    style_grams = [gram(f) for f in features(normalise(style.unsqueeze(0)))]
    history = []
    for epoch in range(args.epochs):
        stylizer.train()
        for step, (images, _) in enumerate(loader):
            optimizer.zero_grad()
            styled = normalise(stylizer(images))
            got, want = features(styled), features(normalise(images))
            content = args.content_weight * mse(got.mid, want.mid)
            style_loss = sum(mse(gram(f), g.expand(len(images), -1, -1)) for f, g in zip(got, style_grams))
            style_loss = args.style_weight * style_loss
            (content + style_loss).backward()
            optimizer.step()
            history.append((content.item(), style_loss.item()))
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step}: content {history[-1][0]:.4g}  style {history[-1][1]:.4g}")
        stylizer.eval()
        torch.save(stylizer.state_dict(), os.path.join(args.save_dir, f"stylizer_epoch_{epoch}.pt"))
    return history


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="Gram-matrix style transfer on synthetic images")
    parser.add_argument("--save-dir", required=True)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--count", type=int, default=4, help="number of content images")
    parser.add_argument("--side", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--content-weight", type=float, default=1e3)
    parser.add_argument("--style-weight", type=float, default=1e5)
    parser.add_argument("--log-every", type=int, default=1)
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    os.makedirs(args.save_dir, exist_ok=True)
    contents = 255 * torch.rand(args.count, 3, args.side, args.side)
    checks = (torch.arange(args.side)[:, None] // 4 + torch.arange(args.side)[None, :] // 4) % 2  # a checkerboard
    style = 255 * checks.float() * torch.tensor([1.0, 0.5, 0.1]).view(3, 1, 1)
    return train(args, Stylizer(), FeatureNet(), TensorDataset(contents, torch.zeros(args.count)), style)


if __name__ == "__main__":
    main()
