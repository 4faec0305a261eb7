"""Shape ops: views, in-place views, strides, joining, rearranging, diagonals."""
from .views import (Alias, as_strided_backward, AsStridedGather, AsStridedScatter, broadcast_to, Expand, expand,
                    expand_as, flatten, moveaxis, movedim, normalize_dims_ordered, Permute, permute, ravel, reshape,
                    ReshapeAlias, ReshapeCopy, Squeeze, squeeze, SqueezeAll, SqueezeDims, swapaxes, swapdims, T, t,
                    Transpose, transpose, unflatten, Unsqueeze, unsqueeze, View, view)
from .views_inplace import (as_strided_, AsStridedInplace, Resize, resize_, resize_as_, set_, SetSource, squeeze_,
                            SqueezeAllInplace, SqueezeDimsInplace, SqueezeInplace, swapaxes_, swapdims_, t_, TInplace,
                            transpose_, TransposeInplace, unsqueeze_, UnsqueezeInplace)
from .strided import (as_strided, as_strided_args, AsStrided, new_empty_strided, storage_offset, StorageMap,
                      tensor_unfold, Unfold, UnfoldBackward)
from .joining import (atleast_1d, atleast_2d, atleast_3d, broadcast_tensors, cartesian_prod, Cat, cat, column_stack,
                      combinations, concat, concatenate, dstack, hstack, meshgrid, row_stack, Stack, stack, vstack)
from .rearrange import Flip, flip, fliplr, flipud, Repeat, repeat, Roll, roll, Rot90, rot90, tile
from .diagonals import (diag, diag_embed, DiagEmbed, diagflat, Diagonal, diagonal, DiagonalBackward, DiagonalCopy,
                        fill_diagonal_, Trace, trace, Tril, tril, tril_, tril_indices, TrilInplace, Triu, triu, triu_,
                        triu_indices, TriuInplace)

__all__ = ['Alias', 'as_strided_backward', 'AsStridedGather', 'AsStridedScatter', 'broadcast_to', 'Expand', 'expand',
           'expand_as', 'flatten', 'moveaxis', 'movedim', 'normalize_dims_ordered', 'Permute', 'permute', 'ravel',
           'reshape', 'ReshapeAlias', 'ReshapeCopy', 'Squeeze', 'squeeze', 'SqueezeAll', 'SqueezeDims', 'swapaxes',
           'swapdims', 'T', 't', 'Transpose', 'transpose', 'unflatten', 'Unsqueeze', 'unsqueeze', 'View', 'view',
           'as_strided_', 'AsStridedInplace', 'Resize', 'resize_', 'resize_as_', 'set_', 'SetSource', 'squeeze_',
           'SqueezeAllInplace', 'SqueezeDimsInplace', 'SqueezeInplace', 'swapaxes_', 'swapdims_', 't_', 'TInplace',
           'transpose_', 'TransposeInplace', 'unsqueeze_', 'UnsqueezeInplace', 'as_strided', 'as_strided_args',
           'AsStrided', 'new_empty_strided', 'storage_offset', 'StorageMap', 'tensor_unfold', 'Unfold',
           'UnfoldBackward', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'broadcast_tensors', 'cartesian_prod', 'Cat',
           'cat', 'column_stack', 'combinations', 'concat', 'concatenate', 'dstack', 'hstack', 'meshgrid',
           'row_stack', 'Stack', 'stack', 'vstack', 'Flip', 'flip', 'fliplr', 'flipud', 'Repeat', 'repeat', 'Roll',
           'roll', 'Rot90', 'rot90', 'tile', 'diag', 'diag_embed', 'DiagEmbed', 'diagflat', 'Diagonal', 'diagonal',
           'DiagonalBackward', 'DiagonalCopy', 'fill_diagonal_', 'Trace', 'trace', 'Tril', 'tril', 'tril_',
           'tril_indices', 'TrilInplace', 'Triu', 'triu', 'triu_', 'triu_indices', 'TriuInplace']
