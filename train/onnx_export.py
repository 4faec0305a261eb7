"""--export-onnx PATH: the trained model (classify) or generator (gan) written as ONNX, its batch size dynamic."""
from __future__ import annotations

import argparse


def add_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--export-onnx", metavar="PATH", default=None,
                   help="after training, write the model (classify) or the generator (gan) to PATH as ONNX with "
                        "a dynamic batch size (default: none; needs pip install 'framework[onnx]')")


def check_available(parser: argparse.ArgumentParser, args) -> None:
    """Refuse --export-onnx before training when the onnx package is missing (rather than after the run)."""
    if getattr(args, "export_onnx", None) is None:
        return
    if getattr(args, "seeds", None):
        parser.error("--export-onnx writes one model: it cannot be combined with --seeds")
    try:
        import onnx  # noqa: F401  (optional dependency: the [onnx] extra)
    except ImportError:
        parser.error("--export-onnx needs the onnx package: pip install 'framework[onnx]'")


def export(model, example, path: str) -> str:
    """Write ``model`` (run on ``example``, a batch of inputs) to ``path``; returns the line saying so."""
    import framework.onnx

    framework.onnx.export(model, (example,), path, input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    return f"{path}: the model as ONNX (input 'input', output 'output', batch size dynamic)"
