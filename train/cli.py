"""Command line: ``python -m train gan|classify [...]``.

Exit codes: 0 success, 2 bad arguments (argparse), 1 training failure or bad data/checkpoint; user
errors print one clear message, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

from . import onnx_export
from .gan_cli import add_gan_arguments, parse_seeds, run_gan, run_sweep


class OutputError(OSError):
    """--out cannot be used as the output directory."""


def _out_dir(arg: str | None) -> str:
    return arg or os.path.join("runs", time.strftime("%Y%m%d-%H%M%S"))


def prepare_out(arg: str | None) -> str:
    """Create the output directory; a one-line OutputError when it is a file or cannot be written."""
    out = _out_dir(arg)
    if os.path.exists(out) and not os.path.isdir(out):
        raise OutputError(f"--out {out}: is a file, not a directory")
    try:
        os.makedirs(out, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):  # os.access says yes to root even on a read-only file system
            pass
    except OSError as e:
        raise OutputError(f"--out {out}: cannot write there ({e.strerror or e})") from None
    return out


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", default=None, help="output directory (default runs/<timestamp>)")
    p.add_argument("--quick", action="store_true", help="a short run, a smoke test (off by default)")
    p.add_argument("--resume", action="store_true",
                   help="continue from the newest valid checkpoint in --out (off by default: start fresh)")
    p.add_argument("--device", default="cpu", help="cpu or cuda[:N] (default cpu)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (default: a bar when stderr is a terminal)")
    p.add_argument("--data-dir", default=None,
                   help="directory with MNIST IDX files or mnist.npz, for --data mnist (default none)")
    p.add_argument("--distributed", action="store_true",
                   help="data-parallel over MPI: mpiexec -n N python -m train ... --distributed; --batch-size is "
                        "per rank, so the effective batch is batch size x N (off by default; "
                        "pip install 'framework[distributed]')")
    p.add_argument("--tensorboard", action="store_true",
                   help="also log losses, metrics, learning rates, weight histograms and sample images for "
                        "TensorBoard into --out/tensorboard (off by default; pip install 'framework[tensorboard]', "
                        "then: tensorboard --logdir <out>/tensorboard)")
    onnx_export.add_argument(p)
    p.add_argument("--no-compile", action="store_true",
                   help="run the training step eagerly (default: captured once by framework.compile and replayed; "
                        "--distributed always runs eagerly, since DDP's hooks talk to MPI)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m train", description="Train the framework's demo models.")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gan", help="train a GAN (default: the 8-Gaussian ring)",
                       description="Train a GAN; writes PNGs, metrics.json and checkpoints into --out.")
    add_gan_arguments(g)
    _common(g)
    c = sub.add_parser("classify", help="train a classifier (default: sklearn digits, or moons without sklearn)",
                       description="Train a classifier; writes PNGs and metrics.json into --out.")
    c.add_argument("--data", choices=["digits", "moons", "spirals", "mnist"], default=None,
                   help="data set (default digits, or moons without scikit-learn)")
    c.add_argument("--epochs", type=int, default=None,
                   help="training epochs (default 30 digits, 2 mnist, 60 moons/spirals; 2 with --quick)")
    c.add_argument("--batch-size", type=int, default=64, help="samples per step (default 64)")
    c.add_argument("--lr", type=float, default=None,
                   help="Adam learning rate (default 0.002 digits, 0.001 mnist, 0.01 moons/spirals)")
    _common(c)
    return parser


def _positive(parser, args, names):
    for n in names:
        v = getattr(args, n, None)
        if v is not None and v <= 0:
            parser.error(f"--{n.replace('_', '-')} must be positive (got {v})")


# ---- classify --------------------------------------------------------------------------------------

def run_classify(args) -> dict:
    import framework
    from framework import nn, optim
    from framework.utils.data import DataLoader, DistributedSampler, TensorDataset
    from models import MLP, SmallCNN

    from . import datasets, distributed, plotting
    from .callbacks import TensorBoard
    from .trainer import Trainer

    data = args.data
    if data is None:
        try:
            import sklearn  # noqa: F401

            data = "digits"
        except ImportError:
            data = "moons"
    framework.manual_seed(args.seed)
    out = prepare_out(args.out)
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
    callbacks = []
    if args.tensorboard and args.rank == 0:
        callbacks.append(TensorBoard(os.path.join(out, "tensorboard"),
                                     samples=classify_samples(model, x[test_idx], y[test_idx], epochs)))
    trainer = Trainer(distributed.wrap(model, args), opt, nn.CrossEntropyLoss(), scheduler=sched, device=args.device,
                      progress=False if args.no_progress else None, out_dir=out if args.rank == 0 else None,
                      checkpoint_every=1, compile=not args.no_compile and not args.distributed, callbacks=callbacks)
    if args.distributed:  # each rank trains on its shard, reshuffled every epoch (the same way on all ranks)
        train_loader = DataLoader(train, batch_size=args.batch_size, sampler=DistributedSampler(train, seed=args.seed))
        distributed.average_logs(trainer)
        if args.resume:
            distributed.resume(trainer, args)
    else:
        train_loader = DataLoader(train, batch_size=args.batch_size, shuffle=True)
    history = trainer.fit(train_loader, epochs, val_loader=DataLoader(test, batch_size=256),
                          resume=args.resume and not args.distributed)
    final = trainer.evaluate(DataLoader(test, batch_size=256))
    if args.rank != 0:
        return {}
    plotting.plot_curves({"train loss": history.column("train_loss"), "test loss": history.column("val_loss")},
                         os.path.join(out, "loss.png"), title=f"{data}: loss")
    plotting.plot_curves({"train acc": history.column("train_acc"), "test acc": history.column("val_acc")},
                         os.path.join(out, "accuracy.png"), title=f"{data}: accuracy")
    if x.ndim == 2:
        def predict(points):
            with framework.no_grad():
                return model(framework.from_numpy(points).to(trainer.device)).argmax(dim=1).cpu().numpy()

        plotting.plot_decision_boundary(predict, x[test_idx], y[test_idx], os.path.join(out, "boundary.png"),
                                        title=f"{data}: test accuracy {final['acc']:.3f}")
    framework.save(model.state_dict(), os.path.join(out, "final.safetensors"))
    if args.export_onnx:
        print("wrote " + onnx_export.export(model, framework.from_numpy(x[test_idx[:2]]).to(trainer.device),
                                            args.export_onnx))
    result = {"data": data, "epochs": trainer.epoch, "test_accuracy": final["acc"], "test_loss": final["loss"],
              "seconds": round(history.rows[-1]["seconds"], 2) if history.rows else 0.0, "history": history.rows}
    with open(os.path.join(out, "metrics.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {out}: data={data}, epochs={trainer.epoch}, test_accuracy={final['acc']:.4f}")
    print("  final.safetensors: model weights; metrics.json: final metrics and history; loss.png, accuracy.png: "
          "curves" + ("; boundary.png: decision boundary" if x.ndim == 2 else "") + "; checkpoints/: resumable"
          + (f"; tensorboard/: event files (tensorboard --logdir {out}/tensorboard)" if args.tensorboard else ""))
    return result


def classify_samples(model, x: np.ndarray, y: np.ndarray, epochs: int):
    """--tensorboard's sample images for a classifier: test images with their predicted labels, or for 2-D data
    the decision boundary; about 6 times in a run, as the GAN evaluates (a boundary figure takes ~0.5 s to draw)."""
    import framework

    from . import plotting

    def predict(points: np.ndarray) -> np.ndarray:
        was = model.training
        model.eval()
        with framework.no_grad():
            device = next(model.parameters()).device
            labels = model(framework.from_numpy(points).to(device)).argmax(dim=1).cpu().numpy()
        model.train(was)
        return labels

    def log(trainer, writer, step: int) -> None:
        if trainer.epoch % max(epochs // 6, 1) and trainer.epoch < epochs:
            return
        if x.ndim == 4:
            images = x[:32]
            writer.add_images("samples/test_images", (images - images.min()) / max(float(np.ptp(images)), 1e-12),
                              step)
            predicted = predict(images)
            writer.add_text("samples/predictions", "predicted: " + " ".join(map(str, predicted)) + "  \n"
                            "true: " + " ".join(map(str, y[:32])), step)
        else:
            writer.add_figure("samples/decision_boundary", plotting.decision_boundary_figure(predict, x, y), step)

    return log


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _positive(parser, args, ["steps", "batch_size", "epochs", "checkpoint_every", "eval_every", "lr", "latent_dim",
                             "std", "pack", "jobs"])
    if getattr(args, "seeds", None) is not None:
        try:
            args.seeds = parse_seeds(args.seeds)
        except ValueError as e:
            parser.error(str(e))
    onnx_export.check_available(parser, args)
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
    if getattr(args, "tensorboard", False):
        try:
            import framework.utils.tensorboard  # noqa: F401  (the extra [tensorboard]: only with --tensorboard)
        except ImportError as e:
            parser.error(f"--tensorboard: {e}")
    from framework.serialization import CheckpointError

    from .datasets import DataError
    from .trainer import TrainingError

    args.rank, args.world_size = 0, 1
    if getattr(args, "distributed", False):
        from . import distributed  # imports framework.distributed: only when asked for

        distributed.setup(parser, args)
    try:
        if args.command == "gan" and args.pitfalls:
            from .pitfalls import run

            run()
            return 0
        if args.command == "gan":
            out = prepare_out(args.out)
            run_sweep(args, out) if args.seeds else run_gan(args, out)
        else:
            run_classify(args)
        return 0
    except (DataError, CheckpointError, TrainingError, OutputError) as e:
        return _fail(args, f"error: {e}", 1)
    except KeyboardInterrupt:
        return _fail(args, "interrupted", 130)


def _fail(args, message: str, code: int) -> int:
    """Print ``message`` and return the exit code; under --distributed with other ranks, end them all (MPI abort),
    whose one write carries the message: a separate print could be cut off by another rank's abort."""
    if args.world_size > 1:
        from .distributed import fail

        return fail(message, code)
    print(message, file=sys.stderr)
    return code
