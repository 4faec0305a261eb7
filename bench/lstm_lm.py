"""Word LM step: Embedding 2000×128 → LSTM 128→256 → Linear 2000; 35 steps × batch 20; SGD + clip_grad_norm_.  (The model: bench/models.py.)"""
from __future__ import annotations

from .models import run

if __name__ == "__main__":
    run("lstm_lm", __doc__)
