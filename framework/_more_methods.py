"""Tensor methods for the ops added for real PyTorch scripts (gather, topk, cumsum, new_zeros...)."""
from __future__ import annotations

from . import creation, ops
from .ops.activation_shrink import hardshrink as _hardshrink
from .ops.linalg_householder import geqrf as _geqrf, householder_product as _householder_product
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


METHODS = {
    "gather": ops.gather, "take_along_dim": ops.take_along_dim, "scatter": ops.scatter, "scatter_add": ops.scatter_add,
    "scatter_": ops.scatter_, "scatter_add_": ops.scatter_add_,
    "index_select": ops.index_select, "index_put": ops.index_put, "index_put_": ops.index_put_,
    "tril": ops.tril, "triu": ops.triu,
    "tril_": ops.tril_, "triu_": ops.triu_,
    "sort": ops.sort, "argsort": ops.argsort, "topk": ops.topk, "cumsum": ops.cumsum, "cumprod": ops.cumprod,
    "logsumexp": ops.logsumexp, "norm": ops.norm, "baddbmm": ops.baddbmm, "multinomial": ops.multinomial,
    "new_zeros": _like_factory(creation.zeros), "new_ones": _like_factory(creation.ones),
    "new_empty": _like_factory(creation.empty), "new_full": _new_full, "new_tensor": _new_tensor,
    # more elementwise ops (ops/unary_more.py) and their in-place twins
    "square": ops.square, "square_": ops.square_, "absolute": ops.absolute, "absolute_": ops.absolute_,
    "log1p": ops.log1p, "log1p_": ops.log1p_, "expm1": ops.expm1, "expm1_": ops.expm1_, "log2": ops.log2,
    "log2_": ops.log2_, "log10": ops.log10, "log10_": ops.log10_, "tan": ops.tan, "tan_": ops.tan_,
    "sinh": ops.sinh, "sinh_": ops.sinh_, "cosh": ops.cosh, "cosh_": ops.cosh_, "asin": ops.asin, "asin_": ops.asin_,
    "arcsin": ops.asin, "acos": ops.acos, "acos_": ops.acos_, "arccos": ops.acos, "atan": ops.atan,
    "atan_": ops.atan_, "arctan": ops.atan, "erf": ops.erf, "erf_": ops.erf_, "erfc": ops.erfc,
    "erfc_": ops.erfc_, "floor_": ops.floor_,
    "ceil_": ops.ceil_, "round_": ops.round_, "trunc_": ops.trunc_, "fix": ops.trunc, "fix_": ops.trunc_,
    "frac": ops.frac, "frac_": ops.frac_, "nan_to_num": ops.nan_to_num, "nan_to_num_": ops.nan_to_num_,
    # more shape ops (ops/shape_more.py)
    "flip": ops.flip, "fliplr": ops.fliplr, "flipud": ops.flipud, "roll": ops.roll, "repeat": ops.repeat,
    "tile": ops.tile, "broadcast_to": ops.broadcast_to, "movedim": ops.movedim, "moveaxis": ops.movedim,
    "swapdims": ops.swapdims, "unflatten": ops.unflatten, "diagonal": ops.diagonal, "diag": ops.diag,
    "trace": ops.trace, "outer": ops.outer, "ger": ops.outer,
    # fused pointwise ops and index predicates (ops/pointwise_more.py)
    "addcmul": ops.addcmul, "addcdiv": ops.addcdiv, "lerp": ops.lerp, "addmm": ops.addmm, "nonzero": ops.nonzero,
    "argwhere": ops.argwhere, "count_nonzero": ops.count_nonzero, "isclose": ops.isclose,
    # QR in LAPACK's compact form (ops/linalg_householder.py)
    "geqrf": _geqrf, "orgqr": _householder_product,
    # selection (ops/select_more.py)
    "repeat_interleave": ops.repeat_interleave, "take": ops.take, "masked_select": ops.masked_select, "median": ops.median, "unique": ops.unique,
    "kthvalue": ops.kthvalue, "cummax": ops.cummax, "cummin": ops.cummin,
    "cross": ops.cross, "bernoulli": ops.bernoulli, "as_strided": ops.as_strided, "mode": ops.mode,
    # inverse hyperbolic functions, exp2, logit, erfinv (ops/unary_special.py) and hypot (ops/combine.py)
    "asinh": ops.asinh, "asinh_": ops.asinh_, "arcsinh": ops.asinh, "arcsinh_": ops.asinh_,
    "acosh": ops.acosh, "acosh_": ops.acosh_, "arccosh": ops.acosh, "arccosh_": ops.acosh_,
    "atanh": ops.atanh, "atanh_": ops.atanh_, "arctanh": ops.atanh, "arctanh_": ops.atanh_,
    "exp2": ops.exp2, "exp2_": ops.exp2_, "logit": ops.logit, "logit_": ops.logit_, "erfinv": ops.erfinv,
    "erfinv_": ops.erfinv_, "hypot": ops.hypot, "hypot_": ops.hypot_,
    # index writes (ops/index_ops.py) and their in-place twins
    "index_add": ops.index_add, "index_add_": ops.index_add_, "index_copy": ops.index_copy,
    "index_copy_": ops.index_copy_, "index_fill": ops.index_fill, "index_fill_": ops.index_fill_, "put": ops.put,
    "put_": ops.put_, "masked_scatter": ops.masked_scatter, "masked_scatter_": ops.masked_scatter_,
    "index_reduce": ops.index_reduce, "index_reduce_": ops.index_reduce_, "scatter_reduce": ops.scatter_reduce,
    "scatter_reduce_": ops.scatter_reduce_, "diagonal_scatter": ops.diagonal_scatter,
    "select_scatter": ops.select_scatter, "slice_scatter": ops.slice_scatter,
    # searching and counting (ops/search.py) and shape helpers (ops/stacking.py)
    "bincount": ops.bincount, "histc": ops.histc,
    "unique_consecutive": ops.unique_consecutive, "aminmax": ops.aminmax, "msort": ops.msort,
    "tensor_split": ops.tensor_split, "hsplit": ops.hsplit, "vsplit": ops.vsplit, "dsplit": ops.dsplit,
    "rot90": ops.rot90, "diff": ops.diff,
    # linear algebra (ops/linalg_legacy.py, ops/linalg_products.py)
    "det": ops.det, "logdet": ops.logdet, "slogdet": ops.slogdet, "inverse": ops.inverse, "pinverse": ops.pinverse,
    "cholesky": ops.cholesky, "qr": ops.qr, "svd": ops.svd, "matrix_power": ops.matrix_power,
    "matrix_exp": ops.matrix_exp, "kron": ops.kron, "inner": ops.inner, "addmv": ops.addmv, "addr": ops.addr,
    "addbmm": ops.addbmm, "dist": ops.dist, "diag_embed": ops.diag_embed, "diagflat": ops.diagflat,
    # more maths (ops/pointwise_math.py, ops/reduction_more.py)
    "nansum": ops.nansum, "nanmean": ops.nanmean, "logaddexp": ops.logaddexp, "logaddexp2": ops.logaddexp2,
    "logcumsumexp": ops.logcumsumexp, "heaviside": ops.heaviside, "copysign": ops.copysign, "ldexp": ops.ldexp,
    "frexp": ops.frexp, "quantile": ops.quantile, "nanquantile": ops.nanquantile, "nanmedian": ops.nanmedian,
    "renorm": ops.renorm, "clamp_min": ops.clamp_min, "hardshrink": _hardshrink,
    "copysign_": ops.copysign_, "ldexp_": ops.ldexp_, "clamp_min_": ops.clamp_min_, "renorm_": ops.renorm_,
    # in-place view ops and resizing (ops/views_inplace.py, ops/resize.py)
    "t_": ops.t_, "transpose_": ops.transpose_, "swapdims_": ops.swapdims_, "swapaxes_": ops.swapaxes_,
    "squeeze_": ops.squeeze_, "unsqueeze_": ops.unsqueeze_, "as_strided_": ops.as_strided_,
    "resize_": ops.resize_, "resize_as_": ops.resize_as_, "set_": ops.set_,
    "triangular_solve": ops.triangular_solve, "lu": ops.lu, "lu_solve": ops.lu_solve,
}

for _name, _fn in METHODS.items():
    if not hasattr(Tensor, _name):  # never shadow a method another module already defines
        setattr(Tensor, _name, _fn)
