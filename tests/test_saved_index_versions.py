"""Index, mask and target tensors that ops keep for backward are saved tensors, as torch's.

Changing one in place between the forward and the backward is torch's "modified by an inplace operation" error
(same class, same first sentence: the type and shape, the versions); where torch keeps no such tensor (a Python
list index, a 0-d index, the broadcast indices of take_along_dim(dim=...), scatter_add's index when src needs no
gradient) backward runs. A second backward, once the saved tensors are freed, raises as torch's.
"""
from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")


def _first_sentence(e: BaseException) -> str:
    """The error's first sentence, with torch's module name written as ours."""
    line = str(e).split("\n")[0].replace("torch.", "framework.")
    cut = line.find("instead.")
    return line[:cut + len("instead.")] if cut >= 0 else re.split(r"(?<=\.)\s", line)[0]


def _outcome(scenario, m):
    try:
        scenario(m)
    except Exception as e:  # noqa: BLE001 - we compare whatever was raised
        return type(e).__name__, _first_sentence(e)
    return "backward ran"


def _F(m):
    return m.nn.functional


def _long(m, *values):
    return m.tensor(values)


def _mask(m):
    return m.tensor([True, False, True, False, False])


def _backward(y):
    (y.sum() if y.ndim else y).backward()


# each scenario: forward with an index/mask/target tensor, change that tensor in place, backward
def getitem(m):
    x, i = m.randn(5, requires_grad=True), _long(m, 0, 2)
    y = x[i]
    i.add_(1)
    _backward(y)


def getitem_list(m):  # torch turns the list into a tensor of its own: nothing of the caller's is saved
    x, i = m.randn(5, requires_grad=True), [0, 2]
    y = x[i]
    i.append(3)
    _backward(y)


def getitem_2d_with_int(m):
    x, i = m.randn(5, 3, requires_grad=True), _long(m, 0, 2)
    y = x[i, 1]
    i.add_(1)
    _backward(y)


def getitem_second_of_two(m):
    x, i, j = m.randn(5, 3, requires_grad=True), _long(m, 0, 2), _long(m, 1, 1)
    y = x[i, j]
    j.add_(1)
    _backward(y)


def getitem_tensor_and_list(m):
    x, i = m.randn(5, 3, requires_grad=True), _long(m, 0, 2)
    y = x[i, [0, 1]]
    i.add_(1)
    _backward(y)


def getitem_view_of_index(m):  # the index is a view: a change to its base bumps the shared counter
    x, base = m.randn(5, requires_grad=True), _long(m, 0, 2, 3)
    y = x[base[:2]]
    base.add_(1)
    _backward(y)


def getitem_ellipsis(m):
    x, i = m.randn(2, 5, requires_grad=True), _long(m, 0, 3)
    y = x[..., i]
    i.add_(1)
    _backward(y)


def getitem_0d_index(m):  # torch reads a 0-d integer index as a number
    x, k = m.randn(5, 3, requires_grad=True), m.tensor(1)
    y = x[k, _long(m, 0, 1)]
    k.add_(1)
    _backward(y)


def getitem_int32(m):
    x, i = m.randn(5, requires_grad=True), m.tensor([0, 2], dtype=m.int32)
    y = x[i]
    i.add_(1)
    _backward(y)


def getitem_bool_mask(m):  # torch's message names a bool tensor CPUBoolType
    x, mask = m.randn(5, requires_grad=True), _mask(m)
    y = x[mask]
    mask[0] = False
    _backward(y)


def getitem_bool_mask_2d(m):
    x, mask = m.randn(2, 3, requires_grad=True), m.tensor([[True, False, True], [False, False, True]])
    y = x[mask]
    mask[0, 0] = False
    _backward(y)


def getitem_0d_bool_mask(m):
    x, mask = m.randn(5, requires_grad=True), m.tensor(True)
    y = x[mask]
    mask.fill_(False)
    _backward(y)


def setitem_number(m):
    x, i = m.randn(5, requires_grad=True), _long(m, 0, 2)
    y = x.clone()
    y[i] = 1.0
    i.add_(1)
    _backward(y)


