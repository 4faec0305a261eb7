"""Model code of our own, in the style of common PyTorch example scripts, run unmodified against framework and torch.

Each model below is ordinary PyTorch code written here (recurrent and Transformer language models trained by
hand-written SGD, an LSTMCell forecaster, a smooth-L1 polynomial fit and a small GPT). The same source text is executed
twice: after ``import torch`` and after ``import framework as torch``. With torch's weights copied in, the
outputs, losses and gradients must agree (float64).
"""
import math
import textwrap

import numpy as np
import pytest

import framework
from framework.testing import assert_close

torch = pytest.importorskip("torch")
TOL = dict(rtol=1e-9, atol=1e-11)

HEADER = "import math\nimport {mod} as torch\nimport {mod}.nn as nn\nimport {mod}.nn.functional as F\n"

WORD_LM = textwrap.dedent('''
    class RecurrentLM(nn.Module):
        """Token ids (seq, batch) -> embeddings -> a recurrent stack -> log-probabilities over the vocabulary."""

        def __init__(self, cell, vocab, width, hidden, depth, dropout=0.5, tie=False):
            super().__init__()
            self.cell, self.vocab, self.hidden, self.depth = cell, vocab, hidden, depth
            self.embed = nn.Embedding(vocab, width)
            self.dropout = nn.Dropout(dropout)
            if cell in ("LSTM", "GRU"):
                self.stack = getattr(nn, cell)(width, hidden, depth, dropout=dropout)
            else:  # "RNN_TANH" / "RNN_RELU"
                self.stack = nn.RNN(width, hidden, depth, nonlinearity=cell[4:].lower(), dropout=dropout)
            self.out = nn.Linear(hidden, vocab)
            if tie:
                self.out.weight = self.embed.weight
            for w in (self.embed.weight, self.out.weight):
                nn.init.uniform_(w, -0.1, 0.1)
            nn.init.zeros_(self.out.bias)

        def forward(self, ids, state):
            seq, state = self.stack(self.dropout(self.embed(ids)), state)
            logits = self.out(self.dropout(seq))
            return F.log_softmax(logits.reshape(-1, self.vocab), dim=1), state

        def zero_state(self, batch):
            h = next(self.parameters()).new_zeros(self.depth, batch, self.hidden)
            return (h, h.clone()) if self.cell == "LSTM" else h


    class SinusoidTable(nn.Module):
        """Adds interleaved sin/cos codes of the position (a buffer), then dropout."""

        def __init__(self, width, dropout=0.1, longest=64):
            super().__init__()
            self.drop = nn.Dropout(dropout)
            rates = 10000.0 ** (torch.arange(0, width, 2, dtype=torch.float) / width)
            angles = torch.arange(longest, dtype=torch.float)[:, None] / rates
            table = torch.stack((angles.sin(), angles.cos()), dim=-1).reshape(longest, width)
            self.register_buffer("table", table[:, None, :])

        def forward(self, x):
            return self.drop(x + self.table[:x.size(0)])


    class TransformerLM(nn.Transformer):
        """nn.Transformer's encoder stack as a causal language model."""

        def __init__(self, vocab, width, heads, ff, depth, dropout=0.5):
            super().__init__(d_model=width, nhead=heads, num_encoder_layers=depth, dim_feedforward=ff)
            del self.decoder  # the decoder stack is not used: drop it and its parameters
            self.width = width
            self.embed = nn.Embedding(vocab, width)
            self.positions = SinusoidTable(width, dropout)
            self.readout = nn.Linear(width, vocab)
            nn.init.uniform_(self.embed.weight, -0.1, 0.1)
            nn.init.uniform_(self.readout.weight, -0.1, 0.1)
            nn.init.zeros_(self.readout.bias)

        def forward(self, ids, causal=True):
            n, dtype = len(ids), self.readout.weight.dtype
            mask = torch.full((n, n), float("-inf"), dtype=dtype).triu(1) if causal else None  # -inf above diagonal
            x = self.positions(self.embed(ids) * math.sqrt(self.width))
            return F.log_softmax(self.readout(self.encoder(x, mask=mask)), dim=-1)


    def detach_all(state):
        return tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach()


    def sgd_steps(model, ids, targets, steps, lr=0.5, clip=0.25):
        """Plain SGD written out on p.data after clipping the gradient norm; a recurrent state is carried over."""
        loss_fn = nn.NLLLoss()
        model.train()
        recurrent = isinstance(model, RecurrentLM)
        state = model.zero_state(ids.size(1)) if recurrent else None
        history = []
        for _ in range(steps):
            model.zero_grad()
            if recurrent:
                log_probs, state = model(ids, detach_all(state))
            else:
                log_probs = model(ids).view(-1, model.readout.out_features)
            loss = loss_fn(log_probs, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            history.append(loss.item())
        return history
''')

