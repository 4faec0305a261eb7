"""Vision ops: padding, interpolation, grid sampling, pixel and channel shuffles."""
from .padding import ConstantPad, pad, pad_circular
from .interpolation import interpolate
from .interp_weights import (antialias_matrix, cubic_matrix, linear_matrix, nearest_grad_source, nearest_source,
                             selection)
from .grid_sampling import affine_grid, AffineGridGenerator, grid_sample, GridSampler2D
from .shuffle import channel_shuffle, ChannelShuffle, pixel_shuffle, pixel_unshuffle, PixelShuffle, PixelUnshuffle

__all__ = ['ConstantPad', 'pad', 'pad_circular', 'interpolate', 'antialias_matrix', 'cubic_matrix', 'linear_matrix',
           'nearest_grad_source', 'nearest_source', 'selection', 'affine_grid', 'AffineGridGenerator', 'grid_sample',
           'GridSampler2D', 'channel_shuffle', 'ChannelShuffle', 'pixel_shuffle', 'pixel_unshuffle', 'PixelShuffle',
           'PixelUnshuffle']
