"""A character-level language model (LSTM, GRU or a tiny Transformer) trained on a short story written for this project.

Written as ordinary PyTorch code with ``import framework as torch``: nn.LSTM / nn.TransformerEncoder,
cross_entropy, AdamW, clip_grad_norm_, a tqdm progress bar, then a loss plot and a sampled text.

Run: python examples/char_rnn.py [--model lstm|gru|transformer] [--steps N] [--quick] [--out DIR]
"""
from __future__ import annotations

import argparse
import math
import os

from tqdm.auto import tqdm

import framework as torch
import framework.nn as nn
import framework.nn.functional as F

TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "harbour_log.txt")


class CharRNN(nn.Module):
    """Embedding -> LSTM/GRU -> linear decoder over the characters."""

    def __init__(self, vocab: int, hidden: int, layers: int, kind: str = "lstm", dropout: float = 0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        rnn = nn.LSTM if kind == "lstm" else nn.GRU
        self.rnn = rnn(hidden, hidden, layers, batch_first=True, dropout=dropout if layers > 1 else 0.0)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, idx, state=None):
        out, state = self.rnn(self.embed(idx), state)
        return self.head(out), state


class TinyTransformer(nn.Module):
    """Token + learned position embeddings -> causal TransformerEncoder (pre-norm, GELU) -> linear."""

    def __init__(self, vocab: int, d_model: int, layers: int, block: int, heads: int = 4, dropout: float = 0.1):
        super().__init__()
        self.block = block
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(block, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, idx, state=None):
        T = idx.size(1)
        x = self.embed(idx) + self.pos(torch.arange(T))
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        return self.head(self.encoder(x, mask=mask, is_causal=True)), None


def batches(data, batch_size: int, seq_len: int, generator):
    """Random windows of the text: inputs and the same windows shifted by one character."""
    while True:
        starts = torch.randint(0, len(data) - seq_len - 1, (batch_size,), generator=generator)
        offsets = torch.arange(seq_len + 1)
        windows = data[starts.unsqueeze(1) + offsets]
        yield windows[:, :-1], windows[:, 1:]


@torch.no_grad()
def sample(model, start, length: int, itos: list, temperature: float = 0.8, block: int | None = None) -> str:
    """Draw characters one by one from the model's softmax (torch.multinomial)."""
    model.eval()
    idx, state, out = start.unsqueeze(0), None, []
    for _ in range(length):
        if block is not None:  # the transformer rereads its last ``block`` characters
            logits, _ = model(idx[:, -block:])
        else:  # the RNN reads the prompt once, then one character at a time from its state
            logits, state = model(idx if state is None else idx[:, -1:], state)
        probs = F.softmax(logits[:, -1] / temperature, dim=-1)
        nxt = torch.multinomial(probs, 1)
        out.append(itos[nxt.item()])
        idx = torch.cat([idx, nxt], dim=1)
    model.train()
    return "".join(out)


def train(args) -> list[float]:
    torch.manual_seed(args.seed)
    with open(TEXT, encoding="utf-8") as f:
        text = f.read()
    itos = sorted(set(text))
    stoi = {c: i for i, c in enumerate(itos)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    if args.model == "transformer":
        model = TinyTransformer(len(itos), args.hidden, args.layers, args.seq_len)
    else:
        model = CharRNN(len(itos), args.hidden, args.layers, args.model)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)
    stream = batches(data, args.batch_size, args.seq_len, gen)
    losses = []
    bar = tqdm(range(args.steps), desc=f"char-{args.model}", disable=args.no_progress)
    for _ in bar:
        x, y = next(stream)
        logits, _ = model(x)
        loss = F.cross_entropy(logits.reshape(-1, len(itos)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        bar.set_postfix(loss=f"{loss.item():.3f}")
    print(f"{args.model}: loss {losses[0]:.3f} -> {losses[-1]:.3f} after {args.steps} steps "
          f"(uniform guess: {math.log(len(itos)):.3f})")
    block = args.seq_len if args.model == "transformer" else None
    print("sample:", repr(sample(model, data[:8], args.sample_len, itos, block=block)))
    args.model_obj = model
    return losses


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=["lstm", "gru", "transformer"], default="lstm")
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--sample-len", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--quick", action="store_true", help="a few steps of a small model (for tests)")
    p.add_argument("--out", default="char_rnn_run")
    args = p.parse_args(argv)
    if args.quick:
        args.steps, args.hidden, args.seq_len, args.batch_size, args.sample_len = 40, 32, 24, 8, 40
    losses = train(args)
    from train.plotting import plot_curves  # matplotlib: imported only when plotting

    path = plot_curves({f"char-{args.model} training loss": (list(range(len(losses))), losses)},
                       os.path.join(args.out, f"char_{args.model}_loss.png"), title="character LM, harbour log",
                       xlabel="step")
    print("wrote", path)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
