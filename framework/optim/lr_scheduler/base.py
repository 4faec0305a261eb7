"""LRScheduler: the base of torch's schedulers (last_epoch, get_last_lr, step's call-order warnings, state_dict), and the helpers they share."""
from __future__ import annotations

import functools
import types
import warnings
import weakref

from ...tensor import Tensor
from ..optimizer import Optimizer


_HOW_TO = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"


EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use "
    "`scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed "
    "form is used instead of the new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _track_step_called(optimizer: Optimizer) -> None:
    """As torch: optimizer.step records that it ran, so that a scheduler stepped first can say so."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = weakref.ref(optimizer)
    func = optimizer.step.__func__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        opt = opt_ref()
        opt._opt_called = True
        return func.__get__(opt, opt.__class__)(*args, **kwargs)
    wrapper._wrapped_by_lr_sched = True
    optimizer.step = wrapper


def _copy(lr):
    """A Tensor lr is copied (torch clones it): filling the group's lr in place must not change the copy."""
    return lr.clone() if isinstance(lr, Tensor) else lr


def _set_lr(group: dict, lr) -> None:
    """group["lr"] = lr, but a Tensor lr is filled in place, as torch does: whoever holds it sees the change."""
    if isinstance(group["lr"], Tensor):
        group["lr"].fill_(lr.item() if isinstance(lr, Tensor) else lr)
    else:
        group["lr"] = lr


class LRScheduler:
    """Base class: ``step()`` after each ``optimizer.step()`` sets every group's lr from ``get_lr()``."""

    _get_lr_called_within_step = False

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "get_lr" in cls.__dict__:  # torch's get_lr warns when called from outside step()
            get_lr = cls.__dict__["get_lr"]

            @functools.wraps(get_lr)
            def checked(self):
                if not self._get_lr_called_within_step:
                    warnings.warn("To get the last learning rate computed by the scheduler, please use "
                                  "`get_last_lr()`.", UserWarning, stacklevel=2)
                return get_lr(self)
            cls.get_lr = checked

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler with "
                        "last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training from a "
                        "checkpoint but haven't properly loaded the optimizer state\n2. You're using last_epoch >= 0 "
                        "for a fresh training run (not recommended)")
        self.base_lrs = [_copy(group["initial_lr"]) for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _track_step_called(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        return self._last_lr

    def _lrs(self) -> list[float]:
        return [_copy(g["lr"]) for g in self.optimizer.param_groups]

    def step(self, epoch: int | None = None) -> None:
        """Set the next learning rates; call it after optimizer.step() (epoch=: deprecated, as in torch)."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                              "initialization. Please, make sure to call `optimizer.step()` before "
                              f"`lr_scheduler.step()`. See more details at {_HOW_TO}", UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 "
                              "and later, you should call them in the opposite order: `optimizer.step()` before "
                              "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
                              f"value of the learning rate schedule. See more details at {_HOW_TO}",
                              UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_lr(group, lr)
        self._last_lr = self._lrs()

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k != "optimizer" and not callable(v)
                 and k != "lr_lambdas"}
        if "lr_lambdas" in self.__dict__:  # torch keeps a callable object's attributes, None for a function
            state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                                   for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        lr_lambdas = state.pop("lr_lambdas", None)
        self.__dict__.update(state)
        for fn, saved in zip(getattr(self, "lr_lambdas", ()), lr_lambdas or ()):
            if saved is not None:
                fn.__dict__.update(saved)
