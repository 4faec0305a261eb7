"""The real-model workloads (cnn, lstm_lm, transformer): each model written once, for a module ``m`` that is either
torch or framework (``import framework as torch``), started from the same seeded weights and data.

Each ``make_*`` returns ``step()``, one training step (forward, loss, backward, optimizer step) that returns the
loss as a float read after the (possibly compiled) step.
"""
from __future__ import annotations

import numpy as np

from .common import library


def load_weights(model, m, seed: int) -> None:
    """Every randomly initialised parameter set from one seeded generator (uniform ±1/sqrt(fan-in), in
    named_parameters order); constant ones (LayerNorm's ones and zeros) are left as they are."""
    rng = np.random.default_rng(seed)
    for _, p in model.named_parameters():
        a = p.detach().numpy()
        if a.size and a.min() == a.max():
            continue
        fan_in = int(np.prod(a.shape[1:])) if a.ndim > 1 else a.shape[0]
        bound = 1 / np.sqrt(fan_in)
        with m.no_grad():
            p.copy_(m.from_numpy(rng.uniform(-bound, bound, a.shape).astype(np.float32)))


def _compiled_step(m, compiled: bool, body, batches):
    """step(): body on the next batch (compiled with framework.compile when asked), its loss read outside."""
    body = m.compile(body) if compiled else body
    state = {"i": 0}

    def step():
        i = state["i"] = (state["i"] + 1) % len(batches)
        return body(*batches[i]).item()  # read outside the (compiled) step
    return step


# ---- cnn: LeNet-style, batch 64 of 28×28, Adam -------------------------------------------------------------------

def cnn_model(m, channels=(6, 16), classes: int = 10, size: int = 28):
    """conv 5×5 → ReLU → max-pool 2 → conv 5×5 → ReLU → max-pool 2 → flatten → Linear."""
    nn = m.nn
    c1, c2 = channels
    side = ((size - 4) // 2 - 4) // 2
    return nn.Sequential(nn.Conv2d(1, c1, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(c1, c2, 5), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(c2 * side * side, classes))


def make_cnn(impl: str, quick: bool):
    m, compiled = library(impl)
    batch = 8 if quick else 64
    model = cnn_model(m)
    load_weights(model, m, seed=20)
    rng = np.random.default_rng(21)
    batches = [(m.from_numpy(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)),
                m.from_numpy(rng.integers(0, 10, batch))) for _ in range(4)]
    opt = m.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = m.nn.CrossEntropyLoss()

    def body(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss.detach()
    return _compiled_step(m, compiled, body, batches)


# ---- lstm_lm: Embedding 2000×128 → LSTM 128→256 → Linear 2000, 35 steps × batch 20, SGD + clip_grad_norm_ ---------

def lstm_lm_model(m, vocab: int = 2000, emb: int = 128, hidden: int = 256):
    nn = m.nn

    class WordLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, emb)
            self.lstm = nn.LSTM(emb, hidden)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, tokens):  # (T, B) -> (T, B, vocab)
            h, _ = self.lstm(self.embed(tokens))
            return self.out(h)
    return WordLM()


def make_lstm_lm(impl: str, quick: bool):
    m, compiled = library(impl)
    steps, batch, vocab = (5, 4, 200) if quick else (35, 20, 2000)
    model = lstm_lm_model(m, vocab=vocab)
    load_weights(model, m, seed=30)
    rng = np.random.default_rng(31)
    batches = []
    for _ in range(4):
        seq = rng.integers(0, vocab, (steps + 1, batch))
        batches.append((m.from_numpy(seq[:-1]), m.from_numpy(seq[1:])))
    opt = m.optim.SGD(model.parameters(), lr=0.5)
    loss_fn = m.nn.CrossEntropyLoss()

    def body(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x).reshape(-1, vocab), y.reshape(-1))
        loss.backward()
        m.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
        return loss.detach()
    return _compiled_step(m, compiled, body, batches)


# ---- transformer: 2-layer causal, d 128, 4 heads, ff 512, 16 × 64 tokens, AdamW ----------------------------------

def transformer_model(m, vocab: int = 1000, d: int = 128, heads: int = 4, ff: int = 512, layers: int = 2):
    nn = m.nn

    class CausalLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True, norm_first=True)
            self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.out = nn.Linear(d, vocab)

        def forward(self, tokens, mask):  # (B, T) -> (B, T, vocab)
            return self.out(self.blocks(self.embed(tokens), mask=mask, is_causal=True))
    return CausalLM()


def make_transformer(impl: str, quick: bool):
    m, compiled = library(impl)
    batch, length, vocab = (2, 8, 100) if quick else (16, 64, 1000)
    model = transformer_model(m, vocab=vocab)
    load_weights(model, m, seed=40)
    mask = m.nn.Transformer.generate_square_subsequent_mask(length)
    rng = np.random.default_rng(41)
    batches = []
    for _ in range(4):
        seq = rng.integers(0, vocab, (batch, length + 1))
        batches.append((m.from_numpy(seq[:, :-1]), m.from_numpy(seq[:, 1:])))
    opt = m.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn = m.nn.CrossEntropyLoss()

    def body(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x, mask).reshape(-1, vocab), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss.detach()
    return _compiled_step(m, compiled, body, batches)


MAKERS = {"cnn": make_cnn, "lstm_lm": make_lstm_lm, "transformer": make_transformer}


def run(workload: str, doc: str) -> None:
    """The command line of one workload (python -m bench.<workload> --impl ...): time it and print its JSON line.
    step_peak_mb: the peak of live bytes allocated during one steady-state step above those live before it;
    held_mb: the bytes live between steps (parameters, optimizer state, data, a compiled step's buffers); both
    measured on a fresh step in a separate pass after the timed steps (bench.common.memory_pass: tracemalloc for
    framework, torch.profiler's memory events for torch)."""
    from .common import memory_pass, parse, report, skip, time_steps

    args = parse(doc)
    if args.impl == "numpy":
        skip("numpy", "no hand-written NumPy version of this model")
    step = MAKERS[workload](args.impl, args.quick)
    warmup, steps = (2, 3) if args.quick else (5, 20)
    trace = [step() for _ in range(warmup)]
    median, timed = time_steps(step, 0, steps)
    del step  # the memory pass builds its own: what this one holds is not in its count
    memory = memory_pass(lambda: MAKERS[workload](args.impl, args.quick), args.impl)
    report(workload, args.impl, median, trace + timed, **memory)
