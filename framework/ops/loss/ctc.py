"""The connectionist temporal classification loss (torch's _ctc_loss, CtcLossBackward0; aten's LossCTC.cpp).

Graves et al. (2006) in log space. Each target l is extended with blanks, l' = (blank, l1, blank, l2, ..., blank),
and alpha[t, s] (beta[t, s]) is the log-probability of the prefixes (suffixes) of the alignments that are at l'[s]
at time t. Both recursions step through time one row at a time, each step vectorised over the batch and over the
positions s; backward turns alpha + beta into each class's occupancy, which gives the gradient in log_probs."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...backend import get_array_module, matmul, scatter_reduce
from .margin import GradOnly


NEG_INF = float("-inf")


def _const(xp, value: float, like):
    """A 0-d array of like's dtype (a Python float in xp.where could widen float32 on some backends)."""
    return xp.full((), value, dtype=like.dtype)


def _log_add(xp, *terms):
    """log(sum(exp(terms))) as torch's kernel computes it: the largest term taken out (0 when all are -inf)."""
    top = terms[0]
    for term in terms[1:]:
        top = xp.maximum(top, term)
    top = xp.where(top == NEG_INF, _const(xp, 0.0, top), top)
    total = xp.exp(terms[0] - top)
    for term in terms[1:]:
        total = total + xp.exp(term - top)
    # every term -inf: -inf, the log of an empty sum (no log(0): a compiled replay would warn, having no errstate)
    some = total > 0
    return xp.where(some, xp.log(xp.where(some, total, _const(xp, 1.0, total))), _const(xp, NEG_INF, total)) + top


def _shift(xp, a, k: int):
    """a[:, s - k] at position s (k > 0: from the left, k < 0: from the right), -inf where that is outside a."""
    width, pad = a.shape[1], xp.full((a.shape[0], abs(k)), NEG_INF, dtype=a.dtype)
    return xp.concatenate([pad, a], axis=1)[:, :width] if k > 0 else xp.concatenate([a, pad], axis=1)[:, -k:]


def extended_labels(xp, targets, in_lens: np.ndarray, tgt_lens: np.ndarray, blank: int):
    """l' per batch item, (N, 2 S + 1) with S the longest target: blank at even s, the target's labels at odd s,
    blank after its end. Reads targets (N, S') padded or 1-D concatenated, on their device; lengths on the host."""
    n, longest = len(tgt_lens), int(tgt_lens.max(initial=0))
    j = np.arange(longest)
    inside = j[None, :] < tgt_lens[:, None]  # (N, S): label j of item n is part of its target
    if targets.ndim == 1:  # concatenated: item n's labels start after the ones before it
        starts = np.concatenate([[0], np.cumsum(tgt_lens)[:-1]]).astype(np.int64)
        flat = np.where(inside, starts[:, None] + j[None, :], 0)
        labels = targets[xp.asarray(flat)] if targets.size else xp.zeros((n, longest), np.int64)
    else:
        labels = targets[:, :longest]
    labels = xp.where(xp.asarray(inside), labels, blank).astype(np.int64, copy=False)
    ext = xp.full((n, 2 * longest + 1), blank, dtype=np.int64)
    ext[:, 1::2] = labels
    return ext


