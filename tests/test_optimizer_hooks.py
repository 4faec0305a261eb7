"""Optimizer hooks vs torch: step pre/post hooks (per optimizer and global, their order, what they receive, a
pre-hook's new (args, kwargs)), the state_dict and load_state_dict hooks (prepend, returned dicts), and the
RemovableHandles that unregister them."""
import re
import warnings

import pytest

import framework
from framework.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

from scenario import error_of


def _optimizer(m, cls="SGD", **kw):
    m.manual_seed(0)
    p = m.nn.Parameter(m.ones(3))
    p.grad = m.full((3,), 0.5)
    return getattr(m.optim, cls)([p], lr=0.1, **kw), p


def _global(m):
    if m is framework:
        return register_optimizer_step_pre_hook, register_optimizer_step_post_hook
    from torch.optim import optimizer
    return optimizer.register_optimizer_step_pre_hook, optimizer.register_optimizer_step_post_hook


def _step_log(m, cls="SGD"):
    """Which hooks ran, in which order, with what, over steps called as users call them."""
    opt, _ = _optimizer(m, cls)
    log = []
    gpre, gpost = _global(m)

    def record(tag):
        def hook(o, args, kwargs):
            assert o is opt and args[0] is opt
            log.append((tag, len(args), sorted(kwargs)))
        return hook
    handles = [opt.register_step_post_hook(record("post1")), gpost(record("gpost1")),
               opt.register_step_pre_hook(record("pre1")), gpre(record("gpre1")),
               opt.register_step_pre_hook(record("pre2")), gpre(record("gpre2")),
               opt.register_step_post_hook(record("post2")), gpost(record("gpost2"))]
    try:
        closure = lambda: 1.5  # noqa: E731
        out = [opt.step(closure) if cls == "LBFGS" else opt.step()]
        out.append(opt.step(closure=closure))
        handles[2].remove()
        handles[5].remove()
        handles[0].remove()
        out.append(opt.step(closure))
        handles[2].remove()  # a second remove() is a no-op
    finally:
        for h in handles:
            h.remove()
    out.append(opt.step(closure))
    return log, out


@pytest.mark.parametrize("cls", ["SGD", "Adam", "LBFGS"])
def test_step_hooks_order_and_arguments_match_torch(torch, cls):
    ours, theirs = _step_log(framework, cls), _step_log(torch, cls)
    assert ours[0] == theirs[0]
    assert [float(x) if x is not None else None for x in ours[1]] == \
           [float(x) if x is not None else None for x in theirs[1]]


def _replaced_closure(m):
    """A pre-hook's (new_args, new_kwargs) are what step() and the post-hooks get."""
    opt, p = _optimizer(m)
    seen = []
    opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: 7.0}))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append(kwargs["closure"]()))
    loss = opt.step()
    return loss, seen, p.detach().tolist()


def test_pre_hook_returning_new_args_and_kwargs_matches_torch(torch):
    assert _replaced_closure(framework) == _replaced_closure(torch)


def test_pre_hook_returning_something_else_errors_as_torch(torch):
    def bad(m):
        opt, _ = _optimizer(m)
        opt.register_step_pre_hook(lambda o, a, k: 5)
        opt.step()
    ours, theirs = error_of(lambda: bad(framework)), error_of(lambda: bad(torch))
    unaddressed = [(e[0], re.sub(r" at 0x[0-9a-f]+", "", e[1])) for e in (ours, theirs)]
    assert unaddressed[0] == unaddressed[1]
    assert unaddressed[0] == ("RuntimeError", "<function SGD.step> must return None or a tuple of (new_args, "
                                              "new_kwargs), but got 5.")


def test_global_hooks_reach_every_optimizer_until_removed(torch):
    calls = []
    handle = register_optimizer_step_pre_hook(lambda o, a, k: calls.append(type(o).__name__))
    with register_optimizer_step_post_hook(lambda o, a, k: calls.append("post")):
        for cls in ("SGD", "Adam", "RMSprop"):
            _optimizer(framework, cls)[0].step()
    handle.remove()
    _optimizer(framework)[0].step()
    assert calls == ["SGD", "post", "Adam", "post", "RMSprop", "post"]


def test_a_step_that_calls_super_step_runs_the_hooks_once(torch):
    class Clipped(framework.optim.SGD):
        def step(self, closure=None):
            for g in self.param_groups:
                for p in g["params"]:
                    p.grad.clamp_(-0.1, 0.1)
            return super().step(closure)
    p = framework.nn.Parameter(framework.ones(2))
    p.grad = framework.ones(2)
    opt, calls = Clipped([p], lr=1.0), []
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    opt.step()
    assert calls == ["pre", "post"] and p.detach().tolist() == pytest.approx([0.9, 0.9])


def test_step_hooks_with_an_lr_scheduler(torch):
    """The scheduler's own wrapper of optimizer.step (torch's _opt_called check) and the hooks both work."""
    opt, _ = _optimizer(framework)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    sched = framework.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()
    assert calls == ["pre"] and opt.param_groups[0]["lr"] == 0.05


def _state_dict_hooks(m):
    opt, _ = _optimizer(m, "Adam")
    opt.step()
    log = []
    opt.register_state_dict_pre_hook(lambda o: log.append("pre1"))
    opt.register_state_dict_pre_hook(lambda o: log.append("pre0"), prepend=True)

    def add_key(o, sd):
        log.append("post1")
        sd["extra"] = 1

    def replace(o, sd):
        log.append("post0")
        return {"state": sd["state"], "param_groups": sd["param_groups"], "replaced": True}
    opt.register_state_dict_post_hook(add_key)
    h = opt.register_state_dict_post_hook(replace, prepend=True)
    sd = opt.state_dict()
    keys = sorted(sd)
    h.remove()
    keys2 = sorted(opt.state_dict())

    def lr_to_half(o, sd):
        log.append(("lpre", sorted(sd)))
        sd = dict(sd)
        sd["param_groups"] = [dict(g, lr=0.5) for g in sd["param_groups"]]
        return sd
    given = opt.state_dict()
    opt.register_load_state_dict_pre_hook(lr_to_half)
    opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(("lpre0", sd is given)), prepend=True)
    opt.register_load_state_dict_post_hook(lambda o: log.append(("lpost", o.param_groups[0]["lr"])))
    opt.register_load_state_dict_post_hook(lambda o: log.append("lpost0"), prepend=True)
    opt.load_state_dict(given)
    return log, keys, keys2, opt.param_groups[0]["lr"], given["param_groups"][0]["lr"]


def test_state_dict_and_load_state_dict_hooks_match_torch(torch):
    assert _state_dict_hooks(framework) == _state_dict_hooks(torch)


def test_every_optimizer_class_has_a_hooked_step():
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "Rprop",
                 "ASGD", "LBFGS"):
        assert getattr(getattr(framework.optim, name).step, "hooked", False), name


def test_copies_and_pickles_of_an_optimizer_leave_its_hooks_behind(torch):
    import copy
    import pickle

    def hooks_after(m, clone):
        opt, _ = _optimizer(m)
        calls = []
        opt.register_step_pre_hook(lambda o, a, k: calls.append("pre of the original"))
        opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
        opt.register_load_state_dict_pre_hook(lambda o, sd: None)
        copied = clone(opt)
        copied.register_step_post_hook(lambda o, a, k: calls.append("post"))
        copied.step()
        return calls, sorted(copied.state_dict())
    for clone in (copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))):
        assert hooks_after(framework, clone) == hooks_after(torch, clone)