def setitem_tensor(m):
    x, v, i = m.randn(5, requires_grad=True), m.randn(2, requires_grad=True), _long(m, 0, 2)
    y = x.clone()
    y[i] = v
    i.add_(1)
    _backward(y)


def setitem_values_only(m):
    x, v, i = m.randn(5), m.randn(2, requires_grad=True), _long(m, 0, 2)
    y = x.clone()
    y[i] = v
    i.add_(1)
    _backward(y)


def setitem_bool_mask(m):
    x, mask = m.randn(5, requires_grad=True), _mask(m)
    y = x * 1
    y[mask] = 0.0
    mask[0] = False
    _backward(y)


def index_put(m):
    x, v, i = m.randn(5, requires_grad=True), m.randn(2, requires_grad=True), _long(m, 0, 2)
    y = x.index_put((i,), v)
    i.add_(1)
    _backward(y)


def index_put_inplace_accumulate_self_only(m):
    x, v, i = m.randn(5, requires_grad=True), m.randn(2), _long(m, 0, 2)
    y = x.clone()
    y.index_put_((i,), v, accumulate=True)
    i.add_(1)
    _backward(y)


def index_select(m):
    x, i = m.randn(5, requires_grad=True), _long(m, 0, 2)
    y = x.index_select(0, i)
    i.add_(1)
    _backward(y)


def gather(m):
    x, i = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]])
    y = x.gather(1, i)
    i.add_(0)  # same values, new version
    _backward(y)


def gather_view_of_index(m):
    x, base = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2, 1], [1, 1, 0]])
    y = m.gather(x, 1, base[:, :2])
    base.add_(0)
    _backward(y)


def scatter(m):
    x, i, s = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]]), m.randn(2, 2, requires_grad=True)
    y = x.scatter(1, i, s)
    i.add_(0)
    _backward(y)


def scatter_self_only(m):
    x, i, s = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]]), m.randn(2, 2)
    y = x.scatter(1, i, s)
    i.add_(0)
    _backward(y)


def scatter_value(m):
    x, i = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]])
    y = x.scatter(1, i, 2.0)
    i.add_(0)
    _backward(y)


def scatter_inplace(m):
    x, i, s = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]]), m.randn(2, 2, requires_grad=True)
    y = x.clone()
    y.scatter_(1, i, s)
    i.add_(0)
    _backward(y)


def scatter_add(m):
    x, i, s = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]]), m.randn(2, 2, requires_grad=True)
    y = x.scatter_add(1, i, s)
    i.add_(0)
    _backward(y)


def scatter_add_src_only(m):
    x, i, s = m.randn(2, 3), m.tensor([[0, 2], [1, 1]]), m.randn(2, 2, requires_grad=True)
    y = m.scatter_add(x, 1, i, s)
    i.add_(0)
    _backward(y)


def scatter_add_self_only(m):  # torch saves the index only for src's gradient
    x, i, s = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]]), m.randn(2, 2)
    y = x.scatter_add(1, i, s)
    i.add_(0)
    _backward(y)


def scatter_add_inplace(m):
    x, i, s = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]]), m.randn(2, 2, requires_grad=True)
    y = x.clone()
    y.scatter_add_(1, i, s)
    i.add_(0)
    _backward(y)


def embedding(m):
    w, i = m.randn(5, 3, requires_grad=True), _long(m, 0, 2)
    y = _F(m).embedding(i, w)
    i.add_(1)
    _backward(y)


def embedding_padding_idx(m):
    w, i = m.randn(5, 3, requires_grad=True), _long(m, 0, 2)
    y = _F(m).embedding(i, w, padding_idx=0)
    i.add_(1)
    _backward(y)


def embedding_module(m):
    emb, i = m.nn.Embedding(5, 3), m.tensor([[0, 2], [4, 4]])
    y = emb(i)
    i.add_(0)
    _backward(y)


def masked_fill(m):
    x, mask = m.randn(5, requires_grad=True), _mask(m)
    y = x.masked_fill(mask, 1.0)
    mask[0] = False
    _backward(y)


def masked_fill_broadcast_mask(m):
    x, mask = m.randn(2, 3, requires_grad=True), m.tensor([True, False, True])
    y = x.masked_fill(mask, 0.0)
    mask[0] = False
    _backward(y)


