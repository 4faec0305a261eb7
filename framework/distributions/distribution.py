"""Distribution: the base class (batch/event shapes, sample shapes, argument and sample validation)."""
from __future__ import annotations

from typing import Callable

from ..autograd.grad_mode import no_grad
from ..tensor import Size, Tensor
from . import constraints
from .utils import lazy_property


class Distribution:
    """Base of Categorical, Normal and Bernoulli; arguments are validated unless ``validate_args=False``."""

    _validate_args = True
    arg_constraints: dict = {}  # parameter name -> constraints.Constraint, as torch's
    _param_names: tuple = ()  # the parameters expand() broadcasts
    support = None  # the constraints.Constraint samples satisfy

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args: bool | None = None) -> None:
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_args()

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape=()) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=Size()) -> Tensor:
        """A sample without gradient (rsample under no_grad where the distribution has one)."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement rsample")

    def sample_n(self, n: int) -> Tensor:
        return self.sample(Size((n,)))

    has_rsample = False
    has_enumerate_support = False

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def expand(self, batch_shape, _instance=None) -> "Distribution":
        """The same distribution broadcast to ``batch_shape``: each parameter in ``_param_names`` is expanded
        (its trailing event dimensions kept), with no copy, as torch's per-class expand."""
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name in self._param_names:
            value = self.__dict__.get(name)
            if isinstance(value, Tensor):
                event = tuple(value.shape[len(self._batch_shape):])
                new.__dict__[name] = value.expand(*batch_shape, *event)
        new._batch_shape = batch_shape
        return new

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement mean")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    # ---- validation with torch's message ---------------------------------------------------------------
    def _check_param(self, name: str, value: Tensor, constraint: str, ok: Callable) -> None:
        if self._validate_args and not bool(ok(value._array).all()):
            raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                             f"distribution {self!r} to satisfy the constraint {constraint}, but found invalid "
                             f"values:\n{value}")

    def _check_args(self) -> None:
        """torch's argument validation (run by __init__): each arg_constraints entry in the dict's order, but
        dependent constraints and lazy_property parameters not computed yet."""
        for name, constraint in self.arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_property):
                continue
            self._check_arg(name, getattr(self, name), constraint)

    def _check_arg(self, name: str, value: Tensor, constraint) -> None:
        self._check_param(name, value, repr(constraint), lambda a: constraint.check(Tensor._make(a))._array)

    def _check_support(self, value) -> None:
        """torch's _validate_sample: a Tensor, of a shape that broadcasts, inside self.support."""
        support = self.support
        self._check_value(value, repr(support), lambda a: support.check(Tensor._make(a))._array)

    def _validate_sample(self, value) -> None:
        """torch's name (user-defined distributions call it): the checks of _check_support."""
        self._check_support(value)

    def _check_value(self, value: Tensor, support: str, ok: Callable) -> None:
        if not self._validate_args:
            return
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        self._check_sample_shape(value)
        if not bool(ok(value._array).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _check_sample_shape(self, value: Tensor) -> None:
        """torch's shape checks: the event dims must match, the rest must broadcast with the batch shape."""
        actual, event = Size(value.shape), self._event_shape
        start = len(actual) - len(event)
        if Size(actual[start:] if start >= 0 else actual) != event:
            raise ValueError(f"The right-most size of value must match event_shape: {actual} vs {event}.")
        expected = Size(tuple(self._batch_shape) + tuple(event))
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {expected}.")

    def __repr__(self) -> str:
        # torch: the arg_constraints parameters stored on the instance
        args = ", ".join(f"{p}: {self.__dict__[p].item() if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in self.arg_constraints if p in self.__dict__)
        return f"{type(self).__name__}({args})"
