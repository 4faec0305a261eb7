"""framework.onnx: torch.onnx.export for framework models (needs the `onnx` package: the [onnx] extra).

``export`` runs the model once under a tracer that records every op (framework/onnx/_tracer.py), maps each
op to ONNX nodes (_symbolic.py; whole modules such as LSTM and MultiheadAttention in _modules.py) and writes
the checked model. The `onnx` package is imported only when export is called.
"""
from __future__ import annotations

from ._export import (OnnxExporterError, OperatorExportTypes, TrainingMode, UnsupportedOperatorError, export,
                      is_in_onnx_export)

__all__ = ["export", "is_in_onnx_export", "TrainingMode", "OperatorExportTypes", "OnnxExporterError",
           "UnsupportedOperatorError"]
