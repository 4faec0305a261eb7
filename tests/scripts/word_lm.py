"""Word-level language models (LSTM / GRU / Elman RNN / Transformer encoder) on a corpus generated from a toy
grammar, trained by truncated backpropagation through time with hand-written SGD.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises nn.Embedding, nn.LSTM / nn.GRU / nn.RNN(nonlinearity="relu"), weight tying, TransformerEncoder with a
sinusoidal position buffer and a causal mask, NLLLoss over log_softmax, narrow/view/t().contiguous() batching,
detached hidden states, clip_grad_norm_, p.data.add_(p.grad, alpha=-lr), learning-rate annealing, and
torch.save(model) / torch.load under serialization.safe_globals.

Run: PYTHONPATH=. python tests/scripts/word_lm.py --model GRU --epochs 3 --data /tmp/toy_corpus
"""
import argparse
import math
import os
import random

import framework as torch
import framework.nn as nn
import framework.nn.functional as F

SUBJECTS = ["the cat", "a dog", "my neighbour", "the old robot", "every child", "our teacher"]
VERBS = ["sees", "likes", "follows", "draws", "finds", "carries"]
OBJECTS = ["a red ball", "the moon", "two apples", "the small boat", "a paper kite", "the garden gate"]
ENDINGS = ["today", "at night", "again", "near the river", "with care", ""]


def write_corpus(folder: str, lines=(150, 30, 30), seed: int = 0) -> None:
    """train.txt / valid.txt / test.txt of sentences from a subject-verb-object grammar (the model can learn it)."""
    pick = random.Random(seed).choice
    os.makedirs(folder, exist_ok=True)
    for name, count in zip(("train", "valid", "test"), lines):
        with open(os.path.join(folder, f"{name}.txt"), "w") as f:
            for _ in range(count):
                f.write(" ".join(w for w in (pick(SUBJECTS), pick(VERBS), pick(OBJECTS), pick(ENDINGS)) if w) + "\n")


class Vocabulary:
    def __init__(self):
        self.index, self.words = {}, []

    def add(self, word: str) -> int:
        if word not in self.index:
            self.index[word] = len(self.words)
            self.words.append(word)
        return self.index[word]

    def __len__(self):
        return len(self.words)


def read_corpus(folder: str):
    """The three splits as 1-D int64 tensors of word ids ("<eos>" ends every line) and their shared vocabulary."""
    vocab, splits = Vocabulary(), []
    for name in ("train", "valid", "test"):
        with open(os.path.join(folder, f"{name}.txt")) as f:
            ids = [vocab.add(w) for line in f for w in line.split() + ["<eos>"]]
        splits.append(torch.tensor(ids, dtype=torch.int64))
    return vocab, splits


def columns(ids, batch: int):
    """Cut the id stream into `batch` equal columns: (length, batch), each column read top to bottom."""
    length = ids.size(0) // batch
    return ids.narrow(0, 0, length * batch).view(batch, -1).t().contiguous()


def window(source, start: int, bptt: int):
    """Inputs rows [start, start + n) and the next-word targets, flattened."""
    n = min(bptt, len(source) - 1 - start)
    return source[start:start + n], source[start + 1:start + 1 + n].reshape(-1)


def detach_state(state):
    """Keep the hidden values, drop their history (truncated backpropagation)."""
    return state.detach() if isinstance(state, torch.Tensor) else tuple(detach_state(s) for s in state)


class RecurrentLM(nn.Module):
    def __init__(self, kind: str, vocab: int, emb: int, hidden: int, layers: int, dropout: float = 0.2,
                 tie: bool = False):
        super().__init__()
        self.kind, self.hidden, self.layers = kind, hidden, layers
        self.drop = nn.Dropout(dropout)
        self.embed = nn.Embedding(vocab, emb)
        if kind in ("LSTM", "GRU"):
            self.rnn = getattr(nn, kind)(emb, hidden, layers, dropout=dropout)
        else:
            self.rnn = nn.RNN(emb, hidden, layers, nonlinearity=kind.split("_")[1].lower(), dropout=dropout)
        self.decode = nn.Linear(hidden, vocab)
        if tie:
            if hidden != emb:
                raise ValueError("tied weights need the embedding size to equal the hidden size")
            self.decode.weight = self.embed.weight
        nn.init.uniform_(self.embed.weight, -0.1, 0.1)
        nn.init.uniform_(self.decode.weight, -0.1, 0.1)
        nn.init.zeros_(self.decode.bias)

    def forward(self, ids, state):
        out, state = self.rnn(self.drop(self.embed(ids)), state)
        return F.log_softmax(self.decode(self.drop(out)).view(-1, self.decode.out_features), dim=1), state

    def initial_state(self, batch: int):
        zeros = self.decode.weight.new_zeros(self.layers, batch, self.hidden)
        return (zeros, zeros.clone()) if self.kind == "LSTM" else zeros


