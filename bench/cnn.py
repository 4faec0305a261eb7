"""LeNet-style CNN step: 2 conv 5×5 + ReLU + 2×2 max-pool, Linear; batch 64 of 28×28; Adam.  (The model: bench/models.py.)"""
from __future__ import annotations

from .models import run

if __name__ == "__main__":
    run("cnn", __doc__)
