"""Reductions: sums and means, variance, extrema, order statistics, scans, any/all."""
from .sums import (count_nonzero, Logsumexp, logsumexp, Mean, mean, MeanAll, nanmean, Nansum, nansum, NO_DIM, Prod,
                   prod, ProdAll, Sum, sum, sum_to_size, SumAll)
from .variance import corrcoef, cov, Std, std, std_mean, StdMean, Var, var, var_mean, VarMean
from .extrema import (Amax, amax, Amin, amin, Aminmax, aminmax, aminmax_result, argmax, argmin, evenly_distribute, max,
                      MaxAll, MaxDim, min, MinAll, MinDim, values_and_indices)
from .order_stats import (kthvalue, KthvalueDim, median, MedianAll, MedianDim, mode, ModeDim, nanmedian, NanmedianAll,
                          NanmedianDim, nanquantile, quantile)
from .cumulative import (Cummax, cummax, Cummin, cummin, Cumprod, cumprod, cumprod_, CumprodInplace, Cumsum, cumsum,
                         cumsum_, CumsumInplace, cumulative_trapezoid, diff, Logcumsumexp, logcumsumexp, trapezoid)
from .logical import all, any

__all__ = ['count_nonzero', 'Logsumexp', 'logsumexp', 'Mean', 'mean', 'MeanAll', 'nanmean', 'Nansum', 'nansum',
           'NO_DIM', 'Prod', 'prod', 'ProdAll', 'Sum', 'sum', 'sum_to_size', 'SumAll', 'corrcoef', 'cov', 'Std',
           'std', 'std_mean', 'StdMean', 'Var', 'var', 'var_mean', 'VarMean', 'Amax', 'amax', 'Amin', 'amin',
           'Aminmax', 'aminmax', 'aminmax_result', 'argmax', 'argmin', 'evenly_distribute', 'max', 'MaxAll', 'MaxDim',
           'min', 'MinAll', 'MinDim', 'values_and_indices', 'kthvalue', 'KthvalueDim', 'median', 'MedianAll',
           'MedianDim', 'mode', 'ModeDim', 'nanmedian', 'NanmedianAll', 'NanmedianDim', 'nanquantile', 'quantile',
           'Cummax', 'cummax', 'Cummin', 'cummin', 'Cumprod', 'cumprod', 'cumprod_', 'CumprodInplace', 'Cumsum',
           'cumsum', 'cumsum_', 'CumsumInplace', 'cumulative_trapezoid', 'diff', 'Logcumsumexp', 'logcumsumexp',
           'trapezoid', 'all', 'any']
