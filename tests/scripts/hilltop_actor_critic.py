"""Advantage actor-critic on a small control task of our own: keep a ball on top of a hill by pushing it left/right.

Written for this project as ordinary PyTorch code (`import framework as torch`; the tests rebind it to torch).
Exercises a two-headed policy/value network, distributions.Categorical (sample, log_prob), discounted returns
normalised with their std, smooth_l1_loss for the critic, torch.stack(...).sum() of per-step losses, and Adam.

Run: PYTHONPATH=. python tests/scripts/hilltop_actor_critic.py --episodes 60
"""
import argparse
from collections import namedtuple

import numpy as np

import framework as torch
import framework.nn as nn
import framework.nn.functional as F
from framework.distributions import Categorical

Step = namedtuple("Step", ["log_prob", "value"])


class Hilltop:
    """A ball on the crest of a hill: gravity pulls it away from x = 0 in proportion to x, each push changes the
    velocity by a fixed amount. An episode ends when |x| > 1 or after `limit` steps; every step survived earns 1."""

    def __init__(self, limit: int = 200, steepness: float = 0.6, push: float = 0.06, dt: float = 0.1):
        self.limit, self.steepness, self.push, self.dt = limit, steepness, push, dt
        self.rng = np.random.default_rng()

    def reset(self, seed=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.x, self.v = self.rng.uniform(-0.2, 0.2, 2)
        self.t = 0
        return self.observe()

    def observe(self):
        return np.array([4 * self.x, 4 * self.v, self.x * abs(self.x), 1.0], dtype=np.float32)  # of order one

    def step(self, action: int):
        self.v += self.steepness * self.x * self.dt + (self.push if action == 1 else -self.push)
        self.x += self.v * self.dt
        self.t += 1
        done = abs(self.x) > 1 or self.t >= self.limit
        return self.observe(), 1.0, done


class ActorCritic(nn.Module):
    """A shared hidden layer, then action probabilities (actor) and a state value (critic)."""

    def __init__(self, observations: int = 4, actions: int = 2, hidden: int = 64):
        super().__init__()
        self.hidden = nn.Linear(observations, hidden)
        self.actor = nn.Linear(hidden, actions)
        self.critic = nn.Linear(hidden, 1)
        self.trajectory, self.rewards = [], []

    def forward(self, observation):
        h = F.relu(self.hidden(observation))
        return F.softmax(self.actor(h), dim=-1), self.critic(h)


def act(model, observation) -> int:
    """Sample an action from the policy, remembering its log-probability and the critic's value for the update."""
    probs, value = model(torch.from_numpy(observation).float())
    choice = Categorical(probs).sample()
    model.trajectory.append(Step(Categorical(probs).log_prob(choice), value))
    return choice.item()


def learn(model, optimizer, gamma: float) -> float:
    """One update from the finished episode: actor by the advantage, critic by smooth L1 to the returns."""
    returns, running = [], 0.0
    for reward in reversed(model.rewards):
        running = reward + gamma * running
        returns.insert(0, running)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + np.finfo(np.float32).eps.item())
    actor_terms, critic_terms = [], []
    for (log_prob, value), ret in zip(model.trajectory, returns):
        advantage = ret - value.item()
        actor_terms.append(-log_prob * advantage)
        critic_terms.append(F.smooth_l1_loss(value, torch.tensor([ret])))
    optimizer.zero_grad()
    loss = torch.stack(actor_terms).sum() + torch.stack(critic_terms).sum()
    loss.backward()
    optimizer.step()
    del model.trajectory[:], model.rewards[:]
    return loss.item()


def run_episode(env, model) -> int:
    observation, done = env.reset(), False
    while not done:
        observation, reward, done = env.step(act(model, observation))
        model.rewards.append(reward)
    return len(model.rewards)


def main(argv=None) -> float:
    """Train for --episodes; returns the final running (exponentially averaged) episode length."""
    parser = argparse.ArgumentParser(description="actor-critic on Hilltop")
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lr", type=float, default=3e-2)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    env = Hilltop()
    env.reset(seed=args.seed)
    model = ActorCritic()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    running = None
    for episode in range(1, args.episodes + 1):
        length = run_episode(env, model)
        running = length if running is None else 0.9 * running + 0.1 * length
        learn(model, optimizer, args.gamma)
        if episode % 10 == 0:
            print(f"episode {episode}: length {length}, running length {running:.1f}")
    return running


if __name__ == "__main__":
    main()
