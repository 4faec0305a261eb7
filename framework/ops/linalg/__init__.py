"""Linear algebra: products, norms, factorizations and solvers."""
from .blas import Addmm, addmm, addmm_, AddmmInplace, AddmmScaled, Bmm, bmm, Dot, dot, linear, matmul, Mm, mm, Mv, mv
from .products import (Addbmm, addbmm, addbmm_, Addmv, addmv, addmv_, Addr, addr, addr_, Baddbmm, baddbmm, baddbmm_,
                       block_diag, BlockDiag, Cross, cross, einsum, ger, inner, kron, multi_dot, outer, tensordot, vander, Vdot, vdot)
from .norms import AtenNorm, frobenius_norm, pdist, Pdist, PdistBackward, Cdist, cdist, CdistBackward, Dist, dist, norm, Renorm, renorm, renorm_, RenormInplace, VectorNorm
from .checks import (batch_prefix, check_floating, check_matrix, check_same_dtype, lapack_layout, LinAlgError, lu_infos,
                     lu_zero_pivot, not_positive_definite, singular_error)
from .solve import Cholesky, inv_array, is_vector_rhs, LinalgCholesky, LinalgInv, LinalgMatrixExp, LinalgSolve
from .decompositions import (LinalgEigh, LinalgLstsq, LinalgPinv, LinalgQr, LinalgSvd, pinv_array, pinv_backward,
                             svd_backward)
from .determinant import LinalgDet, LinalgSlogdet
from .householder import geqrf, householder_product, LinalgHouseholderProduct
from .lu_decomposition import (LinalgLu, LinalgLuFactorEx, LinalgLuSolve, lu_backward, lu_error, lu_factor_arrays,
                               lu_solve_lu_grad, lu_unpack, LuUnpack, permutation_array, unpack_arrays)
from .triangular import (cholesky_inverse, cholesky_solve, CholeskyInverse, CholeskySolve, each_matrix, LinalgSolveTriangular, solve_triangular, solve_triangular_array, triangular_solve,
                         TriangularSolve)
from .legacy import (chain_matmul, cholesky, det, inverse, logdet, lu, lu_solve, matrix_exp, matrix_power, pinverse, qr,
                     slogdet, svd)

__all__ = ['Addmm', 'addmm', 'addmm_', 'AddmmInplace', 'AddmmScaled', 'addbmm_', 'addmv_', 'addr_', 'baddbmm_', 'Bmm', 'bmm', 'Dot', 'dot', 'linear', 'matmul', 'Mm', 'mm', 'Mv', 'mv',
           'Addbmm', 'addbmm', 'Addmv', 'addmv', 'Addr', 'addr', 'Baddbmm', 'baddbmm', 'block_diag', 'BlockDiag',
           'Cross', 'cross', 'einsum', 'ger', 'inner', 'kron', 'multi_dot', 'outer', 'tensordot', 'vander', 'Vdot',
           'vdot', 'AtenNorm', 'frobenius_norm', 'pdist', 'Pdist', 'PdistBackward', 'Cdist', 'cdist', 'CdistBackward', 'Dist', 'dist', 'norm', 'Renorm', 'renorm', 'renorm_',
           'RenormInplace', 'VectorNorm', 'batch_prefix', 'check_floating', 'check_matrix', 'check_same_dtype',
           'lapack_layout', 'LinAlgError', 'lu_infos', 'lu_zero_pivot', 'not_positive_definite', 'singular_error',
           'Cholesky', 'inv_array', 'is_vector_rhs', 'LinalgCholesky', 'LinalgDet', 'LinalgInv', 'LinalgMatrixExp',
           'LinalgSlogdet', 'LinalgSolve', 'LinalgEigh', 'LinalgLstsq', 'LinalgPinv', 'LinalgQr', 'LinalgSvd',
           'pinv_array', 'pinv_backward', 'svd_backward', 'geqrf', 'householder_product', 'LinalgHouseholderProduct',
           'LinalgLu', 'LinalgLuFactorEx', 'LinalgLuSolve', 'lu_backward', 'lu_error', 'lu_factor_arrays',
           'lu_solve_lu_grad', 'lu_unpack', 'LuUnpack', 'permutation_array', 'unpack_arrays', 'cholesky_inverse', 'cholesky_solve', 'CholeskyInverse', 'CholeskySolve', 'each_matrix',
           'LinalgSolveTriangular', 'solve_triangular', 'solve_triangular_array', 'triangular_solve',
           'TriangularSolve', 'chain_matmul', 'cholesky', 'det', 'inverse', 'logdet', 'lu', 'lu_solve', 'matrix_exp',
           'matrix_power', 'pinverse', 'qr', 'slogdet', 'svd']
