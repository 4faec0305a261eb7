"""A convolutional classifier for synthetic 28x28 images whose class is the column of one bright bar.

Written for this project as ordinary PyTorch code: `import framework as torch` here, and tests/test_scripts.py runs
the same text with the name bound to torch. Exercises Conv2d, max_pool2d, Dropout, flatten, log_softmax + nll_loss,
Adadelta with StepLR, DataLoader over a TensorDataset, and an evaluation pass under no_grad.

Run: PYTHONPATH=. python tests/scripts/bar_digits_cnn.py --epochs 3
"""
import argparse

import framework as torch
import framework.nn as nn
import framework.nn.functional as F
from framework.optim import Adadelta
from framework.optim.lr_scheduler import StepLR
from framework.utils.data import DataLoader, TensorDataset


def bar_images(count: int) -> TensorDataset:
    """Dim noise with a vertical bar at column 3 + 2 * label: ten classes a small CNN separates in a few steps."""
    labels = torch.randint(0, 10, (count,))
    pixels = 0.4 * torch.rand(count, 1, 28, 28)
    rows = torch.arange(4, 24)
    pixels[torch.arange(count)[:, None], 0, rows[None, :], (3 + 2 * labels)[:, None]] = 1.0
    return TensorDataset((pixels - 0.25) / 0.3, labels)  # roughly zero mean, unit spread, as normalised inputs are


class BarNet(nn.Module):
    """Two 3x3 convolutions, a 2x2 max-pool, then a two-layer classifier with dropout on both sides."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.conv_a = nn.Conv2d(1, 16, kernel_size=3)
        self.conv_b = nn.Conv2d(16, 32, kernel_size=3, stride=1)
        self.drop_maps = nn.Dropout(0.2)
        self.hidden = nn.Linear(32 * 12 * 12, 64)  # 28 -> 26 -> 24 -> pooled 12
        self.drop_hidden = nn.Dropout(0.4)
        self.classify = nn.Linear(64, classes)

    def forward(self, images):
        maps = F.max_pool2d(F.relu(self.conv_b(F.relu(self.conv_a(images)))), 2)
        flat = torch.flatten(self.drop_maps(maps), 1)
        return F.log_softmax(self.classify(self.drop_hidden(F.relu(self.hidden(flat)))), dim=1)


def train_epoch(model, loader, optimizer, device, epoch: int, log_every: int = 2) -> list:
    """One pass over the loader; the loss of every step."""
    model.train()
    losses = []
    for step, (images, labels) in enumerate(loader):
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % log_every == 0:
            print(f"epoch {epoch} step {step:3d}/{len(loader)}  loss {loss.item():.5f}")
    return losses


def evaluate(model, loader, device) -> tuple:
    """Mean loss and accuracy over the loader, with dropout off and no graph recorded."""
    model.eval()
    total, right = 0.0, 0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            log_probs = model(images)
            total += F.nll_loss(log_probs, labels, reduction="sum").item()
            guess = log_probs.argmax(dim=1, keepdim=True)
            right += guess.eq(labels.view_as(guess)).sum().item()
    count = len(loader.dataset)
    print(f"held out: loss {total / count:.4f}, accuracy {right}/{count}")
    return total / count, right / count


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="CNN on synthetic bar images")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--gamma", type=float, default=0.7, help="StepLR's factor per epoch")
    parser.add_argument("--train-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--no-accel", action="store_true")
    parser.add_argument("--save", default="", help="where to write the trained state_dict")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    use_accel = not args.no_accel and torch.accelerator.is_available()
    device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
    train_loader = DataLoader(bar_images(args.train_size), batch_size=args.batch_size, shuffle=True)
    held_out = DataLoader(bar_images(32), batch_size=32)

    model = BarNet().to(device)
    optimizer = Adadelta(model.parameters(), lr=args.lr)
    schedule = StepLR(optimizer, step_size=1, gamma=args.gamma)
    losses = []
    for epoch in range(1, args.epochs + 1):
        losses += train_epoch(model, train_loader, optimizer, device, epoch)
        evaluate(model, held_out, device)
        schedule.step()
    if args.save:
        torch.save(model.state_dict(), args.save)
    return losses


if __name__ == "__main__":
    main()
