"""A variational autoencoder for 8x8 binary images of random axis-aligned rectangles.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises the reparameterisation trick (torch.randn_like), binary_cross_entropy with reduction="sum", a KL term
built from exp/pow, Adam, an evaluation pass and sampling from the prior.

Run: PYTHONPATH=. python tests/scripts/variational_autoencoder.py --epochs 3
"""
import argparse

import framework as torch
import framework.nn as nn
import framework.nn.functional as F
from framework.utils.data import DataLoader, TensorDataset

SIDE, LATENT = 8, 4


def rectangles(count: int) -> TensorDataset:
    """Binary images, each one filled rectangle with random corners (labels are unused zeros)."""
    corners = torch.randint(0, SIDE, (count, 4)).sort(dim=1).values
    grid = torch.arange(SIDE)
    rows = (grid >= corners[:, :1]) & (grid <= corners[:, 2:3])
    cols = (grid >= corners[:, 1:2]) & (grid <= corners[:, 3:4])
    images = (rows[:, :, None] & cols[:, None, :]).float()
    return TensorDataset(images.view(count, 1, SIDE, SIDE), torch.zeros(count))


class RectangleVAE(nn.Module):
    """Encoder to a diagonal Gaussian over LATENT numbers; decoder back to pixel probabilities."""

    def __init__(self, hidden: int = 48):
        super().__init__()
        self.encode_hidden = nn.Linear(SIDE * SIDE, hidden)
        self.mean = nn.Linear(hidden, LATENT)
        self.log_variance = nn.Linear(hidden, LATENT)
        self.decode = nn.Sequential(nn.Linear(LATENT, hidden), nn.ReLU(), nn.Linear(hidden, SIDE * SIDE), nn.Sigmoid())

    def forward(self, images):
        hidden = F.relu(self.encode_hidden(images.view(-1, SIDE * SIDE)))
        mu, logvar = self.mean(hidden), self.log_variance(hidden)
        spread = torch.exp(0.5 * logvar)
        z = mu + spread * torch.randn_like(spread)  # sampling as a differentiable function of mu and logvar
        return self.decode(z), mu, logvar


def elbo_loss(reconstruction, mu, logvar, images):
    """Negative evidence lower bound summed over the batch: reconstruction cross-entropy plus KL to N(0, I)."""
    recon = F.binary_cross_entropy(reconstruction, images.view(-1, SIDE * SIDE), reduction="sum")
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return recon + kl


def train_epoch(model, loader, optimizer) -> list:
    """One pass; the loss per image of every step."""
    model.train()
    losses = []
    for images, _ in loader:
        optimizer.zero_grad()
        loss = elbo_loss(*model(images), images)
        loss.backward()
        optimizer.step()
        losses.append(loss.item() / len(images))
    print(f"loss per image: first {losses[0]:.3f}, last {losses[-1]:.3f}")
    return losses


def evaluate(model, loader) -> float:
    model.eval()
    total = 0.0
    with torch.no_grad():
        for images, _ in loader:
            total += elbo_loss(*model(images), images).item()
    return total / len(loader.dataset)


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="VAE on random rectangles")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--train-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    model = RectangleVAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    train_loader = DataLoader(rectangles(args.train_size), batch_size=args.batch_size, shuffle=True)
    held_out = DataLoader(rectangles(32), batch_size=32)
    losses = []
    for epoch in range(1, args.epochs + 1):
        losses += train_epoch(model, train_loader, optimizer)
        print(f"epoch {epoch}: held-out loss per image {evaluate(model, held_out):.3f}")
    with torch.no_grad():
        samples = model.decode(torch.randn(4, LATENT)).view(4, SIDE, SIDE)
    print("mean pixel of four samples from the prior:", samples.mean(dim=(1, 2)))
    return losses


if __name__ == "__main__":
    main()