def masked_fill_tensor_value(m):
    x, mask, v = m.randn(5), _mask(m), m.tensor(1.0, requires_grad=True)
    y = x.masked_fill(mask, v)
    mask[0] = False
    _backward(y)


def masked_fill_inplace(m):
    x, mask = m.randn(5, requires_grad=True), _mask(m)
    y = x.clone()
    y.masked_fill_(mask, 1.0)
    mask[0] = False
    _backward(y)


def masked_select(m):
    x, mask = m.randn(2, 5, requires_grad=True), _mask(m)
    y = x.masked_select(mask)
    mask[0] = False
    _backward(y)


def where(m):
    x, mask = m.randn(5, requires_grad=True), _mask(m)
    y = m.where(mask, x, 0.0)
    mask[0] = False
    _backward(y)


def where_other_only(m):
    x, b, mask = m.randn(5), m.randn(5, requires_grad=True), _mask(m)
    y = m.where(mask, x, b)
    mask[0] = False
    _backward(y)


def take(m):
    x, i = m.randn(2, 3, requires_grad=True), m.tensor([[0, 5]])
    y = x.take(i)
    i.add_(0)
    _backward(y)


def take_negative_index(m):
    x, i = m.randn(5, requires_grad=True), _long(m, -1, 2)
    y = m.take(x, i)
    i.add_(1)
    _backward(y)


def take_along_dim_flat(m):  # torch's self.view(-1).gather(0, indices.view(-1)): a view of the indices is saved
    x, i = m.randn(2, 3, requires_grad=True), m.tensor([[0, 5]])
    y = m.take_along_dim(x, i)
    i.add_(0)
    _backward(y)


def take_along_dim(m):  # torch saves indices broadcast into a tensor of their own: no error
    x, i = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]])
    y = m.take_along_dim(x, i, dim=1)
    i.add_(0)
    _backward(y)


def nll_loss(m):
    x, t = m.randn(3, 4, requires_grad=True), _long(m, 0, 2, 1)
    y = _F(m).nll_loss(x, t)
    t.add_(1)
    _backward(y)


def nll_loss_none(m):
    x, t = m.randn(3, 4, requires_grad=True), _long(m, 0, 2, 1)
    y = _F(m).nll_loss(x, t, reduction="none")
    t.add_(1)
    _backward(y)


def nll_loss_weight(m):
    x, t, w = m.randn(3, 4, requires_grad=True), _long(m, 0, 2, 1), m.rand(4)
    y = _F(m).nll_loss(x, t, weight=w)
    w.mul_(1.0)
    _backward(y)


def nll_loss_1d(m):
    x, t = m.randn(4, requires_grad=True), m.tensor(2)
    y = _F(m).nll_loss(x, t)
    t.add_(1)
    _backward(y)


def nll_loss_2d(m):
    x, t = m.randn(2, 4, 3, 3, requires_grad=True), m.tensor([[[0, 1, 2]] * 3, [[3, 3, 0]] * 3])
    y = _F(m).nll_loss(x, t)
    t.add_(0)
    _backward(y)


def nll_loss_3d_input(m):  # torch views the target as (N, 1, -1): the view is saved, with that shape
    x, t = m.randn(2, 4, 3, requires_grad=True), m.tensor([[0, 1, 2], [3, 3, 0]])
    y = _F(m).nll_loss(x, t)
    t.add_(0)
    _backward(y)


def nll_loss_all_ignored(m):
    x, t = m.randn(3, 4, requires_grad=True), _long(m, -100, -100, -100)
    y = _F(m).nll_loss(x, t)
    t.add_(0)
    _backward(y)


def cross_entropy(m):
    x, t = m.randn(3, 4, requires_grad=True), _long(m, 0, 2, 1)
    y = _F(m).cross_entropy(x, t)
    t.add_(1)
    _backward(y)


def cross_entropy_label_smoothing(m):
    x, t = m.randn(3, 4, requires_grad=True), _long(m, 0, 2, 1)
    y = _F(m).cross_entropy(x, t, label_smoothing=0.1)
    t.add_(1)
    _backward(y)


