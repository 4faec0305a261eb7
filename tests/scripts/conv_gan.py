"""A deep convolutional GAN that learns 32x32 colour images of soft diagonal stripes.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises ConvTranspose2d / Conv2d stacks with BatchNorm2d, LeakyReLU, Tanh and Sigmoid, a custom weight init through
Module.apply, BCELoss with label tensors (torch.full, fill_), detach() for the discriminator step, Adam with betas,
per-epoch state_dict checkpoints and resuming from them.

Run: PYTHONPATH=. python tests/scripts/conv_gan.py --epochs 2 --out /tmp/gan
"""
import argparse
import math
import os

import framework as torch
import framework.nn as nn
from framework.utils.data import DataLoader, TensorDataset

REAL, FAKE = 1.0, 0.0


def stripe_images(count: int, side: int = 32) -> TensorDataset:
    """sin(frequency * (x + y) + phase) per channel, in [-1, 1] like a Tanh output; labels are unused."""
    coords = torch.linspace(0, 2 * math.pi, side)
    diagonal = coords[:, None] + coords[None, :]
    frequency = 1 + 2 * torch.rand(count, 3, 1, 1)
    phase = 2 * math.pi * torch.rand(count, 3, 1, 1)
    return TensorDataset(torch.sin(frequency * diagonal + phase), torch.zeros(count))


def init_weights(module: nn.Module) -> None:
    """Convolutions from N(0, 0.02); batch-norm scales from N(1, 0.02) with zero shifts."""
    if isinstance(module, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(module.weight, 0.0, 0.02)
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.normal_(module.weight, 1.0, 0.02)
        nn.init.zeros_(module.bias)


def up(cin: int, cout: int, first: bool = False) -> list:
    """A transposed convolution that doubles the side (or makes 4x4 from 1x1), normalised, then ReLU."""
    stride, padding = (1, 0) if first else (2, 1)
    return [nn.ConvTranspose2d(cin, cout, 4, stride, padding, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True)]


def down(cin: int, cout: int, norm: bool = True) -> list:
    """A strided convolution that halves the side, then LeakyReLU (normalised unless it reads the images)."""
    return [nn.Conv2d(cin, cout, 4, 2, 1, bias=False)] + ([nn.BatchNorm2d(cout)] if norm else []) + \
        [nn.LeakyReLU(0.2, inplace=True)]


class Generator(nn.Module):
    """Latent (N, latent, 1, 1) -> 4x4 -> 8x8 -> 16x16 -> 32x32 images in [-1, 1]."""

    def __init__(self, latent: int, width: int, channels: int = 3):
        super().__init__()
        self.net = nn.Sequential(*up(latent, 4 * width, first=True), *up(4 * width, 2 * width), *up(2 * width, width),
                                 nn.ConvTranspose2d(width, channels, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Critic(nn.Module):
    """Images -> the probability that each is real."""

    def __init__(self, width: int, channels: int = 3):
        super().__init__()
        self.net = nn.Sequential(*down(channels, width, norm=False), *down(width, 2 * width),
                                 *down(2 * width, 4 * width), nn.Conv2d(4 * width, 1, 4, 1, 0, bias=False),
                                 nn.Sigmoid())

    def forward(self, images):
        return self.net(images).view(-1)


def train_epoch(loader, generator, critic, opt_g, opt_c, criterion, latent: int) -> list:
    """Alternate one critic step (real batch, then a detached fake batch) and one generator step per batch;
    returns (critic loss, generator loss) per batch."""
    history = []
    for real, _ in loader:
        batch = real.size(0)
        critic.zero_grad()
        target = torch.full((batch,), REAL, dtype=real.dtype)
        loss_real = criterion(critic(real), target)
        loss_real.backward()
        fake = generator(torch.randn(batch, latent, 1, 1))
        target.fill_(FAKE)
        loss_fake = criterion(critic(fake.detach()), target)
        loss_fake.backward()
        opt_c.step()

        generator.zero_grad()
        target.fill_(REAL)  # the generator wants its fakes called real
        loss_g = criterion(critic(fake), target)
        loss_g.backward()
        opt_g.step()
        history.append(((loss_real + loss_fake).item(), loss_g.item()))
        print(f"critic {history[-1][0]:.4f}  generator {history[-1][1]:.4f}")
    return history


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="DCGAN on synthetic stripes")
    parser.add_argument("--out", default=".", help="folder for generator_<epoch>.pt / critic_<epoch>.pt")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--count", type=int, default=12, help="number of training images")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--latent", type=int, default=16)
    parser.add_argument("--width", type=int, default=4)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--resume-generator", default="")
    parser.add_argument("--resume-critic", default="")
    parser.add_argument("--one-batch", action="store_true", help="stop after one batch (a smoke test)")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    loader = DataLoader(stripe_images(args.count), batch_size=args.batch_size, shuffle=True)
    if args.one_batch:
        loader = [next(iter(loader))]
    generator, critic = Generator(args.latent, args.width), Critic(args.width)
    generator.apply(init_weights)
    critic.apply(init_weights)
    if args.resume_generator:
        generator.load_state_dict(torch.load(args.resume_generator))
    if args.resume_critic:
        critic.load_state_dict(torch.load(args.resume_critic))
    opt_g = torch.optim.Adam(generator.parameters(), lr=args.lr, betas=(0.5, 0.999))
    opt_c = torch.optim.Adam(critic.parameters(), lr=args.lr, betas=(0.5, 0.999))
    history = []
    for epoch in range(args.epochs):
        history += train_epoch(loader, generator, critic, opt_g, opt_c, nn.BCELoss(), args.latent)
        if not args.one_batch:
            torch.save(generator.state_dict(), os.path.join(args.out, f"generator_{epoch}.pt"))
            torch.save(critic.state_dict(), os.path.join(args.out, f"critic_{epoch}.pt"))
    return history


if __name__ == "__main__":
    main()
