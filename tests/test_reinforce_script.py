"""A REINFORCE (Monte-Carlo policy gradient) episode loop, written here as ordinary PyTorch code and run with `torch`
bound to framework and to torch: the same weights and the same actions give the same losses and Adam steps."""
import numpy as np
import pytest

import framework

torch = pytest.importorskip("torch")


def _agent(lib, replay=None):
    """A policy network and the two functions of the loop: ``act`` (sample, remember log-prob) and ``update``."""
    nn, F = lib.nn, lib.nn.functional

    class PolicyNet(nn.Module):
        def __init__(self, observations=4, hidden=32, actions=2):
            super().__init__()
            self.body = nn.Linear(observations, hidden)
            self.drop = nn.Dropout(0.5)
            self.head = nn.Linear(hidden, actions)

        def forward(self, obs):
            return F.log_softmax(self.head(F.relu(self.drop(self.body(obs)))), dim=-1)

    net = PolicyNet()
    net.eval()  # dropout off: both libraries compute the same numbers
    memory = {"log_probs": [], "rewards": [], "actions": []}

    def act(obs):
        device = next(net.parameters()).device  # the model's device (the default one)
        dist = lib.distributions.Categorical(logits=net(lib.from_numpy(obs).float().unsqueeze(0).to(device)))
        if replay is None:
            action = dist.sample()
        else:
            action = lib.tensor([replay[len(memory["actions"])]])
        memory["log_probs"].append(dist.log_prob(action))
        memory["actions"].append(int(action.item()))

    def update(optimizer, discount=0.95):
        rewards = memory["rewards"]
        powers = np.triu(discount ** (np.arange(len(rewards))[None, :] - np.arange(len(rewards))[:, None]))
        returns = lib.tensor(powers @ np.asarray(rewards), dtype=lib.float32)  # each step's discounted future
        advantage = (returns - returns.mean()) / (returns.std() + 1e-8)
        loss = -(lib.cat(memory["log_probs"]) * advantage).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        memory["log_probs"].clear()
        rewards.clear()
        return loss.item()

    return net, act, update, memory


def _run(lib, weights, replay=None):
    net, act, update, memory = _agent(lib, replay)
    net.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
    optimizer = lib.optim.Adam(net.parameters(), lr=1e-2)
    observations = np.random.default_rng(0).standard_normal((3, 7, 4))
    losses = []
    for episode in observations:
        for t, obs in enumerate(episode):
            act(obs)
            memory["rewards"].append(1.0 if t % 3 == 1 else -0.5)
        losses.append(update(optimizer))
    state = {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}
    return losses, memory["actions"], state


def test_reinforce_matches_torch_for_the_same_actions():
    framework.manual_seed(0)
    start = {k: v.detach().cpu().numpy().copy() for k, v in _agent(framework)[0].state_dict().items()}
    losses, actions, state = _run(framework, start)  # actions sampled by framework's Categorical
    assert set(actions) <= {0, 1} and len(actions) == 21
    t_losses, t_actions, t_state = _run(torch, start, actions)
    assert t_actions == actions
    np.testing.assert_allclose(losses, t_losses, rtol=1e-5, atol=1e-6)
    for k in state:
        np.testing.assert_allclose(state[k], t_state[k], rtol=1e-5, atol=1e-6, err_msg=k)