class CtcLoss(Function):
    """loss[n] = -log p(target n | log_probs[:, n]), summed over the alignments by the alpha recursion.
    Targets get no edge (torch's node has one, to log_probs). Saves log_probs and the targets (for their versions,
    as torch saves them), the losses, log alpha and the extended labels."""

    node_name, array_forward, index_args = "CtcLossBackward0", True, (1,)

    @staticmethod
    def forward(ctx, log_probs, targets, in_lens, tgt_lens, blank, zero_infinity):
        xp = get_array_module(log_probs)
        ext = extended_labels(xp, targets, in_lens, tgt_lens, blank)
        n, width = ext.shape
        steps = int(in_lens.max(initial=0))  # the longest input: the steps the recursions take
        # lp_ext[t, n, s] = log_probs[t, n, l'[s]]: the only entries the recursions read
        lp_ext = xp.take_along_axis(log_probs[:steps], xp.broadcast_to(ext[None], (steps, n, width)), axis=2)
        s = np.arange(width)
        tl = tgt_lens[:, None]
        # a step may skip a blank (s-2 -> s) between two different labels, as in eq. (7)
        skip = xp.asarray(s[None, :] >= 2) & (ext != xp.concatenate([ext[:, :2], ext[:, :-2]], axis=1))
        first = xp.asarray((s[None, :] == 0) | ((s[None, :] == 1) & (tl > 0)))  # where an alignment can start
        neg_inf = _const(xp, NEG_INF, log_probs)
        rows = [xp.where(first, lp_ext[0], neg_inf)] if steps else []
        for t in range(1, steps):  # eq. (6): from s, s - 1 and (where allowed) s - 2 at the step before
            prev = rows[-1]
            rows.append(_log_add(xp, prev, _shift(xp, prev, 1), xp.where(skip, _shift(xp, prev, 2), neg_inf))
                        + lp_ext[t])
        # (steps, N, 2S + 1); rows past an item's input length are never read
        log_alpha = xp.stack(rows) if rows else xp.zeros((0, n, width), log_probs.dtype)
        nll = _final_nll(xp, log_alpha, in_lens, tgt_lens)
        ctx.save_for_backward(log_probs, targets)
        ctx.nll, ctx.log_alpha, ctx.lp_ext, ctx.ext, ctx.skip = nll, log_alpha, lp_ext, ext, skip
        ctx.in_lens, ctx.tgt_lens, ctx.zero_infinity = in_lens, tgt_lens, zero_infinity
        return nll

    @staticmethod
    def backward(ctx, grad):
        log_probs, _ = ctx.saved_tensors
        error = RuntimeError("derivative for aten::_ctc_loss_backward is not implemented\n\nCTC's gradient comes "
                             "from the alpha-beta recursions in one kernel, as in torch, which has no derivative of "
                             "its own: differentiate the loss once (no create_graph through ctc_loss).")
        # torch's kernel computes the gradient without recording how: under create_graph it is NotImplemented
        return GradOnly.apply(grad, lambda g: ctc_gradient(ctx, log_probs._array, g), error, log_probs), \
            None, None, None, None, None


def _final_nll(xp, log_alpha, in_lens, tgt_lens):
    """-log(alpha[T-1, 2 L] + alpha[T-1, 2 L - 1]) per item (eq. 8); -0.0 for an empty input and target, inf for
    an empty input and a non-empty target, as torch."""
    n = len(in_lens)
    items = np.arange(n)
    # an empty input: likelihood 1 for an empty target, else 0 (nll -0.0 or inf, as torch's -log_likelihood)
    empty = xp.asarray(-np.where(tgt_lens == 0, 0.0, NEG_INF).astype(log_alpha.dtype))
    if log_alpha.shape[0] == 0:  # every input is empty
        return empty
    last = log_alpha[xp.asarray(np.maximum(in_lens - 1, 0)), xp.asarray(items)]  # (N, 2S + 1)
    end = last[xp.asarray(items), xp.asarray(2 * tgt_lens)]
    before = last[xp.asarray(items), xp.asarray(np.maximum(2 * tgt_lens - 1, 0))]
    # an empty target ends on its only blank: torch takes that alpha as it is
    nll = -xp.where(xp.asarray(tgt_lens > 0), _log_add(xp, end, before), end)
    return xp.where(xp.asarray(in_lens == 0), empty, nll)


