"""2-layer causal transformer step: d 128, 4 heads, ff 512; 16 × 64 tokens; AdamW.  (The model: bench/models.py.)"""
from __future__ import annotations

from .models import run

if __name__ == "__main__":
    run("transformer", __doc__)
