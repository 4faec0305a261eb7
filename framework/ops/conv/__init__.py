"""Convolutions: 1-d, 2-d, N-d and transposed; im2col (unfold/fold)."""
from .convolution_1d import Conv1d, conv1d
from .convolution_2d import Conv2d, ConvTranspose2d, StringPadding
from .convolution_nd import (conv3d, conv_arrays, conv_nd, conv_transpose1d, conv_transpose3d, conv_transpose_arrays,
                             conv_transpose_nd, ConvNd, ConvTransposeNd)
from .im2col import Col2Im, fold, Im2Col, unfold

__all__ = ['Conv1d', 'conv1d', 'Conv2d', 'ConvTranspose2d', 'StringPadding', 'conv3d', 'conv_arrays', 'conv_nd',
           'conv_transpose1d', 'conv_transpose3d', 'conv_transpose_arrays', 'conv_transpose_nd', 'ConvNd',
           'ConvTransposeNd', 'Col2Im', 'fold', 'Im2Col', 'unfold']
