"""``python -m train gan``: options, one run, and a sweep over seeds (``--seeds 0-9``) that writes one table."""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os

import numpy as np

# The papers' protocol (VEEGAN, PacGAN): ring of 8 / 5x5 grid, std 0.02, 2,500 samples, high quality = within 3 std.
PROTOCOLS = {"demo": 0.05, "paper": 0.02}
# Recipes (see docs/guides/gan.md for what each one measured): 'plain' = the 2-layer ReLU G with cosine decay;
# 'sharp' = a batch-norm G; 'fast-g' (the ring's default) = sharp with a constant lr dropped late and G learning 3x
# faster than D; 'long' = fast-g for 6,000 steps (the papers' ring protocol); 'grid' = wider and deeper plain nets,
# trained longer; 'grid-r1' (the grid's default) = grid with an R1 penalty on D, so every seed covers all 25 modes;
# 'digits' (the default for --data digits) = the DCGAN twice as wide, G learning twice as fast as D, evaluated
# through an EMA of G's weights, for 6,000 steps
RECIPES = {"plain": {}, "sharp": {"g_batchnorm": True},
           "fast-g": {"g_batchnorm": True, "lr_schedule": "late", "lr_g": 3e-3},
           "long": {"g_batchnorm": True, "lr_schedule": "late", "lr_g": 3e-3, "steps": 6000},
           "grid": {"g_width": 256, "g_depth": 3, "d_width": 256, "d_depth": 3, "lr_schedule": "late",
                    "steps": 12000},
           "grid-r1": {"g_width": 256, "g_depth": 3, "d_width": 256, "d_depth": 3, "lr_schedule": "late",
                       "steps": 12000, "r1": 0.1},
           "digits": {"g_width": 64, "d_width": 64, "lr_g": 2e-3, "ema": 0.99, "steps": 6000}}
IMAGE_WIDTH = 32  # the DCGAN's base channel count for images when no recipe or option sets it


