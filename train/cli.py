"""Command line: ``python -m train gan|classify [...]``.

Exit codes: 0 success, 2 bad arguments (argparse), 1 training failure or bad data/checkpoint; user
errors print one clear message, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np


def _out_dir(arg: str | None) -> str:
    return arg or os.path.join("runs", time.strftime("%Y%m%d-%H%M%S"))


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", default=None, help="output directory (default runs/<timestamp>)")
    p.add_argument("--quick", action="store_true", help="a short run (smoke test)")
    p.add_argument("--resume", action="store_true", help="continue from the newest valid checkpoint in --out")
    p.add_argument("--device", default="cpu", help="cpu or cuda[:N] (default cpu)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--data-dir", default=None, help="directory with MNIST IDX files or mnist.npz (for --data mnist)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m train", description="Train the framework's demo models.")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gan", help="train a GAN (default: the 8-Gaussian ring)",
                       description="Train a GAN; writes PNGs, metrics.json and checkpoints into --out.")
    g.add_argument("--data", choices=["ring", "grid", "digits", "mnist"], default="ring")
    g.add_argument("--steps", type=int, default=None, help="training steps (default 3000; 200 with --quick)")
    g.add_argument("--batch-size", type=int, default=256)
    g.add_argument("--lr", type=float, default=1e-3)
    g.add_argument("--mode", choices=["detach", "retain_graph"], default="detach",
                   help="how the D and G steps share the forward pass (see train/gan_trainer.py)")
    g.add_argument("--latent-dim", type=int, default=None, help="latent size (default 2 for 2-D data, 32 for images)")
    g.add_argument("--ema", type=float, default=None, help="evaluate an EMA of G's weights with this decay")
    g.add_argument("--checkpoint-every", type=int, default=None, help="steps between checkpoints (default 500)")
    g.add_argument("--eval-every", type=int, default=None)
    g.add_argument("--pitfalls", action="store_true",
                   help="run seed 002's three GAN variants and show each outcome with its explanation")
    _common(g)
    c = sub.add_parser("classify", help="train a classifier (default: sklearn digits, or moons without sklearn)",
                       description="Train a classifier; writes PNGs and metrics.json into --out.")
    c.add_argument("--data", choices=["digits", "moons", "spirals", "mnist"], default=None)
    c.add_argument("--epochs", type=int, default=None)
    c.add_argument("--batch-size", type=int, default=64)
    c.add_argument("--lr", type=float, default=None)
    _common(c)
    return parser


def _positive(parser, args, names):
    for n in names:
        v = getattr(args, n, None)
        if v is not None and v <= 0:
            parser.error(f"--{n.replace('_', '-')} must be positive (got {v})")


# ---- gan -------------------------------------------------------------------------------------------

def run_gan(args) -> dict:
    import framework
    from framework import optim
    from models import ConvDiscriminator, ConvGenerator, Discriminator, Generator

    from . import datasets, plotting
    from .gan_trainer import GANTrainer
    from .metrics import mode_metrics

    steps = args.steps or (200 if args.quick else 3000)
    out = _out_dir(args.out)
    os.makedirs(out, exist_ok=True)
    framework.manual_seed(args.seed)
    mixture = None
    if args.data in ("ring", "grid"):
        mixture = datasets.ring() if args.data == "ring" else datasets.grid()
        # a 2-D latent and a ReLU generator cover all modes sharply within ~3000 steps (see issue notes)
        latent = args.latent_dim or 2
        G, D = Generator(latent, 128, activation="relu"), Discriminator(2, 128)
        sample_real = mixture.sample

        def evaluate(samples):
            return mode_metrics(samples, mixture.centers, mixture.std)
    else:
        images, _ = datasets.digits() if args.data == "digits" else datasets.mnist(args.data_dir or "", "train")
        size = images.shape[-1]
        if images.shape[1:] != (1, size, size) or size not in (8, 28):
            raise datasets.DataError(f"expected (N, 1, 8, 8) or (N, 1, 28, 28) images, got {images.shape}")
        latent = args.latent_dim or 32
        G, D = ConvGenerator(latent, size), ConvDiscriminator(size)

        def sample_real(n, rng):
            return images[rng.integers(0, len(images), n)]

        evaluate = None
    betas = (0.5, 0.999)
    opt_g = optim.Adam(G.parameters(), lr=args.lr, betas=betas)
    opt_d = optim.Adam(D.parameters(), lr=args.lr, betas=betas)
    schedulers = {"G": optim.lr_scheduler.CosineAnnealingLR(opt_g, steps),
                  "D": optim.lr_scheduler.CosineAnnealingLR(opt_d, steps)}
    eval_every = args.eval_every or max(steps // 6, 1)
    checkpoint_every = args.checkpoint_every or min(500, max(steps // 4, 1))
    trainer = GANTrainer(G, D, opt_g, opt_d, sample_real, latent_dim=latent, batch_size=args.batch_size,
                         mode=args.mode, schedulers=schedulers, device=args.device,
                         progress=False if args.no_progress else None, out_dir=out,
                         checkpoint_every=checkpoint_every, eval_every=eval_every, evaluate_fn=evaluate,
                         data_seed=args.seed, ema=args.ema)
    history = trainer.fit(steps, resume=args.resume)
    framework.save({"G": G.state_dict(), "D": D.state_dict()}, os.path.join(out, "final.safetensors"))
    plotting.plot_curves({"D loss": history.column("loss_d"), "G loss": history.column("loss_g")},
                         os.path.join(out, "loss.png"), title="GAN losses")
    result = {"data": args.data, "steps": trainer.step, "seconds": round(trainer.seconds, 2), "mode": args.mode,
              "seed": args.seed}
    if mixture is not None:
        real = mixture.sample(2500, np.random.default_rng(1))
        plotting.plot_samples_2d(trainer.snapshots[-6:], real, mixture.centers, os.path.join(out, "samples.png"))
        plotting.plot_curves({"modes covered": history.column("modes_covered")}, os.path.join(out, "modes.png"),
                             title=f"modes covered (of {len(mixture.centers)})")
        plotting.plot_curves({"high-quality fraction": history.column("high_quality_fraction")},
                             os.path.join(out, "quality.png"), title="fraction of high-quality samples")
        result.update(mode_metrics(trainer.generate(2500), mixture.centers, mixture.std))
    else:
        plotting.plot_image_grid(np.clip(trainer.generate(64), 0, 1), os.path.join(out, "samples.png"),
                                 title=f"generated {args.data} after {trainer.step} steps")
    result["history"] = history.rows
    with open(os.path.join(out, "metrics.json"), "w") as f:
        json.dump(result, f, indent=1)
    summary = {k: v for k, v in result.items() if k != "history"}
    print(f"wrote {out}: " + ", ".join(f"{k}={v}" for k, v in summary.items()))
    return result


# ---- classify --------------------------------------------------------------------------------------

def run_classify(args) -> dict:
    import framework
    from framework import nn, optim
    from framework.utils.data import DataLoader, TensorDataset
    from models import MLP, SmallCNN

    from . import datasets, plotting
    from .trainer import Trainer

    data = args.data
    if data is None:
        try:
            import sklearn  # noqa: F401

            data = "digits"
        except ImportError:
            data = "moons"
    framework.manual_seed(args.seed)
    out = _out_dir(args.out)
    os.makedirs(out, exist_ok=True)
    if data == "digits":
        x, y = datasets.digits()
        model, epochs, lr = SmallCNN(10, 8, width=32), 30, 2e-3
    elif data == "mnist":
        x, y = datasets.mnist(args.data_dir or "", "train")
        model, epochs, lr = SmallCNN(10, 28), 2, 1e-3
    else:
        x, y = datasets.moons(1000) if data == "moons" else datasets.spirals(1500)
        model, epochs, lr = MLP([2, 64, 64, int(y.max()) + 1], "relu"), 60, 1e-2
    if args.quick:
        epochs = 2
    epochs = args.epochs or epochs
    perm = np.random.default_rng(args.seed).permutation(len(y))
    n_test = len(y) // 5
    test_idx, train_idx = perm[:n_test], perm[n_test:]
    train = TensorDataset(framework.from_numpy(x[train_idx]), framework.from_numpy(y[train_idx]))
    test = TensorDataset(framework.from_numpy(x[test_idx]), framework.from_numpy(y[test_idx]))
    opt = optim.Adam(model.parameters(), lr=args.lr or lr)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    trainer = Trainer(model, opt, nn.CrossEntropyLoss(), scheduler=sched, device=args.device,
                      progress=False if args.no_progress else None, out_dir=out, checkpoint_every=1)
    history = trainer.fit(DataLoader(train, batch_size=args.batch_size, shuffle=True), epochs,
                          val_loader=DataLoader(test, batch_size=256), resume=args.resume)
    final = trainer.evaluate(DataLoader(test, batch_size=256))
    plotting.plot_curves({"train loss": history.column("train_loss"), "test loss": history.column("val_loss")},
                         os.path.join(out, "loss.png"), title=f"{data}: loss")
    plotting.plot_curves({"train acc": history.column("train_acc"), "test acc": history.column("val_acc")},
                         os.path.join(out, "accuracy.png"), title=f"{data}: accuracy")
    if x.ndim == 2:
        def predict(points):
            with framework.no_grad():
                return model(framework.from_numpy(points)).argmax(dim=1).numpy()

        plotting.plot_decision_boundary(predict, x[test_idx], y[test_idx], os.path.join(out, "boundary.png"),
                                        title=f"{data}: test accuracy {final['acc']:.3f}")
    framework.save(model.state_dict(), os.path.join(out, "final.safetensors"))
    result = {"data": data, "epochs": trainer.epoch, "test_accuracy": final["acc"], "test_loss": final["loss"],
              "seconds": round(history.rows[-1]["seconds"], 2) if history.rows else 0.0, "history": history.rows}
    with open(os.path.join(out, "metrics.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {out}: data={data}, epochs={trainer.epoch}, test_accuracy={final['acc']:.4f}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _positive(parser, args, ["steps", "batch_size", "epochs", "checkpoint_every", "eval_every", "lr", "latent_dim"])
    device = getattr(args, "device", "cpu")
    if device != "cpu":
        import framework

        try:
            framework.device(device)
        except RuntimeError as e:
            parser.error(f"--device {device}: {e}")
        if not framework.cuda.is_available():
            parser.error(f"--device {device}: no CUDA device is available (framework needs cupy, e.g. "
                         "pip install -e '.[cuda]', and an NVIDIA GPU)")
    from framework.serialization import CheckpointError

    from .datasets import DataError
    from .trainer import TrainingError

    try:
        if args.command == "gan" and args.pitfalls:
            from .pitfalls import run

            run()
            return 0
        (run_gan if args.command == "gan" else run_classify)(args)
        return 0
    except (DataError, CheckpointError, TrainingError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