def cross_entropy_weight_module(m):
    x, t, w = m.randn(3, 4, requires_grad=True), _long(m, 0, 2, 1), m.rand(4)
    y = m.nn.CrossEntropyLoss(weight=w)(x, t)
    w.mul_(1.0)
    _backward(y)


def binary_cross_entropy_weight(m):
    p, t, w = m.rand(3, requires_grad=True), m.rand(3), m.rand(3)
    y = _F(m).binary_cross_entropy(p, t, weight=w)
    w.mul_(1.0)
    _backward(y)


def binary_cross_entropy_broadcast_weight(m):  # torch saves weight.expand(size): the message shows that size
    p, t, w = m.rand(2, 3, requires_grad=True), m.rand(2, 3), m.rand(3)
    y = _F(m).binary_cross_entropy(p, t, weight=w)
    w.mul_(1.0)
    _backward(y)


def batch_norm_eval_running_mean(m):
    x, rm, rv = m.randn(4, 3, requires_grad=True), m.zeros(3), m.ones(3)
    y = _F(m).batch_norm(x, rm, rv, training=False)
    rm.add_(1)
    _backward(y * y)


def batch_norm_train_running_var(m):  # saved too in training (the forward's own update bumps no version)
    x, rm, rv = m.randn(4, 3, requires_grad=True), m.zeros(3), m.ones(3)
    y = _F(m).batch_norm(x, rm, rv, training=True)
    rv.mul_(2)
    _backward(y * y)


def batch_norm_module_eval(m):  # the module's buffers are at version 1 after __init__, as torch's
    bn, x = m.nn.BatchNorm1d(3).eval(), m.randn(4, 3, requires_grad=True)
    y = bn(x)
    with m.no_grad():
        bn.running_mean.add_(1)
    _backward(y * y)


def batch_norm_module_two_forwards(m):  # a second forward updates the running statistics: no error
    bn, x = m.nn.BatchNorm1d(3), m.randn(4, 3, requires_grad=True)
    y1, y2 = bn(x), bn(x)
    _backward(y1 * y1 + y2)


def repeat_interleave_tensor(m):  # torch builds its own index from the repeats
    x, r = m.randn(3, requires_grad=True), _long(m, 1, 2, 1)
    y = x.repeat_interleave(r)
    r.add_(0)
    _backward(y)


def second_order_embedding(m):  # the index saved by the gradient's own graph (create_graph) is checked too
    w, i = m.randn(5, 3, requires_grad=True), _long(m, 0, 2)
    (g,) = m.autograd.grad(_F(m).embedding(i, w).pow(2).sum(), w, create_graph=True)
    i.add_(1)
    _backward(g)


def second_order_gather(m):
    x, i = m.randn(2, 3, requires_grad=True), m.tensor([[0, 2], [1, 1]])
    (g,) = m.autograd.grad(x.gather(1, i).pow(2).sum(), x, create_graph=True)
    i.add_(0)
    _backward(g)


def second_order_getitem(m):
    x, i = m.randn(5, requires_grad=True), _long(m, 0, 2)
    (g,) = m.autograd.grad(x[i].pow(2).sum(), x, create_graph=True)
    i.add_(0)
    _backward(g)


CHANGED = [getitem, getitem_list, getitem_2d_with_int, getitem_second_of_two, getitem_tensor_and_list,
           getitem_view_of_index, getitem_ellipsis, getitem_0d_index, getitem_int32, getitem_bool_mask,
           getitem_bool_mask_2d, getitem_0d_bool_mask, setitem_number, setitem_tensor, setitem_values_only,
           setitem_bool_mask, index_put, index_put_inplace_accumulate_self_only, index_select, gather,
           gather_view_of_index, scatter, scatter_self_only, scatter_value,
           scatter_inplace, scatter_add, scatter_add_src_only, scatter_add_self_only, scatter_add_inplace, embedding,
           embedding_padding_idx, embedding_module, masked_fill, masked_fill_broadcast_mask, masked_fill_tensor_value,
           masked_fill_inplace, masked_select, where, where_other_only, take, take_negative_index, take_along_dim_flat,
           take_along_dim, nll_loss, nll_loss_none, nll_loss_weight, nll_loss_1d, nll_loss_2d, nll_loss_3d_input,
           nll_loss_all_ignored, cross_entropy, cross_entropy_label_smoothing, cross_entropy_weight_module,
           binary_cross_entropy_weight, binary_cross_entropy_broadcast_weight, batch_norm_eval_running_mean,
           batch_norm_train_running_var, batch_norm_module_eval, batch_norm_module_two_forwards,
           repeat_interleave_tensor, second_order_embedding, second_order_gather, second_order_getitem]


