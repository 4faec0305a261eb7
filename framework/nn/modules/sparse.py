"""Embeddings (torch.nn.modules.sparse): the same objects as framework.nn."""
from ..layers import Embedding  # noqa: F401

from ..layers_extra import EmbeddingBag  # noqa: F401

__all__ = ["Embedding", "EmbeddingBag"]
