"""Causal transformer LM step: Embedding 1000x128 + learned positions -> 2 x TransformerEncoderLayer (d 128,
4 heads, ff 512, no dropout, batch_first, causal mask) -> Linear 128->1000, batch 16 x 64 tokens, cross-entropy,
AdamW. The same code runs on torch and on framework.

``make_step(torch_module, compiled=False)`` returns ``step()`` (one training step, returns the loss tensor);
``python -m bench.transformer_step [--threads N] [--rounds R]`` prints ms/step for torch, framework eager and
framework.compile (fullgraph), interleaved, with the ratios to torch.
"""
from __future__ import annotations

import numpy as np

VOCAB, D_MODEL, HEADS, FF, LAYERS, BATCH, SEQ = 1000, 128, 4, 512, 2, 16, 64


def make_model(torch, vocab: int = VOCAB, d: int = D_MODEL, heads: int = HEADS, ff: int = FF, layers: int = LAYERS,
               seq: int = SEQ):
    """The causal transformer LM built from the given ``torch`` module (torch or framework)."""
    nn = torch.nn

    class TinyGPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Parameter(torch.zeros(seq, d))
            layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
            self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.head = nn.Linear(d, vocab)
            self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(seq))

        def forward(self, tokens):
            x = self.tok(tokens) + self.pos[:tokens.shape[1]]
            return self.head(self.blocks(x, mask=self.mask, is_causal=True))

    return TinyGPT()


def load_seeded(model, torch, seed: int = 0) -> None:
    """The same weights on every library: drawn with NumPy, copied in by name."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            p.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))


def make_step(torch, compiled: bool = False, batch: int = BATCH, seq: int = SEQ, vocab: int = VOCAB,
              d: int = D_MODEL, heads: int = HEADS, ff: int = FF, layers: int = LAYERS, seed: int = 0):
    """One AdamW step on a fixed batch; ``compiled``: wrapped in framework.compile(fullgraph=True)."""
    model = make_model(torch, vocab, d, heads, ff, layers, seq)
    load_seeded(model, torch, seed)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed + 1)
    tokens = torch.from_numpy(rng.integers(0, vocab, (batch, seq + 1))).to(next(model.parameters()).device)
    x, y = tokens[:, :-1], tokens[:, 1:].reshape(-1)
    F = torch.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, vocab), y)
        loss.backward()
        opt.step()
        return loss

    return torch.compile(step, fullgraph=True) if compiled else step


if __name__ == "__main__":
    from .workload_timing import main

    main(make_step, "causal transformer step")
