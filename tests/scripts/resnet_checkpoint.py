"""A small residual network trained with SGD + momentum and StepLR, checkpointed every epoch and resumable.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises residual blocks (Conv2d + BatchNorm2d, a 1x1 projection shortcut), adaptive_avg_pool2d, CrossEntropyLoss,
SGD with momentum and weight decay, StepLR, top-k accuracy through topk, and a checkpoint dictionary holding the
model, optimizer and scheduler state that --resume restores (plus a copy of the best one).

Run: PYTHONPATH=. python tests/scripts/resnet_checkpoint.py --epochs 2 --dir /tmp/ckpt
"""
import argparse
import os
import shutil

import framework as torch
import framework.nn as nn
import framework.nn.functional as F
from framework.utils.data import DataLoader, TensorDataset


def prototype_images(count: int, classes: int = 10, side: int = 16, seed: int = 0) -> TensorDataset:
    """Each class is a fixed random template (drawn from its own generator): a colour with a faint texture;
    samples are template plus noise."""
    fixed = torch.Generator().manual_seed(seed)
    templates = 2 * torch.rand(classes, 3, 1, 1, generator=fixed) + 0.3 * torch.rand(classes, 3, side, side,
                                                                                     generator=fixed)
    labels = torch.randint(0, classes, (count,))
    return TensorDataset(templates[labels] + 0.5 * torch.randn(count, 3, side, side), labels)


class Block(nn.Module):
    """conv-bn-relu-conv-bn plus a shortcut (a strided 1x1 projection when the shape changes), then relu."""

    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity() if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(y + self.shortcut(x))


class SmallResNet(nn.Module):
    def __init__(self, classes: int = 10, width: int = 8):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.stages = nn.Sequential(Block(width, width), Block(width, 2 * width, stride=2))
        self.fc = nn.Linear(2 * width, classes)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.stages(self.stem(x)), 1)
        return self.fc(torch.flatten(x, 1))


def topk_correct(logits, labels, ks=(1, 5)) -> list:
    """How many rows have their label among the k highest logits, for each k."""
    _, ranked = logits.topk(max(ks), dim=1, largest=True, sorted=True)
    hits = ranked.t().eq(labels.view(1, -1).expand_as(ranked.t()))
    return [hits[:k].reshape(-1).float().sum().item() for k in ks]


def train_epoch(model, loader, criterion, optimizer) -> list:
    model.train()
    losses = []
    for images, labels in loader:
        loss = criterion(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def evaluate(model, loader, criterion) -> float:
    """Top-1 accuracy in percent (top-5 and the loss printed)."""
    model.eval()
    top1 = top5 = loss = 0.0
    with torch.no_grad():
        for images, labels in loader:
            logits = model(images)
            loss += criterion(logits, labels).item() * len(labels)
            c1, c5 = topk_correct(logits, labels)
            top1, top5 = top1 + c1, top5 + c5
    count = len(loader.dataset)
    print(f"eval: loss {loss / count:.4f}  top-1 {100 * top1 / count:.1f}%  top-5 {100 * top5 / count:.1f}%")
    return 100 * top1 / count


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="ResNet-style classifier with checkpoints")
    parser.add_argument("--dir", default=".", help="folder for last.pt and best.pt")
    parser.add_argument("--epochs", type=int, default=2, help="train until this many epochs are done in total")
    parser.add_argument("--resume", default="", help="a last.pt to continue from")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    train_loader = DataLoader(prototype_images(32), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(prototype_images(32), batch_size=16)
    model = SmallResNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=args.momentum, weight_decay=args.weight_decay)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    start, best = 0, 0.0
    if args.resume:
        state = torch.load(args.resume)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start, best = state["epoch"], state["best_top1"]
        print(f"resumed from {args.resume} after epoch {start}")
    os.makedirs(args.dir, exist_ok=True)
    losses = []
    for epoch in range(start, args.epochs):
        losses += train_epoch(model, train_loader, criterion, optimizer)
        scheduler.step()
        top1 = evaluate(model, val_loader, criterion)
        last = os.path.join(args.dir, "last.pt")
        torch.save({"epoch": epoch + 1, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "best_top1": max(best, top1)}, last)
        if top1 >= best:
            best = top1
            shutil.copyfile(last, os.path.join(args.dir, "best.pt"))
    return losses


if __name__ == "__main__":
    main()
