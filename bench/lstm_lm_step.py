"""Word-level LSTM language model step: Embedding 2000x128 -> LSTM 128->256 -> Linear 256->2000, 35 steps x
batch 20, cross-entropy, SGD(lr 1) after clip_grad_norm_(0.25). The same code runs on torch and on framework.

``make_step(torch_module, compiled=False)`` returns ``step()`` (one training step, returns the loss tensor);
``python -m bench.lstm_lm_step [--threads N] [--rounds R]`` prints ms/step for torch, framework eager and
framework.compile (fullgraph), interleaved, with the ratios to torch.
"""
from __future__ import annotations

import numpy as np

VOCAB, EMBED, HIDDEN, SEQ, BATCH = 2000, 128, 256, 35, 20


def make_model(torch, vocab: int = VOCAB, embed: int = EMBED, hidden: int = HIDDEN):
    """The language model built from the given ``torch`` module (torch or framework)."""
    nn = torch.nn

    class WordLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, embed)
            self.lstm = nn.LSTM(embed, hidden)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, tokens):
            y, _ = self.lstm(self.embed(tokens))
            return self.out(y)

    return WordLM()


def load_seeded(model, torch, seed: int = 0) -> None:
    """The same weights on every library: drawn with NumPy, copied in by name."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            p.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))


def make_step(torch, compiled: bool = False, seq: int = SEQ, batch: int = BATCH, vocab: int = VOCAB,
              embed: int = EMBED, hidden: int = HIDDEN, seed: int = 0):
    """One SGD step of the word LM on a fixed batch; ``compiled``: wrapped in framework.compile(fullgraph=True)."""
    model = make_model(torch, vocab, embed, hidden)
    load_seeded(model, torch, seed)
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    rng = np.random.default_rng(seed + 1)
    tokens = torch.from_numpy(rng.integers(0, vocab, (seq + 1, batch))).to(next(model.parameters()).device)
    x, y = tokens[:-1], tokens[1:].reshape(-1)
    F = torch.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, vocab), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
        return loss

    return torch.compile(step, fullgraph=True) if compiled else step


if __name__ == "__main__":
    from .workload_timing import main

    main(make_step, "word LM (LSTM) step")
