"""Tensor methods for the ops added for real PyTorch scripts (gather, topk, cumsum, new_zeros...)."""
from __future__ import annotations

from . import creation, ops
from .tensor import Tensor


def _like_factory(fn):
    """x.new_zeros(size) etc.: a fresh tensor with x's dtype and device unless told otherwise."""
    def method(self, *size, dtype=None, device=None, requires_grad: bool = False):
        return fn(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False):
    return creation.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad: bool = False):
    return creation.tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                           requires_grad=requires_grad)


def _inplace_from(fn):
    """x.scatter_(...) and friends: compute out of place, then copy into x (recorded as a copy_)."""
    def method(self, *args, **kwargs):
        return self.copy_(fn(self, *args, **kwargs))

    return method


METHODS = {
    "gather": ops.gather, "scatter": ops.scatter, "scatter_add": ops.scatter_add,
    "scatter_": _inplace_from(ops.scatter), "scatter_add_": _inplace_from(ops.scatter_add),
    "index_select": ops.index_select, "tril": ops.tril, "triu": ops.triu,
    "tril_": _inplace_from(ops.tril), "triu_": _inplace_from(ops.triu),
    "sort": ops.sort, "argsort": ops.argsort, "topk": ops.topk, "cumsum": ops.cumsum, "cumprod": ops.cumprod,
    "logsumexp": ops.logsumexp, "norm": ops.norm, "baddbmm": ops.baddbmm, "multinomial": ops.multinomial,
    "new_zeros": _like_factory(creation.zeros), "new_ones": _like_factory(creation.ones),
    "new_empty": _like_factory(creation.empty), "new_full": _new_full, "new_tensor": _new_tensor,
}

for _name, _fn in METHODS.items():
    if not hasattr(Tensor, _name):  # never shadow a method another module already defines
        setattr(Tensor, _name, _fn)
