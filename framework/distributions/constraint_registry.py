"""biject_to and transform_to: from unconstrained reals to a constraint's set, as torch's constraint_registry
(the same registrations for the constraints here; simplex and the matrix constraints are not registered)."""
from __future__ import annotations

from numbers import Number

from . import constraints
from .transforms import AffineTransform, ComposeTransform, ExpTransform, IndependentTransform, SigmoidTransform


class ConstraintRegistry:
    """Constraint classes -> factories making a transform for a constraint instance."""

    def __init__(self) -> None:
        self._registry: dict = {}

    def register(self, constraint, factory=None):
        if factory is None:  # used as a decorator
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got "
                            f"{constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _real(constraint):
    return ComposeTransform([])


def _independent_biject(constraint):
    return IndependentTransform(biject_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


def _independent_transform(constraint):
    return IndependentTransform(transform_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


def _greater_than(constraint):
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.lower_bound, 1)])


def _less_than(constraint):
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.upper_bound, -1)])


def _interval(constraint):
    lower_is_0 = isinstance(constraint.lower_bound, Number) and constraint.lower_bound == 0
    upper_is_1 = isinstance(constraint.upper_bound, Number) and constraint.upper_bound == 1
    if lower_is_0 and upper_is_1:
        return SigmoidTransform()
    loc, scale = constraint.lower_bound, constraint.upper_bound - constraint.lower_bound
    return ComposeTransform([SigmoidTransform(), AffineTransform(loc, scale)])


for _registry in (biject_to, transform_to):
    _registry.register(constraints.real, _real)
    for _c in (constraints.greater_than, constraints.greater_than_eq):
        _registry.register(_c, _greater_than)
    _registry.register(constraints.less_than, _less_than)
    for _c in (constraints.interval, constraints.half_open_interval):
        _registry.register(_c, _interval)
biject_to.register(constraints.independent, _independent_biject)
transform_to.register(constraints.independent, _independent_transform)
