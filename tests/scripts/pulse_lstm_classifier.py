"""A recurrent classifier: an LSTM reads a noisy sequence and names the channel on which a pulse arrived.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises LSTM(batch_first=True) and its last step, BatchNorm1d's running statistics, Dropout, log_softmax + nll_loss,
Adadelta with StepLR and an evaluation pass in eval mode.

Run: PYTHONPATH=. python tests/scripts/pulse_lstm_classifier.py --epochs 4
"""
import argparse

import framework as torch
import framework.nn as nn
import framework.nn.functional as F
import framework.optim as optim
from framework.utils.data import DataLoader, TensorDataset

STEPS, CHANNELS, CLASSES = 16, 6, 4


def pulse_sequences(count: int) -> TensorDataset:
    """Gaussian noise sequences with one spike at a random step, on channel `label`: the LSTM must remember it."""
    labels = torch.randint(0, CLASSES, (count,))
    when = torch.randint(0, STEPS, (count,))
    sequences = 0.3 * torch.randn(count, STEPS, CHANNELS)
    sequences[torch.arange(count), when, labels] = 3.0
    return TensorDataset(sequences, labels)


class PulseNet(nn.Module):
    """LSTM over time, its final output normalised by BatchNorm1d, then a small classifier head."""

    def __init__(self, hidden: int = 32):
        super().__init__()
        self.lstm = nn.LSTM(input_size=CHANNELS, hidden_size=hidden, batch_first=True)
        self.norm = nn.BatchNorm1d(hidden)
        self.drop = nn.Dropout(0.3)
        self.head = nn.Sequential(nn.Linear(hidden, 16), nn.ReLU(), nn.Linear(16, CLASSES))

    def forward(self, sequences):
        outputs, (h_n, c_n) = self.lstm(sequences)
        last = outputs[:, -1, :]  # (batch, hidden): the state after the whole sequence
        return F.log_softmax(self.head(self.drop(self.norm(last))), dim=-1)


def train_epoch(model, loader, optimizer) -> list:
    """One pass in train mode (BatchNorm updates its running statistics); the loss of every step."""
    model.train()
    losses = []
    for sequences, labels in loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(sequences), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    print(f"last training loss {losses[-1]:.5f}")
    return losses


def evaluate(model, loader) -> float:
    """Accuracy in eval mode: BatchNorm uses the running statistics gathered while training."""
    model.eval()
    right = 0
    with torch.no_grad():
        for sequences, labels in loader:
            right += (model(sequences).argmax(dim=1) == labels).sum().item()
    accuracy = right / len(loader.dataset)
    print(f"accuracy {accuracy:.3f}")
    return accuracy


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="LSTM pulse classifier")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--gamma", type=float, default=0.9)
    parser.add_argument("--train-size", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    train_loader = DataLoader(pulse_sequences(args.train_size), batch_size=args.batch_size, shuffle=True)
    held_out = DataLoader(pulse_sequences(48), batch_size=48)
    model = PulseNet()
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    schedule = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=args.gamma)
    losses = []
    for _ in range(args.epochs):
        losses += train_epoch(model, train_loader, optimizer)
        evaluate(model, held_out)
        schedule.step()
    return losses


if __name__ == "__main__":
    main()