@pytest.mark.parametrize("scenario", CHANGED, ids=[s.__name__ for s in CHANGED])
def test_index_changed_in_place_before_backward_matches_torch(scenario):
    import framework

    assert _outcome(scenario, framework) == _outcome(scenario, torch)


def test_the_message_names_the_saved_index_and_its_versions():
    """The first sentence in full: the index's type and shape, no node (it has no history), the versions."""
    import framework

    expected = ("RuntimeError", "one of the variables needed for gradient computation has been modified by an "
                "inplace operation: [framework.LongTensor [2]] is at version 1; expected version 0 instead.")
    assert _outcome(getitem, framework) == _outcome(getitem, torch) == expected


def test_batch_norm_module_versions_after_init_and_forward_match_torch():
    import framework

    def versions(m):
        bn = m.nn.BatchNorm1d(3)
        tensors = (bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.weight, bn.bias)
        after_init = [t._version for t in tensors]
        bn(m.randn(4, 3))
        return after_init, [t._version for t in tensors]

    assert versions(framework) == versions(torch)


def _twice(forward):
    """Backward twice through the graph of forward(m): the second one finds the saved tensors freed."""
    def scenario(m):
        y = forward(m)
        _backward(y)
        _backward(y)
    scenario.__name__ = forward.__name__
    return scenario


TWICE = [_twice(f) for f in [
    lambda m: m.randn(5, requires_grad=True)[_long(m, 0, 2)],
    lambda m: m.randn(5, requires_grad=True).index_select(0, _long(m, 0, 2)),
    lambda m: m.randn(2, 3, requires_grad=True).gather(1, m.tensor([[0, 2]])),
    lambda m: _F(m).embedding(_long(m, 0, 2), m.randn(5, 3, requires_grad=True)),
    lambda m: m.randn(5, requires_grad=True).take(_long(m, 0, 2)),
    lambda m: m.take_along_dim(m.randn(2, 3, requires_grad=True), m.tensor([[0, 2]]), dim=1),
    lambda m: _F(m).cross_entropy(m.randn(3, 4, requires_grad=True), _long(m, 0, 2, 1)),
    lambda m: m.randn(5, requires_grad=True).masked_fill(_mask(m), 1.0),
    lambda m: m.where(_mask(m), m.randn(5, requires_grad=True), 0.0),
    # scatter_add saves nothing when src needs no gradient: torch's second backward runs
    lambda m: m.randn(2, 3, requires_grad=True).scatter_add(1, m.tensor([[0, 2]]), m.randn(1, 2)),
]]


def _setitem_twice(m):
    y = m.randn(5, requires_grad=True).clone()
    y[_long(m, 0, 2)] = 1.0
    _backward(y)
    _backward(y)


TWICE.append(_setitem_twice)


@pytest.mark.parametrize("scenario", TWICE, ids=[f"{i}" for i in range(len(TWICE))])
def test_second_backward_after_the_saved_index_is_freed_matches_torch(scenario):
    import framework

    assert _outcome(scenario, framework) == _outcome(scenario, torch)


EDGES = [
    lambda m, x: x[_long(m, 0, 2)],
    lambda m, x: m.take_along_dim(x, _long(m, 0, 2)),
    lambda m, x: m.take_along_dim(x.view(1, 5), m.tensor([[0, 2]]), dim=1),
    lambda m, x: x.index_select(0, _long(m, 0, 2)),
    lambda m, x: x.gather(0, _long(m, 0, 2)),
    lambda m, x: x.scatter(0, _long(m, 0, 2), 1.0),
    lambda m, x: x.scatter_add(0, _long(m, 0, 2), x[:2]),
    lambda m, x: x.take(_long(m, 0, 2)),
    lambda m, x: x.masked_fill(_mask(m), 1.0),
    lambda m, x: x.masked_select(_mask(m)),
    lambda m, x: m.where(_mask(m), x, 0.0),
    lambda m, x: _F(m).nll_loss(x.view(1, 5), _long(m, 3)),
    lambda m, x: _F(m).binary_cross_entropy(x.sigmoid(), m.rand(5), weight=m.rand(5)),
    lambda m, x: _F(m).embedding(_long(m, 0, 2), x.view(5, 1)),
]


