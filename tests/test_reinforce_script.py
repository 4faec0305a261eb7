"""pytorch/examples reinforcement_learning/reinforce.py's policy and loss code, run with `torch` bound to framework
and to torch: the same weights and the same actions give the same loss, gradients and Adam step."""
from collections import deque

import numpy as np
import pytest

import framework

torch = pytest.importorskip("torch")


def _script(torch, nn, F, optim, Categorical, actions_from=None):
    """The example's code as written (Policy, select_action, finish_episode), with gym replaced by fixed states."""

    class Policy(nn.Module):
        def __init__(self):
            super(Policy, self).__init__()
            self.affine1 = nn.Linear(4, 128)
            self.dropout = nn.Dropout(p=0.6)
            self.affine2 = nn.Linear(128, 2)
            self.saved_log_probs = []
            self.rewards = []

        def forward(self, x):
            x = self.affine1(x)
            x = self.dropout(x)
            x = F.relu(x)
            action_scores = self.affine2(x)
            return F.softmax(action_scores, dim=1)

    policy = Policy()
    policy.eval()  # dropout off, so both libraries compute the same numbers
    eps = np.finfo(np.float32).eps.item()
    taken = []

    def select_action(state):
        state = torch.from_numpy(state).float().unsqueeze(0).to(next(policy.parameters()).device)  # the model's device
        probs = policy(state)
        m = Categorical(probs)
        action = m.sample() if actions_from is None else torch.tensor([actions_from[len(taken)]])
        policy.saved_log_probs.append(m.log_prob(action))
        taken.append(action.item())
        return action.item()

    def finish_episode(optimizer, gamma=0.99):
        R = 0
        policy_loss = []
        returns = deque()
        for r in policy.rewards[::-1]:
            R = r + gamma * R
            returns.appendleft(R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        for log_prob, R in zip(policy.saved_log_probs, returns):
            policy_loss.append(-log_prob * R)
        optimizer.zero_grad()
        policy_loss = torch.cat(policy_loss).sum()
        policy_loss.backward()
        optimizer.step()
        del policy.rewards[:]
        del policy.saved_log_probs[:]
        return policy_loss.item()

    return policy, select_action, finish_episode, taken


def _run(lib, weights=None, actions=None):
    nn = lib.nn
    policy, select_action, finish_episode, taken = _script(lib, nn, nn.functional, lib.optim,
                                                           lib.distributions.Categorical, actions)
    if weights is not None:
        policy.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
    optimizer = lib.optim.Adam(policy.parameters(), lr=1e-2)
    rng = np.random.default_rng(0)
    losses = []
    for episode in range(3):
        for t in range(6):
            select_action(rng.standard_normal(4))
            policy.rewards.append(float(t % 3 == 0))
        losses.append(finish_episode(optimizer))
    state = {k: v.detach().cpu().numpy().copy() for k, v in policy.state_dict().items()}
    return losses, taken, state


def test_reinforce_matches_torch_for_the_same_actions():
    framework.manual_seed(0)
    start = {k: v.detach().cpu().numpy().copy() for k, v in
             _script(framework, framework.nn, framework.nn.functional, framework.optim,
                     framework.distributions.Categorical)[0].state_dict().items()}
    losses, actions, state = _run(framework, start)  # actions sampled by framework's Categorical
    assert set(actions) <= {0, 1} and len(actions) == 18
    t_losses, t_actions, t_state = _run(torch, start, actions)
    assert t_actions == actions
    np.testing.assert_allclose(losses, t_losses, rtol=1e-5, atol=1e-6)
    for k in state:
        np.testing.assert_allclose(state[k], t_state[k], rtol=1e-5, atol=1e-6, err_msg=k)
