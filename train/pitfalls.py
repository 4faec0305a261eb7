"""Seed 002's GAN snippet in its three variants, run for real, each outcome printed with our explanation."""
from __future__ import annotations

import framework
from framework import nn, optim


def gan_snippet(retain_graph: bool, detach: bool, seed: int = 0) -> str:
    """Run the document's code; return 'trained' or raise what it raises."""
    framework.manual_seed(seed)
    G = nn.Linear(2, 2)
    D = nn.Linear(2, 2)
    optimG = optim.Adam(G.parameters())
    optimD = optim.Adam(D.parameters())

    t = framework.tensor([1., 2], requires_grad=True)
    g = G(t)
    d = D(g)

    lossD = d.sum()
    optimD.zero_grad()
    lossD.backward(retain_graph=retain_graph)
    optimD.step()

    lossG = (g + (d.detach() if detach else d)).sum()
    optimG.zero_grad()
    lossG.backward()
    optimG.step()
    return "trained"


VARIANTS = [
    ("1. plain: lossD.backward(); optimD.step(); lossG.backward()", False, False),
    ("2. lossD.backward(retain_graph=True), then optimD.step(), then lossG.backward()", True, False),
    ("3. retain_graph=True and lossG = (g + d.detach()).sum()", True, True),
]


def run(print_fn=print) -> list[tuple[str, str, BaseException | None]]:
    """Run the three variants; print and return (title, outcome, exception) for each."""
    results = []
    for title, retain, detach in VARIANTS:
        print_fn("=" * 100)
        print_fn(title)
        print_fn("-" * 100)
        try:
            outcome = gan_snippet(retain, detach)
            print_fn("outcome: trained (G and D both stepped)")
            results.append((title, outcome, None))
        except RuntimeError as e:
            print_fn(f"outcome: {type(e).__name__}")
            print_fn(str(e))
            results.append((title, type(e).__name__, e))
    print_fn("=" * 100)
    return results
