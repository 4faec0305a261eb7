"""A next-value predictor for damped oscillations: two stacked LSTMCells in float64, fitted by L-BFGS with a
closure, then run freely past the end of the data.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises nn.LSTMCell stepped by hand over split(1, dim=1), Module.double(), torch.cat of the outputs, optim.LBFGS
with a closure, MSELoss, extrapolation under no_grad, torch.save / torch.load of the data, and optional
matplotlib plots.

Run: PYTHONPATH=. python tests/scripts/lbfgs_sequence.py --steps 3 --data /tmp/waves.pt
"""
import argparse
import os

import numpy as np

import framework as torch
import framework.nn as nn


def write_waves(path: str, count: int = 10, length: int = 80, seed: int = 2) -> None:
    """Save `count` damped cosines with random frequency, phase and damping, sampled at `length` steps (float64)."""
    rng = np.random.default_rng(seed)
    t = np.arange(length, dtype=np.float64)
    freq, phase = rng.uniform(0.15, 0.3, (count, 1)), rng.uniform(0, 2 * np.pi, (count, 1))
    damping = rng.uniform(0.0, 0.01, (count, 1))
    torch.save(torch.from_numpy(np.exp(-damping * t) * np.cos(freq * t + phase)), path)


class Forecaster(nn.Module):
    """Reads one value per step through two LSTMCells; predicts the next value; may continue on its own output."""

    def __init__(self, hidden: int = 24):
        super().__init__()
        self.hidden = hidden
        self.cell_a = nn.LSTMCell(1, hidden)
        self.cell_b = nn.LSTMCell(hidden, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, series, future: int = 0):
        batch = series.size(0)
        state_a = [torch.zeros(batch, self.hidden, dtype=torch.double) for _ in range(2)]
        state_b = [torch.zeros(batch, self.hidden, dtype=torch.double) for _ in range(2)]
        predictions = []

        def advance(value):
            state_a[:] = self.cell_a(value, tuple(state_a))
            state_b[:] = self.cell_b(state_a[0], tuple(state_b))
            predictions.append(self.out(state_b[0]))

        for value in series.split(1, dim=1):
            advance(value)
        for _ in range(future):  # feed each prediction back in as the next input
            advance(predictions[-1])
        return torch.cat(predictions, dim=1)


def fit(model, inputs, targets, test_inputs, test_targets, steps: int, future: int = 20, plot: str = "") -> list:
    """`steps` L-BFGS steps; returns every loss the closure computed. After each step, a free-running forecast."""
    criterion = nn.MSELoss()
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.8)
    losses = []

    def closure():
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        losses.append(loss.item())
        loss.backward()
        return loss

    for step in range(steps):
        optimizer.step(closure)
        with torch.no_grad():
            forecast = model(test_inputs, future=future)
            test_loss = criterion(forecast[:, :-future], test_targets)
        print(f"step {step}: training loss {losses[-1]:.6f}, test loss {test_loss.item():.6f}")
        if plot:
            draw(forecast.detach().numpy(), test_inputs.size(1), os.path.join(plot, f"forecast_{step}.pdf"))
    return losses


def draw(forecast, known: int, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3))
    for row in forecast:
        ax.plot(range(known), row[:known], linewidth=1.5)
        ax.plot(range(known, len(row)), row[known:], linestyle=":", linewidth=1.5)
    ax.set_xlabel("step")
    fig.savefig(path)
    plt.close(fig)


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="LSTMCell forecaster fitted by L-BFGS")
    parser.add_argument("--data", default="waves.pt", help="the waves (written when missing)")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--plot", default="", help="folder for forecast_<step>.pdf")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    if not os.path.exists(args.data):
        write_waves(args.data)
    waves = torch.load(args.data)
    model = Forecaster().double()
    return fit(model, waves[3:, :-1], waves[3:, 1:], waves[:3, :-1], waves[:3, 1:], args.steps, plot=args.plot)


if __name__ == "__main__":
    main()
