"""PyTorch's checkpoint formats: read with a restricted unpickler (no torch import), write torch.save's zip format."""
from .allowlist import (RefusedGlobal, add_safe_globals, clear_safe_globals, get_safe_globals,
                        safe_globals)
from .reader import load_legacy, load_zip
from .writer import to_bytes

__all__ = ["RefusedGlobal", "add_safe_globals", "clear_safe_globals", "get_safe_globals", "load_legacy",
           "load_zip", "safe_globals", "to_bytes"]
