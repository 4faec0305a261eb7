"""inplace_twin: an out-of-place op's in-place twin (``index_add`` -> ``index_add_``), as torch pairs them."""
from __future__ import annotations

from ..autograd.function import OriginalSelf
from ..memory_layout import copy_preserving_layout
from ._util import check_inplace_cast


def inplace_twin(cls: type, **attrs) -> type:
    """The in-place twin of an out-of-place op: forward computes the result, then writes it into arg 0. What the
    op saved of arg 0 becomes a copy from before the write (torch's original_self, a clone keeping its layout); its
    result, arg 0 itself."""
    def forward(ctx, a, *args):
        out = cls.forward(ctx, a, *args)
        check_inplace_cast(out.dtype, a.dtype)  # atan2_ of an integer tensor: torch refuses the float result
        if ctx._to_save:
            ctx._to_save = tuple(OriginalSelf(copy_preserving_layout(a)) if s is a else a if s is out else s
                                 for s in ctx._to_save)
        a[...] = out
        return a

    return type(f"{cls.__name__}Inplace", (cls,), {
        "node_name": cls.node_name, "inplace": True, "forward": staticmethod(forward), "__module__": cls.__module__,
        "__doc__": f"The in-place twin of {cls.__name__} (writes into arg 0).", **attrs})  # attrs may replace them
