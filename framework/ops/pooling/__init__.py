"""Pooling: 1-d/2-d max, average and adaptive pools; N-d pools and unpooling."""
from .pool2d import (adaptive_avg_pool2d, adaptive_avg_pool3d, AdaptiveAvgPool2D, avg_pool1d, AvgPool2d, max_pool1d,
                     MaxPool2d)
from .pool_nd import (adaptive_max_pool2d, adaptive_max_pool_nd, adaptive_sizes, AdaptiveAvgPool3D, AdaptiveMaxPool3d,
                      AdaptiveMaxPoolNd, avg_pool_nd, AvgPool2dNd, AvgPoolBackward, AvgPoolNd, max_pool_nd,
                      max_unpool_nd, MaxPool3d, MaxPoolNd, MaxUnpool2d, MaxUnpool3d, plane_gather, PlaneScatter,
                      pool_check)

__all__ = ['adaptive_avg_pool2d', 'adaptive_avg_pool3d', 'AdaptiveAvgPool2D', 'avg_pool1d', 'AvgPool2d', 'max_pool1d',
           'MaxPool2d', 'adaptive_max_pool2d', 'adaptive_max_pool_nd', 'adaptive_sizes', 'AdaptiveAvgPool3D',
           'AdaptiveMaxPool3d', 'AdaptiveMaxPoolNd', 'avg_pool_nd', 'AvgPool2dNd', 'AvgPoolBackward', 'AvgPoolNd',
           'max_pool_nd', 'max_unpool_nd', 'MaxPool3d', 'MaxPoolNd', 'MaxUnpool2d', 'MaxUnpool3d', 'plane_gather',
           'PlaneScatter', 'pool_check']