@pytest.mark.parametrize("k", range(len(EDGES)))
def test_saved_index_gets_no_edge_as_in_torch(k):
    """The index is saved, yet it is no input of the node's graph: next_functions as torch's."""
    import framework

    def names(m):
        y = EDGES[k](m, m.randn(5, requires_grad=True))
        edges = y.grad_fn.next_functions
        return [None if fn is None else fn.name().replace("torch::autograd::", "") for fn, _ in edges]

    assert names(framework) == names(torch)


def test_take_along_dim_gradcheck():
    import framework
    from framework.testing import gradcheck

    x = framework.randn(2, 1, 3, dtype=framework.float64, requires_grad=True)
    idx = framework.tensor([[[0], [2]], [[1], [1]]])
    assert gradcheck(lambda a: framework.take_along_dim(a, idx, dim=2), [x])
    assert gradcheck(lambda a: a.take_along_dim(framework.tensor([5, 0, 5])), [x])


INDEX_PUT = [  # index_put(_) and x[i] = v: values, gradients, graph and errors as torch's
    lambda m, x, v, i: x.index_put((i,), v),
    lambda m, x, v, i: x.clone().index_put_([i], v),
    lambda m, x, v, i: m.index_put(x, (m.tensor([1, 1]),), v, accumulate=True),
    lambda m, x, v, i: m.index_put_(x.clone(), (m.tensor([True, False, True, False, False]),), v),
    lambda m, x, v, i: x.clone().index_put_((i,), 1.0),
    lambda m, x, v, i: x.clone().index_put_(i, v),
    lambda m, x, v, i: x.clone().index_put_((i,), v.float()),
    lambda m, x, v, i: x.clone().index_put_((i.double(),), v),
    lambda m, x, v, i: x.clone().index_put_((i, i), v),
    lambda m, x, v, i: x.clone().index_put_((None,), v),
    lambda m, x, v, i: x.clone().index_put_((m.tensor([0, 7]),), v),
    lambda m, x, v, i: x.clone().index_put_((i,), m.ones(3, dtype=m.float64)),
    lambda m, x, v, i: x.clone().index_put_((), v),
    lambda m, x, v, i: x.view(1, 5).index_put((i, i), v),
    lambda m, x, v, i: x.view(1, 5)[i, 0, i],
    lambda m, x, v, i: x.view(5, 1).clone().__setitem__((i,), m.ones(3, dtype=m.float64)),
]


@pytest.mark.parametrize("k", range(len(INDEX_PUT)))
def test_index_put_matches_torch(k):
    import framework

    def run(m):
        x = m.arange(5.0, dtype=m.float64).requires_grad_()
        v = m.tensor([10.0, 20.0], dtype=m.float64, requires_grad=True)
        try:
            y = INDEX_PUT[k](m, x, v, m.tensor([0, 2]))
        except Exception as e:  # noqa: BLE001 - we compare whatever was raised
            return type(e).__name__, _first_sentence(e)
        (y * m.arange(float(y.numel()), dtype=m.float64).reshape(y.shape)).sum().backward()
        grads = [None if t.grad is None else t.grad.tolist() for t in (x, v)]
        return y.tolist(), y.grad_fn.name(), grads

    assert run(framework) == run(torch)


def test_index_put_gradcheck():
    import framework
    from framework.testing import gradcheck

    a = framework.randn(3, 4, dtype=framework.float64, requires_grad=True)
    v = framework.randn(2, 4, dtype=framework.float64, requires_grad=True)
    idx = framework.tensor([2, 0])
    assert gradcheck(lambda a, v: framework.index_put(a, (idx,), v), [a, v])
    assert gradcheck(lambda a, v: a.index_put((framework.tensor([1, 1]),), v, accumulate=True), [a, v])