def add_gan_arguments(g: argparse.ArgumentParser) -> None:
    g.add_argument("--data", choices=["ring", "grid", "digits", "mnist"], default="ring",
                   help="ring of 8 Gaussians, 5x5 grid of Gaussians, sklearn's 8x8 digits, or MNIST files "
                        "(default ring)")
    g.add_argument("--protocol", choices=sorted(PROTOCOLS), default="demo",
                   help="2-D data: 'paper' = std 0.02 as in VEEGAN/PacGAN, 'demo' = std 0.05 (default demo)")
    g.add_argument("--std", type=float, default=None,
                   help="2-D data: std of each Gaussian (default: from --protocol, 0.05 or 0.02)")
    g.add_argument("--recipe", choices=list(RECIPES), default=None,
                   help="'plain' = 2-layer ReLU G, cosine decay; 'sharp' = --g-batchnorm; 'fast-g' = --g-batchnorm "
                        "--lr-schedule late --lr-g 0.003; 'long' = fast-g with --steps 6000; 'grid' = plain with G "
                        "and D 256 wide, 3 deep, --lr-schedule late --steps 12000; 'grid-r1' = grid with --r1 0.1; "
                        "'digits' = plain with --g-width 64 --d-width 64 --lr-g 0.002 --ema 0.99 --steps 6000; "
                        "explicit options win (default fast-g for the ring, grid-r1 for the grid, digits for digits, "
                        "plain for MNIST)")
    g.add_argument("--steps", type=int, default=None,
                   help="training steps (default 3000, 6000 with --recipe long and digits, 12000 with grid and "
                        "grid-r1; 200 with --quick)")
    g.add_argument("--batch-size", type=int, default=None, help="samples per step (default 256)")
    g.add_argument("--lr", type=float, default=None,
                   help="Adam learning rate of G and D (default 0.001; G's is 0.003 in the fast-g and long recipes)")
    g.add_argument("--lr-d", type=float, default=None,
                   help="D's learning rate, if it should differ from G's (two time-scale update; default --lr)")
    g.add_argument("--lr-g", type=float, default=None,
                   help="G's learning rate: a G faster than D keeps thinning the samples between modes (default "
                        "0.003 in the fast-g and long recipes, 0.002 in digits, else --lr)")
    g.add_argument("--d-steps", type=int, default=None,
                   help="D updates per G update, each on fresh real and fake samples (default 1)")
    g.add_argument("--g-width", type=int, default=None,
                   help="G's hidden width; for images the DCGAN's base channel count (default 128 for 2-D data, "
                        "256 in the grid recipes; 32 for images, 64 in the digits recipe)")
    g.add_argument("--g-depth", type=int, default=None,
                   help="2-D data: G's hidden layers (default 2, or 4 with --g-batchnorm; 3 in the grid recipes)")
    g.add_argument("--d-width", type=int, default=None,
                   help="D's hidden width; for images the DCGAN's base channel count (default 128 for 2-D data, "
                        "256 in the grid recipes; 32 for images, 64 in the digits recipe)")
    g.add_argument("--d-depth", type=int, default=None,
                   help="2-D data: D's hidden layers (default 2; 3 in the grid recipes)")
    g.add_argument("--lr-schedule", choices=["cosine", "late", "constant"], default=None,
                   help="cosine annealing to 0, 'late': x0.1 for the last quarter, or constant (default late in the "
                        "fast-g, long, grid and grid-r1 recipes, else cosine)")
    g.add_argument("--mode", choices=["detach", "retain_graph"], default="detach",
                   help="how the D and G steps share the forward pass (see train/gan_trainer.py; default detach)")
    g.add_argument("--latent-dim", type=int, default=None,
                   help="latent size (default 2 for 2-D data, 32 for images)")
    g.add_argument("--g-batchnorm", action="store_true", default=None,
                   help="2-D data: G = 4 x (Linear, BatchNorm1d, ReLU), which makes the steep transitions that "
                        "leave few samples between modes (default on in the sharp, fast-g and long recipes; off in "
                        "plain: the 2-layer ReLU G)")
    g.add_argument("--r1", type=float, default=None,
                   help="R1 gradient penalty weight on D at real data: a double backward that keeps D smooth so "
                        "G converges instead of circling (default off; 0.1 in the grid-r1 recipe)")
    g.add_argument("--pack", type=int, default=None,
                   help="PacGAN: D judges this many samples at once, which exposes mode collapse (default 1)")
    g.add_argument("--noise", choices=["normal", "uniform"], default=None,
                   help="G's latent distribution: standard normal, or uniform on [-1, 1] (default normal)")
    g.add_argument("--minibatch-std", action="store_true", default=None,
                   help="D also sees the batch's spread (minibatch standard deviation), so a G whose samples bunch "
                        "on a few modes is easy to spot (default off)")
    g.add_argument("--spectral-norm", action="store_true", default=None,
                   help="spectral normalisation of every Linear/Conv layer of D: it bounds D's Lipschitz constant so "
                        "D cannot overpower G (default off)")
    g.add_argument("--ema", type=float, default=None,
                   help="evaluate an exponential moving average of G's weights with this decay; 0 turns it off "
                        "(default 0.99 in the digits recipe, else off)")
    g.add_argument("--checkpoint-every", type=int, default=None,
                   help="steps between checkpoints (default 500, or steps/4 if less)")
    g.add_argument("--eval-every", type=int, default=None, help="steps between evaluations (default steps/6)")
    g.add_argument("--seeds", default=None,
                   help="run every seed of a list like 0-9 or 0,3,5 into --out/seed-N and write table.md "
                        "(default: one run with --seed)")
    g.add_argument("--jobs", type=int, default=1, help="with --seeds: runs at the same time, one process each "
                                                        "(default 1)")
    g.add_argument("--pitfalls", action="store_true",
                   help="run seed 002's three GAN variants and show each outcome with its explanation (off by "
                        "default)")


def parse_seeds(text: str) -> list[int]:
    """'0-9' -> [0..9], '0,3,5' -> [0, 3, 5], '0-2,7' -> [0, 1, 2, 7]."""
    seeds: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ValueError(f"--seeds {text!r}: expected numbers and ranges such as 0-9 or 0,3,5")
        seeds.extend(range(int(lo), int(hi) + 1) if hi else [int(lo)])
    return seeds