TIME_SEQUENCE = textwrap.dedent('''
    class TwoCellForecaster(nn.Module):
        """Two stacked LSTMCells stepped by hand; after the series, each prediction is fed back as the next input."""

        def __init__(self, hidden=20):
            super().__init__()
            self.hidden = hidden
            self.lower, self.upper = nn.LSTMCell(1, hidden), nn.LSTMCell(hidden, hidden)
            self.project = nn.Linear(hidden, 1)

        def forward(self, series, future=0):
            def zeros():
                return torch.zeros(series.size(0), self.hidden, dtype=torch.double)

            low, high = (zeros(), zeros()), (zeros(), zeros())
            steps, predictions = list(series.split(1, dim=1)), []
            for t in range(len(steps) + future):
                low = self.lower(steps[t] if t < len(steps) else predictions[-1], low)
                high = self.upper(low[0], high)
                predictions.append(self.project(high[0]))
            return torch.cat(predictions, dim=1)
''')

REGRESSION = textwrap.dedent('''
    def monomials(x, degree):
        """Columns x, x**2, ..., x**degree."""
        return torch.stack([x.pow(k) for k in range(1, degree + 1)], dim=1)

    def fit(x, w_target, b_target, steps):
        """A linear model on monomial features, fitted to a known polynomial by SGD on smooth-L1."""
        features = monomials(x, w_target.size(0))
        y = features.mm(w_target) + b_target.item()
        model = torch.nn.Linear(features.size(1), 1).double()
        with torch.no_grad():
            model.weight.fill_(0.1)
            model.bias.zero_()
        for _ in range(steps):
            model.zero_grad()
            loss = F.smooth_l1_loss(model(features), y)
            loss.backward()
            for p in model.parameters():
                p.data.add_(-0.1 * p.grad)
        return loss.item(), model.weight.detach()
''')

SMALL_GPT = textwrap.dedent('''
    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            T = x.size(1)
            causal = torch.tril(torch.ones(T, T, dtype=torch.bool)) == 0
            h = self.ln1(x)
            x = x + self.attn(h, h, h, attn_mask=causal, need_weights=False)[0]
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self, vocab, d=16, heads=2, layers=2, block=12):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(block, d)
            self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, idx, targets=None):
            pos = torch.arange(idx.size(1)).unsqueeze(0)
            x = self.tok(idx) + self.pos(pos)
            for b in self.blocks:
                x = b(x)
            logits = self.head(self.ln(x))
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
            return logits, loss

        @torch.no_grad()
        def generate(self, idx, steps, top_k=None, sample=False):
            for _ in range(steps):
                logits, _ = self(idx)
                logits = logits[:, -1, :]
                if top_k is not None:
                    v, _ = torch.topk(logits, top_k)
                    logits = logits.masked_fill(logits < v[:, [-1]], float("-inf"))
                probs = F.softmax(logits, dim=-1)
                nxt = torch.multinomial(probs, num_samples=1) if sample else torch.topk(probs, 1).indices
                idx = torch.cat((idx, nxt), dim=1)
            return idx

    def optimizer_groups(model, wd=0.1):
        decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
        return torch.optim.AdamW([{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}],
                                 lr=1e-2)
''')


def _load(source, mod):
    ns = {}
    exec(HEADER.format(mod=mod) + source, ns)  # the same text for both libraries
    return ns


def _copy(t_model, f_model):
    state = t_model.state_dict()
    assert list(f_model.state_dict()) == list(state)
    f_model.load_state_dict({k: framework.tensor(v.detach().cpu().numpy()) for k, v in state.items()})


def _compare_grads(t_model, f_model):
    for (n, p), (tn, tp) in zip(f_model.named_parameters(), t_model.named_parameters()):
        assert n == tn
        assert_close(p.grad, tp.grad.cpu().numpy(), **TOL)