class SinusoidPositions(nn.Module):
    """Adds sin/cos position codes of geometrically spaced frequencies (a buffer, not a parameter)."""

    def __init__(self, width: int, longest: int = 512):
        super().__init__()
        where = torch.arange(longest, dtype=torch.float32).unsqueeze(1)
        rates = torch.exp(torch.arange(0, width, 2).float() * (-math.log(10000.0) / width))
        codes = torch.zeros(longest, 1, width)
        codes[:, 0, 0::2] = torch.sin(where * rates)
        codes[:, 0, 1::2] = torch.cos(where * rates)
        self.register_buffer("codes", codes)

    def forward(self, x):
        return x + self.codes[:x.size(0)]


class TransformerLM(nn.Module):
    def __init__(self, vocab: int, width: int, heads: int, ff: int, layers: int, dropout: float = 0.2):
        super().__init__()
        self.width = width
        self.embed = nn.Embedding(vocab, width)
        self.positions = SinusoidPositions(width)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(width, heads, ff, dropout), layers,
                                             enable_nested_tensor=False)  # sequence-first: no nested tensors
        self.decode = nn.Linear(width, vocab)

    def forward(self, ids, state=None):
        causal = nn.Transformer.generate_square_subsequent_mask(len(ids))
        x = self.positions(self.embed(ids) * math.sqrt(self.width))
        return F.log_softmax(self.decode(self.encoder(x, mask=causal)).view(-1, self.decode.out_features), dim=1), None


def train_epoch(model, data, criterion, lr: float, bptt: int, clip: float, batch: int) -> list:
    """One pass of truncated BPTT with plain SGD written out; the loss of every window."""
    model.train()
    state = model.initial_state(batch) if isinstance(model, RecurrentLM) else None
    losses = []
    for start in range(0, data.size(0) - 1, bptt):
        inputs, targets = window(data, start, bptt)
        model.zero_grad()
        if state is not None:
            state = detach_state(state)
        log_probs, state = model(inputs, state)
        loss = criterion(log_probs, targets)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        losses.append(loss.item())
    return losses


def evaluate(model, data, criterion, bptt: int, batch: int) -> float:
    model.eval()
    state = model.initial_state(batch) if isinstance(model, RecurrentLM) else None
    total = 0.0
    with torch.no_grad():
        for start in range(0, data.size(0) - 1, bptt):
            inputs, targets = window(data, start, bptt)
            log_probs, state = model(inputs, state)
            total += len(inputs) * criterion(log_probs, targets).item()
    return total / (len(data) - 1)


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="word language models on a toy grammar")
    parser.add_argument("--data", default="toy_corpus", help="folder of the generated corpus (written here)")
    parser.add_argument("--model", default="LSTM", choices=["LSTM", "GRU", "RNN_TANH", "RNN_RELU", "Transformer"])
    parser.add_argument("--size", type=int, default=16, help="embedding and hidden width")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--lr", type=float, default=20.0)
    parser.add_argument("--clip", type=float, default=0.25)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--bptt", type=int, default=8)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--tie", action="store_true")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--save", default="word_lm.pt", help="where the best model is torch.save'd whole")
    parser.add_argument("--one-window", action="store_true", help="train on the first two windows only (smoke test)")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    write_corpus(args.data)
    vocab, (train, valid, test) = read_corpus(args.data)
    train, valid, test = columns(train, args.batch), columns(valid, 5), columns(test, 5)
    if args.one_window:
        train, args.epochs = train[:2 * args.bptt + 1], 1
    if args.model == "Transformer":
        model = TransformerLM(len(vocab), args.size, args.heads, args.size, args.layers, args.dropout)
    else:
        model = RecurrentLM(args.model, len(vocab), args.size, args.size, args.layers, args.dropout, args.tie)
    criterion = nn.NLLLoss()
    lr, best, losses = args.lr, None, []
    for epoch in range(1, args.epochs + 1):
        losses += train_epoch(model, train, criterion, lr, args.bptt, args.clip, args.batch)
        val = evaluate(model, valid, criterion, args.bptt, 5)
        print(f"epoch {epoch}: valid loss {val:.3f}, perplexity {math.exp(val):.2f}")
        if best is None or val < best:
            with open(args.save, "wb") as f:
                torch.save(model, f)
            best = val
        else:
            lr /= 4.0  # no improvement: anneal
    allowed = [type(model), type(model.embed), type(model.decode), nn.Dropout, nn.LSTM, nn.GRU, nn.RNN,
               SinusoidPositions, nn.TransformerEncoder, nn.TransformerEncoderLayer, nn.MultiheadAttention,
               nn.LayerNorm, nn.ModuleList, nn.modules.linear.NonDynamicallyQuantizableLinear, F.relu]
    with open(args.save, "rb") as f, torch.serialization.safe_globals(allowed):
        model = torch.load(f)
    test_loss = evaluate(model, test, criterion, args.bptt, 5)
    print(f"test loss {test_loss:.3f}, perplexity {math.exp(test_loss):.2f}")
    return losses


if __name__ == "__main__":
    main()