def recipe_name(args) -> str:
    """--recipe, or its default: fast-g for the ring, grid-r1 for the grid, digits for digits, plain for MNIST."""
    return args.recipe or {"ring": "fast-g", "grid": "grid-r1", "digits": "digits"}.get(args.data, "plain")


def resolve(args) -> dict:
    """The recipe's settings with the explicit options on top."""
    recipe = dict(RECIPES[recipe_name(args)])
    chosen = {"r1": args.r1, "pack": args.pack, "lr_schedule": args.lr_schedule, "steps": args.steps,
              "g_batchnorm": args.g_batchnorm, "spectral_norm": args.spectral_norm, "lr_d": args.lr_d,
              "lr_g": args.lr_g, "d_steps": args.d_steps, "g_width": args.g_width, "g_depth": args.g_depth,
              "d_width": args.d_width, "d_depth": args.d_depth, "batch_size": args.batch_size, "lr": args.lr,
              "noise": args.noise, "minibatch_std": args.minibatch_std, "latent_dim": args.latent_dim,
              "ema": args.ema}
    width = 128 if args.data in ("ring", "grid") else IMAGE_WIDTH
    settings = {"r1": 0.0, "pack": 1, "lr_schedule": "cosine", "steps": 3000, "g_batchnorm": False,
                "spectral_norm": False, "d_steps": 1, "g_width": width, "d_width": width, "d_depth": 2,
                "batch_size": 256, "lr": 1e-3, "noise": "normal", "minibatch_std": False, "ema": 0.0, **recipe}
    settings.update({k: v for k, v in chosen.items() if v is not None})
    settings.setdefault("g_depth", 4 if settings["g_batchnorm"] else 2)
    settings["lr_d"] = settings.get("lr_d") or settings["lr"]
    settings["lr_g"] = settings.get("lr_g") or settings["lr"]
    if args.quick and args.steps is None:
        settings["steps"] = 200
    settings["std"] = args.std if args.std is not None else PROTOCOLS[args.protocol]
    return settings


def _digit_split(images: np.ndarray, labels: np.ndarray, seed: int = 0):
    """80/20 split, test = the first fifth of a seeded permutation (``classify``'s split for seed 0)."""
    perm = np.random.default_rng(seed).permutation(len(labels))
    n_test = len(labels) // 5
    return images[perm[n_test:]], labels[perm[n_test:]], images[perm[:n_test]], labels[perm[:n_test]]


_CLASSIFIERS: dict = {}  # one digit classifier per data set and process (a sweep trains it once)


def digit_classifier(name: str, x_train, y_train, x_test, y_test, quick: bool = False):
    """The framework-trained classifier that judges generated digits, with its test accuracy."""
    from .image_quality import train_classifier  # start-up cost: only image runs need it

    key = (name, quick, len(x_train))
    if key not in _CLASSIFIERS:
        epochs = 1 if quick else (30 if name == "digits" else 2)
        _CLASSIFIERS[key] = train_classifier(x_train, y_train, x_test, y_test, epochs=epochs)
    return _CLASSIFIERS[key]


