"""PyTorch-examples-style model code run unmodified against framework and torch.

Each model below is ordinary PyTorch code (written the way pytorch/examples' word_language_model,
time_sequence_prediction and regression, and a small GPT, write theirs). The same source text is executed
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
    class RNNModel(nn.Module):
        """Embedding -> recurrent stack -> linear decoder, with dropout around the recurrence."""

        def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
            super().__init__()
            self.ntoken = ntoken
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(ntoken, ninp)
            if rnn_type in ("LSTM", "GRU"):
                self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
            else:
                nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
                self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
            self.decoder = nn.Linear(nhid, ntoken)
            if tie_weights:
                self.decoder.weight = self.encoder.weight
            nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -0.1, 0.1)
            self.rnn_type, self.nhid, self.nlayers = rnn_type, nhid, nlayers

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
            return F.log_softmax(decoded, dim=1), hidden

        def init_hidden(self, bsz):
            weight = next(self.parameters())
            if self.rnn_type == "LSTM":
                return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout=0.1, max_len=64):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            pe = torch.zeros(max_len, d_model)
            position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))

        def forward(self, x):
            return self.dropout(x + self.pe[:x.size(0), :])


    class TransformerModel(nn.Transformer):
        def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
            super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers)
            self.src_mask = None
            self.pos_encoder = PositionalEncoding(ninp, dropout)
            self.input_emb = nn.Embedding(ntoken, ninp)
            self.ninp = ninp
            self.decoder = nn.Linear(ninp, ntoken)
            nn.init.uniform_(self.input_emb.weight, -0.1, 0.1)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

        def _generate_square_subsequent_mask(self, sz):
            mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
            return mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))

        def forward(self, src, has_mask=True):
            if has_mask:
                if self.src_mask is None or self.src_mask.size(0) != len(src):
                    self.src_mask = self._generate_square_subsequent_mask(len(src)).to(src.device).double()
            else:
                self.src_mask = None
            src = self.pos_encoder(self.input_emb(src) * math.sqrt(self.ninp))
            output = self.decoder(self.encoder(src, mask=self.src_mask))
            return F.log_softmax(output, dim=-1)


    def repackage_hidden(h):
        if isinstance(h, torch.Tensor):
            return h.detach()
        return tuple(repackage_hidden(v) for v in h)


    def train_steps(model, data, targets, steps, lr=0.5, clip=0.25):
        """word_language_model's loop: manual SGD on p.data, gradient clipping, hidden state carried over."""
        criterion = nn.NLLLoss()
        model.train()
        transformer = not hasattr(model, "rnn")
        hidden = None if transformer else model.init_hidden(data.size(1))
        losses = []
        for _ in range(steps):
            model.zero_grad()
            if transformer:
                output = model(data).view(-1, model.decoder.out_features)
            else:
                hidden = repackage_hidden(hidden)
                output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            losses.append(loss.item())
        return losses
''')

TIME_SEQUENCE = textwrap.dedent('''
    class Sequence(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm1 = nn.LSTMCell(1, 51)
            self.lstm2 = nn.LSTMCell(51, 51)
            self.linear = nn.Linear(51, 1)

        def forward(self, input, future=0):
            outputs = []
            h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
            c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
            h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
            c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
            for input_t in input.split(1, dim=1):
                h_t, c_t = self.lstm1(input_t, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            for i in range(future):
                h_t, c_t = self.lstm1(output, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            return torch.cat(outputs, dim=1)
''')

REGRESSION = textwrap.dedent('''
    POLY_DEGREE = 4

    def make_features(x):
        x = x.unsqueeze(1)
        return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)

    def fit(x, w_target, b_target, steps):
        fc = torch.nn.Linear(w_target.size(0), 1).double()
        with torch.no_grad():
            fc.weight.fill_(0.1)
            fc.bias.fill_(0.0)
        feats = make_features(x)
        y = feats.mm(w_target) + b_target.item()
        for _ in range(steps):
            fc.zero_grad()
            output = F.smooth_l1_loss(fc(feats), y)
            output.backward()
            for param in fc.parameters():
                param.data.add_(-0.1 * param.grad)
        return output.item(), fc.weight.detach()
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
def test_word_language_model_rnn(rnn_type):
    t_ns, f_ns = _load(WORD_LM, "torch"), _load(WORD_LM, "framework")
    torch.manual_seed(0)
    t_model = t_ns["RNNModel"](rnn_type, 30, 8, 8, 2, dropout=0.0, tie_weights=True).double()
    f_model = f_ns["RNNModel"](rnn_type, 30, 8, 8, 2, dropout=0.0, tie_weights=True).double()
    _copy(t_model, f_model)
    data = np.random.default_rng(0).integers(0, 30, size=(7, 3))
    target = np.random.default_rng(1).integers(0, 30, size=(21,))
    outs = []
    for ns, m, model in ((f_ns, framework, f_model), (t_ns, torch, t_model)):
        hidden = model.init_hidden(3)
        out, hidden = model(m.tensor(data), hidden)
        loss = m.nn.functional.nll_loss(out, m.tensor(target))
        loss.backward()
        outs.append((out, loss))
    assert_close(outs[0][0].detach(), outs[1][0].detach().cpu().numpy(), **TOL)
    _compare_grads(t_model, f_model)
    # three steps of the example's own training loop: the same losses
    f_losses = f_ns["train_steps"](f_model, framework.tensor(data), framework.tensor(target), 3)
    t_losses = t_ns["train_steps"](t_model, torch.tensor(data), torch.tensor(target), 3)
    assert np.allclose(f_losses, t_losses, rtol=1e-9) and f_losses[-1] < f_losses[0]


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # torch's own construction warning
def test_word_language_model_transformer():
    t_ns, f_ns = _load(WORD_LM, "torch"), _load(WORD_LM, "framework")
    torch.manual_seed(0)
    t_model = t_ns["TransformerModel"](30, 8, 2, 16, 2, dropout=0.0).double()
    f_model = f_ns["TransformerModel"](30, 8, 2, 16, 2, dropout=0.0).double()
    _copy(t_model, f_model)
    for model, m in ((t_model, torch), (f_model, framework)):  # nn.Transformer keeps its own dropout=0.1
        for sub in model.modules():
            if isinstance(sub, m.nn.Dropout):
                sub.p = 0.0
            if isinstance(sub, m.nn.MultiheadAttention):
                sub.dropout = 0.0
    data = np.random.default_rng(0).integers(0, 30, size=(6, 3))
    target = np.random.default_rng(1).integers(0, 30, size=(18,))
    f_losses = f_ns["train_steps"](f_model, framework.tensor(data), framework.tensor(target), 3)
    t_losses = t_ns["train_steps"](t_model, torch.tensor(data), torch.tensor(target), 3)
    assert np.allclose(f_losses, t_losses, rtol=1e-9) and f_losses[-1] < f_losses[0]
    f_model.eval(), t_model.eval()
    assert_close(f_model(framework.tensor(data)), t_model(torch.tensor(data)).detach().cpu().numpy(), **TOL)
    # with dropout in training the script still runs (the random streams differ, so no comparison)
    f_drop = f_ns["TransformerModel"](30, 8, 2, 16, 2, dropout=0.5).double()
    assert np.isfinite(f_ns["train_steps"](f_drop, framework.tensor(data), framework.tensor(target), 1)).all()


def test_time_sequence_prediction():
    t_ns, f_ns = _load(TIME_SEQUENCE, "torch"), _load(TIME_SEQUENCE, "framework")
    torch.manual_seed(0)
    t_model, f_model = t_ns["Sequence"]().double(), f_ns["Sequence"]().double()
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
