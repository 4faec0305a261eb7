"""Transformer layers (torch.nn.modules.transformer): the same objects as framework.nn."""
from ..transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: F401
                           TransformerEncoder, TransformerEncoderLayer)

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer"]
