"""A GPU-sized training step: MLP 4096-4096-4096-4096 (ReLU, MSE), batch 4096, Adam (--quick: 64 wide, batch 64)."""
from __future__ import annotations

import numpy as np

from .common import parse, report, skip, time_steps
from .data import linear_weights, load_into


def make_step(impl: str, quick: bool, device: str):
    width, batch = (64, 64) if quick else (4096, 4096)
    sizes = [width] * 4
    weights = linear_weights(sizes)
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((batch, width)).astype(np.float32)
    y0 = rng.standard_normal((batch, width)).astype(np.float32)
    m = __import__(impl)  # framework or torch; numpy has no GPU contender here
    model = m.nn.Sequential(m.nn.Linear(width, width), m.nn.ReLU(), m.nn.Linear(width, width), m.nn.ReLU(),
                            m.nn.Linear(width, width))
    load_into([model[0], model[2], model[4]], weights, m.from_numpy)
    model.to(device)
    opt = m.optim.Adam(model.parameters(), lr=1e-4)
    x, y = m.from_numpy(x0).to(device), m.from_numpy(y0).to(device)

    def step():
        opt.zero_grad()
        loss = m.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()  # a device sync: the step is timed to its end
    return step


def main() -> None:
    args = parse(__doc__)
    if args.impl in ("numpy", "framework-compiled"):  # compile replays NumPy steps only; CuPy ones run eagerly
        skip(args.impl, "gpu_mlp compares framework (eager) with torch only")
    median, trace = time_steps(make_step(args.impl, args.quick, args.device), 1 if args.quick else 5,
                               2 if args.quick else 30)
    report("gpu_mlp", args.impl, median, trace, device=args.device)


if __name__ == "__main__":
    main()