def run_gan(args, out: str) -> dict:
    """One training run into ``out``; returns the metrics written to metrics.json."""
    import framework
    from framework import optim
    from models import BNGenerator, ConvDiscriminator, ConvGenerator, Discriminator, Generator

    from . import datasets, distributed, onnx_export, plotting
    from .gan_techniques import MinibatchStd, Packed, late_decay, spectral_normed
    from .gan_trainer import GANTrainer
    from .metrics import mode_metrics

    cfg = resolve(args)
    steps = cfg["steps"]
    framework.manual_seed(args.seed)
    mixture = None
    written = {}
    if args.data in ("ring", "grid"):
        mixture = datasets.ring(std=cfg["std"]) if args.data == "ring" else datasets.grid(std=cfg["std"])
        # a 2-D latent and a ReLU generator cover all modes sharply within ~3000 steps (see issue notes)
        latent = cfg.get("latent_dim") or 2
        width, depth = cfg["g_width"], cfg["g_depth"]
        G = BNGenerator(latent, width, depth) if cfg["g_batchnorm"] else Generator(latent, width, depth)
        D = Discriminator(2 * cfg["pack"] + cfg["minibatch_std"], cfg["d_width"], cfg["d_depth"])
        sample_real = mixture.sample

        def evaluate(samples):
            return mode_metrics(samples, mixture.centers, mixture.std)
    else:
        images, labels = datasets.digits() if args.data == "digits" else datasets.mnist(args.data_dir or "", "train")
        size = images.shape[-1]
        if images.shape[1:] != (1, size, size) or size not in (8, 28):
            raise datasets.DataError(f"expected (N, 1, 8, 8) or (N, 1, 28, 28) images, got {images.shape}")
        x_train, y_train, x_test, y_test = _digit_split(images, labels)
        latent = cfg.get("latent_dim") or 32
        G = ConvGenerator(latent, size, width=cfg["g_width"])
        D = ConvDiscriminator(size, channels=cfg["pack"], width=cfg["d_width"])

        def sample_real(n, rng):
            return x_train[rng.integers(0, len(x_train), n)]

        evaluate = None
    if cfg["spectral_norm"]:
        D = spectral_normed(D)
    if cfg["minibatch_std"]:
        if mixture is None:
            raise ValueError("--minibatch-std is for 2-D data (--data ring or grid)")
        D = MinibatchStd(D)
    if cfg["pack"] > 1:
        D = Packed(D, cfg["pack"])
    betas = (0.5, 0.999)
    G_raw, G, D = G, distributed.wrap(G, args), distributed.wrap(D, args)
    opt_g = optim.Adam(G.parameters(), lr=cfg["lr_g"], betas=betas)
    opt_d = optim.Adam(D.parameters(), lr=cfg["lr_d"], betas=betas)
    if cfg["lr_schedule"] == "cosine":
        schedulers = {"G": optim.lr_scheduler.CosineAnnealingLR(opt_g, steps),
                      "D": optim.lr_scheduler.CosineAnnealingLR(opt_d, steps)}
    elif cfg["lr_schedule"] == "late":
        schedulers = {"G": optim.lr_scheduler.LambdaLR(opt_g, late_decay(steps)),
                      "D": optim.lr_scheduler.LambdaLR(opt_d, late_decay(steps))}
    else:
        schedulers = {}
    eval_every = args.eval_every or max(steps // 6, 1)
    checkpoint_every = args.checkpoint_every or min(500, max(steps // 4, 1))
    callbacks = []
    if getattr(args, "tensorboard", False) and args.rank == 0:
        from .callbacks import TensorBoard

        callbacks.append(TensorBoard(os.path.join(out, "tensorboard"), every=eval_every,
                                     samples=gan_samples(mixture)))
        written["tensorboard/"] = f"event files for TensorBoard (tensorboard --logdir {out}/tensorboard)"
    trainer = GANTrainer(G, D, opt_g, opt_d, sample_real, latent_dim=latent, batch_size=cfg["batch_size"],
                         callbacks=callbacks,
                         mode=args.mode, schedulers=schedulers, device=args.device,
                         progress=False if args.no_progress else None, out_dir=out if args.rank == 0 else None,
                         checkpoint_every=checkpoint_every, eval_every=eval_every, evaluate_fn=evaluate,
                         data_seed=args.seed, ema=cfg["ema"] or None, r1=cfg["r1"], pack=cfg["pack"],
                         d_steps=cfg["d_steps"], noise=cfg["noise"],
                         compile=not args.no_compile and not args.distributed)
    trainer.rank, trainer.world_size = args.rank, args.world_size
    if args.distributed:
        distributed.average_logs(trainer)
        if args.resume:
            distributed.resume(trainer, args)
    history = trainer.fit(steps, resume=args.resume and not args.distributed)
    if args.rank != 0:
        return {}
    framework.save({"G": G_raw.state_dict(), "D": getattr(D, "module", D).state_dict()},
                   os.path.join(out, "final.safetensors"))
    written["final.safetensors"] = "G and D weights"
    if args.export_onnx:
        onnx_export.export(G_raw, framework.randn(2, latent, device=trainer.device), args.export_onnx)
        written[args.export_onnx] = "the generator as ONNX (input: a batch of latents, batch size dynamic)"
    plotting.plot_curves({"D loss": history.column("loss_d"), "G loss": history.column("loss_g")},
                         os.path.join(out, "loss.png"), title="GAN losses")
    written["loss.png"] = "D and G losses"
    result = {"data": args.data, "steps": trainer.step, "seconds": round(trainer.seconds, 2), "mode": args.mode,
              "seed": args.seed, "recipe": recipe_name(args), "r1": cfg["r1"], "pack": cfg["pack"], "ema": cfg["ema"],
              "g_batchnorm": cfg["g_batchnorm"], "spectral_norm": cfg["spectral_norm"],
              "lr_schedule": cfg["lr_schedule"], "noise": cfg["noise"], "minibatch_std": cfg["minibatch_std"],
              "latent_dim": latent,
              **{k: cfg[k] for k in ("lr_d", "lr_g", "d_steps", "batch_size", "g_width", "g_depth", "d_width",
                                     "d_depth")}}
    if mixture is not None:
        result["protocol"] = (f"{'paper' if cfg['std'] == PROTOCOLS['paper'] else 'demo'}: {args.data} of "
                              f"{len(mixture.centers)} Gaussians, std {cfg['std']}, 2500 samples, "
                              f"high quality = within 3 std of a mode, covered = at least 1% of samples")
        result["std"] = cfg["std"]
        real = mixture.sample(2500, np.random.default_rng(1))
        plotting.plot_samples_2d(trainer.snapshots[-6:], real, mixture.centers, os.path.join(out, "samples.png"))
        plotting.plot_curves({"modes covered": history.column("modes_covered")}, os.path.join(out, "modes.png"),
                             title=f"modes covered (of {len(mixture.centers)})")
        plotting.plot_curves({"high-quality fraction": history.column("high_quality_fraction")},
                             os.path.join(out, "quality.png"), title="fraction of high-quality samples")
        written.update({"samples.png": "generated samples over training", "modes.png": "modes covered",
                        "quality.png": "high-quality fraction"})
        result.update(mode_metrics(trainer.generate(2500), mixture.centers, mixture.std))
    else:
        from .image_quality import image_quality  # start-up cost: only image runs need it

        model, accuracy = digit_classifier(args.data, x_train, y_train, x_test, y_test, quick=args.quick)
        n = 1000 if args.quick else 10000
        generated = np.clip(np.concatenate([trainer.generate(1000, seed=12345 + i) for i in range(n // 1000)]), 0, 1)
        quality = image_quality(model, generated, x_test, x_train)
        result["protocol"] = (f"{args.data}: {len(generated)} generated images labelled by a framework-trained "
                              f"classifier (test accuracy {accuracy:.4f}); covered = at least 1% of samples, "
                              "confident = max probability >= 0.9, Frechet distance on its penultimate features vs "
                              "the real test split (floor: real training split vs test split)")
        result.update({"classifier_test_accuracy": accuracy, **quality})
        plotting.plot_image_grid(generated[:64], os.path.join(out, "samples.png"),
                                 title=f"generated {args.data} after {trainer.step} steps")
        written["samples.png"] = "64 generated images"
    result["history"] = history.rows
    with open(os.path.join(out, "metrics.json"), "w") as f:
        json.dump(result, f, indent=1)
    written.update({"metrics.json": "final metrics and history", "metrics.csv": "history",
                    "checkpoints/": "resumable checkpoints"})
    summary = {k: v for k, v in result.items() if k not in ("history", "protocol", "class_histogram")}
    print(f"wrote {out}: " + ", ".join(f"{k}={_fmt(v)}" for k, v in summary.items()))
    print("  " + "; ".join(f"{name}: {what}" for name, what in written.items()))
    return result


def gan_samples(mixture):
    """--tensorboard's sample images: 64 generated images, or for 2-D data a scatter of 1,000 generated points
    over the real data."""
    from . import plotting

    real = mixture.sample(2500, np.random.default_rng(1)) if mixture is not None else None

    def log(trainer, writer, step: int) -> None:
        if mixture is None:
            writer.add_images("samples/generated", np.clip(trainer.generate(64), 0, 1), step)
        else:
            figure = plotting.samples_2d_figure([(step, trainer.generate(1000))], real, mixture.centers)
            writer.add_figure("samples/generated", figure, step)

    return log


def _fmt(v):
    return f"{v:.4f}" if isinstance(v, float) else v


TABLE_COLUMNS = {  # metric -> column title, for 2-D mixtures and for images
    "2d": [("modes_covered", "modes"), ("high_quality_fraction", "high quality"), ("seconds", "seconds")],
    "images": [("modes_covered", "classes"), ("kl_uniform", "KL vs uniform"), ("confident_fraction", "confident"),
               ("frechet_distance", "Frechet"), ("frechet_floor_real", "Frechet, real"), ("seconds", "seconds")],
}


def sweep_table(rows: list[dict]) -> str:
    """A markdown table: one row per seed, then median, minimum and mean of each column."""
    kind = "images" if "kl_uniform" in rows[0] else "2d"
    cols = TABLE_COLUMNS[kind]
    lines = ["| seed | " + " | ".join(title for _, title in cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for r in rows:
        lines.append(f"| {r['seed']} | " + " | ".join(_cell(r[key]) for key, _ in cols) + " |")
    for name, fn in (("median", np.median), ("min", np.min), ("mean", np.mean)):
        lines.append(f"| {name} | " + " | ".join(_cell(float(fn([r[key] for r in rows]))) for key, _ in cols) + " |")
    return "\n".join(lines) + "\n"


def _cell(v) -> str:
    return f"{v:.3f}" if isinstance(v, float) and not float(v).is_integer() else f"{v:g}"


def run_sweep(args, out: str) -> list[dict]:
    """run_gan for every seed in ``args.seeds`` into out/seed-N; table.md and table.json summarise them."""
    jobs = [(argparse.Namespace(**{**vars(args), "seed": seed}), os.path.join(out, f"seed-{seed}"))
            for seed in args.seeds]
    if args.jobs > 1:  # each seed in its own process; the runs do not share state, so results are the same
        with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(_run_one, jobs))
    else:
        rows = [_run_one(job) for job in jobs]
    table = sweep_table(rows)
    header = f"`{' '.join(['python -m train gan'] + _argv_summary(args))}`, {rows[0].get('protocol', '')}\n\n"
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(header + table)
    with open(os.path.join(out, "table.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(table)
    print(f"wrote {out}: table.md (one row per seed, then median/min/mean), table.json (every metric), "
          f"seed-N/ (each run's files)")
    return rows


def _run_one(job) -> dict:
    args, out = job
    return {k: v for k, v in run_gan(args, out).items() if k != "history"}


def _argv_summary(args) -> list[str]:
    """The options that shape a sweep's runs, as command-line text for the table's header."""
    parts = [f"--data {args.data}", f"--protocol {args.protocol}", f"--recipe {recipe_name(args)}"]
    for name in ("std", "steps", "r1", "pack", "ema", "lr_schedule", "latent_dim", "batch_size", "lr", "lr_d", "lr_g",
                 "d_steps", "g_width", "g_depth", "d_width", "d_depth", "noise"):
        value = getattr(args, name)
        if value is not None:
            parts.append(f"--{name.replace('_', '-')} {value}")
    if args.g_batchnorm:
        parts.append("--g-batchnorm")
    if args.spectral_norm:
        parts.append("--spectral-norm")
    if args.minibatch_std:
        parts.append("--minibatch-std")
    return parts + [f"--seeds {args.seeds[0]}-{args.seeds[-1]}" if args.seeds == list(
        range(args.seeds[0], args.seeds[-1] + 1)) else "--seeds " + ",".join(map(str, args.seeds))]