def _log_beta(xp, ctx):
    """beta[t, n, s], the log-probability of the suffixes from l'[s] at time t (eqs. 10-11), -inf at t >= T_n
    and past 2 L_n; computed from the last step back."""
    lp_ext, skip, in_lens, tgt_lens = ctx.lp_ext, ctx.skip, ctx.in_lens, ctx.tgt_lens
    steps, (n, width) = ctx.log_alpha.shape[0], ctx.ext.shape
    s = np.arange(width)
    inside = xp.asarray(s[None, :] <= 2 * tgt_lens[:, None])
    ends = xp.asarray((s[None, :] == 2 * tgt_lens[:, None]) | (s[None, :] == 2 * tgt_lens[:, None] - 1))
    # from s + 2 back to s: allowed where the forward step from s to s + 2 is
    skip_back = xp.concatenate([skip, xp.zeros((n, 2), dtype=bool)], axis=1)[:, 2:]
    rows = []
    nxt, neg_inf = xp.full((n, width), NEG_INF, dtype=lp_ext.dtype), _const(xp, NEG_INF, lp_ext)
    last = xp.asarray(in_lens - 1)[:, None]  # each item's last step (on the device once, not once per step)
    for t in range(steps - 1, -1, -1):
        start, within = last == t, last > t  # the items whose last step is t; those that go on past t
        step = _log_add(xp, nxt, _shift(xp, nxt, -1), xp.where(skip_back, _shift(xp, nxt, -2), neg_inf)) + lp_ext[t]
        row = xp.where(start & ends, lp_ext[t], xp.where(within & inside, step, neg_inf))
        rows.append(row)
        nxt = row
    return xp.stack(rows[::-1]) if rows else xp.zeros((0, n, width), lp_ext.dtype)


def _log_sum_per_class(xp, ab, ext, classes: int):
    """lcab[t, n, c] = log of the sum over the positions s with l'[s] = c of exp(ab[t, n, s]), -inf where there
    are none. Each class's sum is taken relative to its own largest term (a scatter-max), as torch's running
    log-add: a class at one position gets ab itself, bit for bit."""
    steps, n, _ = ab.shape
    where = tuple(xp.broadcast_to(i, ab.shape) for i in (xp.arange(steps)[:, None, None],
                                                         xp.arange(n)[None, :, None], ext[None]))
    top = xp.full((steps, n, classes), NEG_INF, dtype=ab.dtype)
    scatter_reduce(top, where, ab, "maximum")
    top = xp.where(top == NEG_INF, _const(xp, 0.0, top), top)  # an empty class: no -inf - -inf below
    terms = xp.exp(ab - xp.take_along_axis(top, where[2], axis=2))
    onehot = (ext[:, :, None] == xp.arange(classes)[None, None, :]).astype(ab.dtype)  # (N, 2S + 1, C)
    total = matmul(terms.transpose(1, 0, 2), onehot).transpose(1, 0, 2)  # (T, N, C)
    some = total > 0
    return xp.where(some, xp.log(xp.where(some, total, _const(xp, 1.0, total))) + top, _const(xp, NEG_INF, top))


def ctc_gradient(ctx, log_probs, grad):
    """d loss[n] / d log_probs[t, n, c] times grad[n], as torch's ctc_loss_backward:
    (exp(log_probs) - exp(lcab + nll - log_probs)) grad, with lcab the log of the sum of alpha beta over the
    positions of class c (the occupancy of c, times p(target) and the class's probability); 0 at t >= T_n, and
    0 for the whole item when zero_infinity and its loss is inf (nan there without zero_infinity, as torch)."""
    xp = get_array_module(log_probs)
    steps, classes = ctx.log_alpha.shape[0], log_probs.shape[2]
    out = xp.zeros(log_probs.shape, dtype=log_probs.dtype)
    if steps == 0:
        return out
    lp = log_probs[:steps]
    lcab = _log_sum_per_class(xp, ctx.log_alpha + _log_beta(xp, ctx), ctx.ext, classes)
    nll = xp.broadcast_to(ctx.nll[None, :, None], lp.shape)
    # torch's lcab + nll - lp is nan where a -inf meets a +inf: build that nan rather than compute it (a compiled
    # replay has no errstate and would warn)
    clash = ((lcab == NEG_INF) | (lp == np.inf)) & ((nll == np.inf) | (lp == NEG_INF))
    zero = _const(xp, 0.0, lp)
    z = xp.where(clash, zero, lcab) + xp.where(clash, zero, nll) - xp.where(clash, zero, lp)
    z = xp.where(clash, _const(xp, np.nan, lp), z)
    g = (xp.exp(lp) - xp.exp(z)) * grad[None, :, None]
    keep = np.arange(steps)[:, None] < ctx.in_lens[None, :]  # (T, N): the steps inside each item's input
    if ctx.zero_infinity:
        keep = xp.asarray(keep) & (ctx.nll != np.inf)[None, :]
    out[:steps] = xp.where(xp.asarray(keep)[..., None], g, zero)
    return out
