"""framework.onnx: importable so that scripts doing ``import torch.onnx`` run; exporting is not supported."""
from __future__ import annotations


class OnnxExporterError(NotImplementedError):
    """ONNX export was asked for; framework has no exporter."""


def export(model=None, args=(), f=None, *rest, **kwargs) -> None:
    raise OnnxExporterError(
        "ONNX export is not supported by framework: it has no tracer or ONNX graph builder. To export, rebuild the "
        "model in PyTorch, load this model's weights there (framework.save(model.state_dict(), f, format='torch'), "
        "then torch.load) and call torch.onnx.export.")


def is_in_onnx_export() -> bool:
    return False
