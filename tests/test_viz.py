"""See the graph: explain(tensor) text trees, DOT output that parses, PNG rendering when dot exists."""
import shutil

import pytest

import framework
from framework import nn, viz


def _seed004():
    inp = framework.ones([2, 2])
    w1 = framework.tensor(2.0, requires_grad=True)
    w2 = framework.tensor(3.0, requires_grad=True)
    w3 = framework.tensor(3.0, requires_grad=True)
    l1 = inp * w1
    l2 = l1 + w2
    l3 = l1 * w3
    l4 = l2 * l3
    return (w1, w2, w3), (l1, l2, l3, l4), l4.mean()


def test_explain_seed004_graph_lists_every_node_and_leaf():
    (w1, w2, w3), (l1, l2, l3, l4), loss = _seed004()
    l1.retain_grad()
    text = framework.autograd.explain(loss)
    assert text.splitlines()[0].startswith("tensor () framework.float32, requires_grad=True, is_leaf=False")
    assert text.count("MeanBackward0") == 1 and text.count("AddBackward0") == 1
    assert text.count("MulBackward0") >= 3 and text.count("AccumulateGrad") >= 3
    assert "retains grad" in text and "saved at version 0, now 0  ok" in text
    before = [t.grad_fn for t in (l1, l2, l3, l4, loss)]
    framework.autograd.explain(loss)
    assert [t.grad_fn for t in (l1, l2, l3, l4, loss)] == before  # printing never changes the graph
    loss.backward()
    assert w1.grad.item() == 21.0


def test_explain_marks_exactly_what_backward_would_reject():
    _, (l1, l2, l3, l4), loss = _seed004()
    with framework.no_grad():
        l3.add_(1)  # saved by l4 = l2 * l3 (for l2's gradient)
    text = framework.autograd.explain(loss)
    assert text.count("STALE") == 1
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        loss.backward()


def test_explain_leaf_and_no_graph():
    assert "a leaf" in framework.autograd.explain(framework.ones(2, requires_grad=True))
    assert "requires_grad=False" in framework.autograd.explain(framework.ones(2))


def test_to_dot_parses_and_labels_parameters():
    pydot = pytest.importorskip("pydot")
    D = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    x = framework.randn(4, 2, requires_grad=True)
    out = D(x).sum()
    dot = viz.to_dot(out, params={"D": D})
    (graph,) = pydot.graph_from_dot_data(dot)
    labels = " ".join(n.get_label() or "" for n in graph.get_nodes())
    for name in ("D.0.weight", "D.0.bias", "D.2.weight", "SumBackward0", "AddmmBackward0", "ReluBackward0"):
        assert name in labels
    assert len(graph.get_edges()) >= 7
    with framework.no_grad():
        D[2].weight.mul_(2)
    stale = viz.to_dot(out, params={"D": D})
    assert "STALE" in stale and "#ff9999" in stale and "#ff9999" not in dot


def test_make_dot_returns_graphviz_object(tmp_path):
    pytest.importorskip("graphviz")
    out = (framework.ones(2, requires_grad=True) * 2).sum()
    g = viz.make_dot(out)
    assert "MulBackward0" in g.source
    if not shutil.which("dot"):
        with pytest.raises(RuntimeError, match="apt-get install graphviz"):
            g.render(str(tmp_path / "g"), format="png")


def test_save_graph_writes_dot_and_png_when_dot_exists(tmp_path):
    out = (framework.ones(2, requires_grad=True).exp()).sum()
    path = viz.save_graph(out, str(tmp_path / "g"))
    assert (tmp_path / "g.dot").read_text().startswith("digraph")
    if shutil.which("dot"):
        assert path.endswith(".png") and (tmp_path / "g.png").stat().st_size > 100
    else:
        assert path.endswith(".dot")
