"""Indexing, slicing, gathering and scattering."""
from .subscript import (check_bounds, EmbeddingGrad, getitem, Index, index_put, index_put_, IndexAddGrad, IndexGrad,
                        IndexPut, IndexPutCopy, IndexPutGrad, Select, SelectGrad, setitem, Slice, SliceGrad, Split,
                        SplitWithSizes, Unbind)
from .slicing import (chunk, dsplit, hsplit, narrow, select, split, tensor_split, unbind, unsafe_chunk, unsafe_split,
                      UnsafeSplit, unsafe_split_with_sizes, UnsafeSplitWithSizes, vsplit)
from .gather_scatter import (Gather, gather, index_select, IndexSelect, Scatter, scatter_add, ScatterAdd, ScatterValue,
                             take_along_dim)
from .index_write import (along, check_index_range, index_add, index_add_, index_arg, index_copy, index_copy_,
                          index_fill, index_fill_, IndexAdd, IndexAddInplace, IndexCopy, IndexCopyInplace, IndexFill,
                          IndexFillInplace, IndexFillTensor, IndexFillTensorInplace, masked_scatter, masked_scatter_,
                          MaskedScatter, MaskedScatterInplace, Put, put, put_, PutInplace)
from .scatter_reduction import (index_reduce, index_reduce_, IndexReduce, IndexReduceInplace, scatter, scatter_,
                                scatter_add_, scatter_reduce, scatter_reduce_, scatter_with_reduce, ScatterAddInplace,
                                ScatterInplace, ScatterLegacyReduce, ScatterLegacyReduceInplace, ScatterReduce,
                                ScatterReduceInplace, ScatterValueInplace)
from .scatter_views import diagonal_scatter, DiagonalScatter, select_scatter, SelectScatter, slice_scatter, SliceScatter
from .selection import argwhere, masked_select, MaskedSelect, nonzero, repeat_interleave, Take, take, unravel_index

# the *_copy functions: a view's result as new memory
from .view_copies import (alias_copy, as_strided_copy, detach_copy, DetachCopy, diagonal_copy, expand_copy,
                          narrow_copy, permute_copy, select_copy, slice_copy, split_copy,
                          split_with_sizes_copy, squeeze_copy, t_copy, transpose_copy,
                          unbind_copy, unfold_copy, unsqueeze_copy, view_copy, view_copy_of)

__all__ = ['check_bounds', 'EmbeddingGrad', 'getitem', 'Index', 'index_put', 'index_put_', 'IndexAddGrad',
           'IndexGrad', 'IndexPut', 'IndexPutCopy', 'IndexPutGrad', 'Select', 'SelectGrad', 'setitem', 'Slice',
           'SliceGrad', 'Split', 'SplitWithSizes', 'Unbind', 'chunk', 'dsplit', 'hsplit', 'narrow', 'select', 'split',
           'tensor_split', 'unbind', 'unsafe_chunk', 'UnsafeSplit', 'unsafe_split', 'unsafe_split_with_sizes', 'UnsafeSplitWithSizes', 'vsplit', 'Gather', 'gather', 'index_select',
           'IndexSelect', 'Scatter', 'scatter_add', 'ScatterAdd', 'ScatterValue', 'take_along_dim', 'along',
           'check_index_range', 'index_add', 'index_add_', 'index_arg', 'index_copy', 'index_copy_', 'index_fill',
           'index_fill_', 'IndexAdd', 'IndexAddInplace', 'IndexCopy', 'IndexCopyInplace', 'IndexFill',
           'IndexFillInplace', 'IndexFillTensor', 'IndexFillTensorInplace', 'masked_scatter', 'masked_scatter_',
           'MaskedScatter', 'MaskedScatterInplace', 'Put', 'put', 'put_', 'PutInplace', 'index_reduce',
           'index_reduce_', 'IndexReduce', 'IndexReduceInplace', 'scatter', 'scatter_', 'scatter_add_',
           'scatter_reduce', 'scatter_reduce_', 'scatter_with_reduce', 'ScatterAddInplace', 'ScatterInplace',
           'ScatterLegacyReduce', 'ScatterLegacyReduceInplace', 'ScatterReduce', 'ScatterReduceInplace',
           'ScatterValueInplace', 'diagonal_scatter', 'DiagonalScatter', 'select_scatter', 'SelectScatter',
           'slice_scatter', 'SliceScatter', 'argwhere', 'masked_select', 'MaskedSelect', 'nonzero',
           'repeat_interleave', 'Take', 'take', 'unravel_index',
           'alias_copy', 'as_strided_copy', 'detach_copy', 'DetachCopy', 'diagonal_copy', 'expand_copy',
           'narrow_copy', 'permute_copy', 'select_copy', 'slice_copy', 'split_copy',
           'split_with_sizes_copy', 'squeeze_copy', 't_copy', 'transpose_copy', 'unbind_copy',
           'unfold_copy', 'unsqueeze_copy', 'view_copy', 'view_copy_of']
