"""A graph attention network classifying the nodes of a random graph with planted communities.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises multi-head attention written by hand: mm, view/permute into heads, matmul against the transposed scores
(.mT), LeakyReLU, torch.where masking of non-edges, softmax, dropout on features and on attention, ELU, xavier init,
log_softmax with NLLLoss on index masks and Adam with weight decay.

Run: PYTHONPATH=. python tests/scripts/graph_attention.py --epochs 40
"""
import argparse

import framework as torch
import framework.nn as nn
import framework.nn.functional as F


def planted_graph(nodes: int = 96, features: int = 24, classes: int = 4):
    """Node features (noisy class indicators), labels, and a symmetric 0/1 adjacency with self-loops in which nodes
    of the same class link far more often than others."""
    labels = torch.arange(nodes) % classes
    same = labels[:, None] == labels[None, :]
    chance = torch.where(same, torch.full((nodes, nodes), 0.15), torch.full((nodes, nodes), 0.02))
    upper = torch.triu((torch.rand(nodes, nodes) < chance).float(), diagonal=1)
    adjacency = upper + upper.t() + torch.eye(nodes)
    signal = F.one_hot(labels, classes).float().repeat(1, features // classes)
    x = 0.6 * signal + torch.randn(nodes, features)
    return x, labels, adjacency


class GraphAttention(nn.Module):
    """One layer: each node attends over its neighbours in `heads` independent heads, concatenated or averaged."""

    def __init__(self, fin: int, fout: int, heads: int, concat: bool, dropout: float, slope: float = 0.2):
        super().__init__()
        self.heads, self.concat, self.dropout = heads, concat, dropout
        self.fout = fout // heads if concat else fout
        self.weight = nn.Parameter(torch.empty(fin, heads * self.fout))
        self.attend = nn.Parameter(torch.empty(heads, 2 * self.fout, 1))  # [source half; target half] per head
        self.score_act = nn.LeakyReLU(slope)
        nn.init.xavier_normal_(self.weight)
        nn.init.xavier_normal_(self.attend)

    def forward(self, x, adjacency):
        n = x.shape[0]
        h = F.dropout(torch.mm(x, self.weight), self.dropout, training=self.training)
        h = h.view(n, self.heads, self.fout).permute(1, 0, 2)  # (heads, nodes, fout)
        source = torch.matmul(h, self.attend[:, :self.fout, :])  # (heads, nodes, 1)
        target = torch.matmul(h, self.attend[:, self.fout:, :])
        scores = self.score_act(source + target.mT)  # (heads, nodes, nodes)
        scores = torch.where(adjacency > 0, scores, torch.full_like(scores, -1e9))  # no attention along non-edges
        weights = F.dropout(F.softmax(scores, dim=-1), self.dropout, training=self.training)
        mixed = torch.matmul(weights, h)  # (heads, nodes, fout)
        if self.concat:
            return mixed.permute(1, 0, 2).reshape(n, self.heads * self.fout)
        return mixed.mean(dim=0)


class GAT(nn.Module):
    def __init__(self, fin: int, hidden: int, heads: int, classes: int, dropout: float = 0.5):
        super().__init__()
        self.first = GraphAttention(fin, hidden, heads, concat=True, dropout=dropout)
        self.second = GraphAttention(hidden, classes, 1, concat=False, dropout=dropout)

    def forward(self, x, adjacency):
        return F.log_softmax(self.second(F.elu(self.first(x, adjacency)), adjacency), dim=1)


def train_step(model, optimizer, criterion, x, adjacency, labels, train_idx) -> float:
    model.train()
    optimizer.zero_grad()
    loss = criterion(model(x, adjacency)[train_idx], labels[train_idx])
    loss.backward()
    optimizer.step()
    return loss.item()


def accuracy(model, x, adjacency, labels, idx) -> float:
    model.eval()
    with torch.no_grad():
        return (model(x, adjacency)[idx].argmax(dim=1) == labels[idx]).float().mean().item()


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="GAT on a planted-partition graph")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--weight-decay", type=float, default=5e-4)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--dropout", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    x, labels, adjacency = planted_graph()
    order = torch.randperm(len(labels))
    train_idx, test_idx = order[:48], order[48:]
    model = GAT(x.shape[1], args.hidden, args.heads, int(labels.max()) + 1, args.dropout)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    criterion = nn.NLLLoss()
    losses = []
    for epoch in range(1, args.epochs + 1):
        losses.append(train_step(model, optimizer, criterion, x, adjacency, labels, train_idx))
        if epoch % 10 == 0:
            test_accuracy = accuracy(model, x, adjacency, labels, test_idx)
            print(f"epoch {epoch}: loss {losses[-1]:.4f}  test accuracy {test_accuracy:.3f}")
    return losses


if __name__ == "__main__":
    main()