@pytest.mark.parametrize("rnn_type", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
def test_word_lm_rnn(rnn_type):
    t_ns, f_ns = _load(WORD_LM, "torch"), _load(WORD_LM, "framework")
    torch.manual_seed(0)
    t_model = t_ns["RecurrentLM"](rnn_type, 30, 8, 8, 2, dropout=0.0, tie=True).double()
    f_model = f_ns["RecurrentLM"](rnn_type, 30, 8, 8, 2, dropout=0.0, tie=True).double()
    _copy(t_model, f_model)
    data = np.random.default_rng(0).integers(0, 30, size=(7, 3))
    target = np.random.default_rng(1).integers(0, 30, size=(21,))
    outs = []
    for ns, m, model in ((f_ns, framework, f_model), (t_ns, torch, t_model)):
        hidden = model.zero_state(3)
        out, hidden = model(m.tensor(data), hidden)
        loss = m.nn.functional.nll_loss(out, m.tensor(target))
        loss.backward()
        outs.append((out, loss))
    assert_close(outs[0][0].detach(), outs[1][0].detach().cpu().numpy(), **TOL)
    _compare_grads(t_model, f_model)
    # three steps of the training loop: the same losses
    f_losses = f_ns["sgd_steps"](f_model, framework.tensor(data), framework.tensor(target), 3)
    t_losses = t_ns["sgd_steps"](t_model, torch.tensor(data), torch.tensor(target), 3)
    assert np.allclose(f_losses, t_losses, rtol=1e-9) and f_losses[-1] < f_losses[0]


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # torch's own construction warning
def test_word_lm_transformer():
    t_ns, f_ns = _load(WORD_LM, "torch"), _load(WORD_LM, "framework")
    torch.manual_seed(0)
    t_model = t_ns["TransformerLM"](30, 8, 2, 16, 2, dropout=0.0).double()
    f_model = f_ns["TransformerLM"](30, 8, 2, 16, 2, dropout=0.0).double()
    _copy(t_model, f_model)
    for model, m in ((t_model, torch), (f_model, framework)):  # nn.Transformer keeps its own dropout=0.1
        for sub in model.modules():
            if isinstance(sub, m.nn.Dropout):
                sub.p = 0.0
            if isinstance(sub, m.nn.MultiheadAttention):
                sub.dropout = 0.0
    data = np.random.default_rng(0).integers(0, 30, size=(6, 3))
    target = np.random.default_rng(1).integers(0, 30, size=(18,))
    f_losses = f_ns["sgd_steps"](f_model, framework.tensor(data), framework.tensor(target), 3)
    t_losses = t_ns["sgd_steps"](t_model, torch.tensor(data), torch.tensor(target), 3)
    assert np.allclose(f_losses, t_losses, rtol=1e-9) and f_losses[-1] < f_losses[0]
    f_model.eval(), t_model.eval()
    assert_close(f_model(framework.tensor(data)), t_model(torch.tensor(data)).detach().cpu().numpy(), **TOL)
    # with dropout in training the script still runs (the random streams differ, so no comparison)
    f_drop = f_ns["TransformerLM"](30, 8, 2, 16, 2, dropout=0.5).double()
    assert np.isfinite(f_ns["sgd_steps"](f_drop, framework.tensor(data), framework.tensor(target), 1)).all()


def test_two_cell_forecaster():
    t_ns, f_ns = _load(TIME_SEQUENCE, "torch"), _load(TIME_SEQUENCE, "framework")
    torch.manual_seed(0)
    t_model, f_model = t_ns["TwoCellForecaster"]().double(), f_ns["TwoCellForecaster"]().double()
    _copy(t_model, f_model)
    x = np.sin(np.arange(2 * 12).reshape(2, 12) / 3.0)
    outs = []
    for m, model in ((framework, f_model), (torch, t_model)):
        inp = m.tensor(x[:, :-1])
        out = model(inp, future=3)
        loss = m.nn.MSELoss()(out[:, :-3], m.tensor(x[:, 1:]))
        loss.backward()
        outs.append(out)
    assert tuple(outs[0].shape) == (2, 14)
    assert_close(outs[0].detach(), outs[1].detach().cpu().numpy(), **TOL)
    _compare_grads(t_model, f_model)


def test_regression_with_smooth_l1():
    t_ns, f_ns = _load(REGRESSION, "torch"), _load(REGRESSION, "framework")
    x = np.random.default_rng(0).standard_normal(32)
    w, b = np.random.default_rng(1).standard_normal((4, 1)), np.array([0.5])
    f_loss, f_w = f_ns["fit"](framework.tensor(x), framework.tensor(w), framework.tensor(b), 20)
    t_loss, t_w = t_ns["fit"](torch.tensor(x), torch.tensor(w), torch.tensor(b), 20)
    assert math.isclose(f_loss, t_loss, rel_tol=1e-9)
    assert_close(f_w, t_w.cpu().numpy(), **TOL)


def test_small_gpt_forward_backward_adamw_and_generate():
    t_ns, f_ns = _load(SMALL_GPT, "torch"), _load(SMALL_GPT, "framework")
    torch.manual_seed(0)
    t_model, f_model = t_ns["GPT"](11).double(), f_ns["GPT"](11).double()
    _copy(t_model, f_model)
    rng = np.random.default_rng(0)
    idx, tgt = rng.integers(0, 11, size=(4, 10)), rng.integers(0, 11, size=(4, 10))
    t_opt, f_opt = t_ns["optimizer_groups"](t_model), f_ns["optimizer_groups"](f_model)
    for step in range(3):
        losses = []
        for m, model, opt in ((framework, f_model, f_opt), (torch, t_model, t_opt)):
            opt.zero_grad()
            _, loss = model(m.tensor(idx), m.tensor(tgt))
            loss.backward()
            m.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
        assert math.isclose(losses[0], losses[1], rel_tol=1e-9)
    for (n, p), (_, tp) in zip(f_model.named_parameters(), t_model.named_parameters()):
        assert_close(p.detach(), tp.detach().cpu().numpy(), rtol=1e-8, atol=1e-10)
    f_model.eval(), t_model.eval()
    greedy = f_model.generate(framework.tensor(idx[:, :3]), 5, top_k=3)
    assert (greedy.cpu().numpy() == t_model.generate(torch.tensor(idx[:, :3]), 5, top_k=3).cpu().numpy()).all()
    sampled = f_model.generate(framework.tensor(idx[:, :3]), 5, top_k=3, sample=True)
    assert sampled.shape == (4, 8) and sampled.dtype == framework.int64
