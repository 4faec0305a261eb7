"""Instance normalization (torch.nn.modules.instancenorm): InstanceNorm1d/2d/3d."""
from __future__ import annotations

import warnings

from ...tensor import Tensor
from ..functional.normalization import instance_norm
from .batchnorm import _NormBase


class _InstanceNorm(_NormBase):
    """BatchNorm's parameters and buffers, with instance statistics (and no affine, no running stats, by default)."""

    _expected_dims: tuple = ()
    _no_batch_dim: int = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in self._expected_dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._expected_dims)} input (got "
                             f"{input.dim()}D input)")
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features"
                                 f" ({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        if input.dim() == self._no_batch_dim:  # unbatched: normalise it as a batch of one
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                             self.training or not self.track_running_stats,
                             self.momentum if self.momentum is not None else 0.0, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation over (N, C, L) or unbatched (C, L) inputs."""

    _expected_dims, _no_batch_dim = (2, 3), 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation over (N, C, H, W) or unbatched (C, H, W) inputs."""

    _expected_dims, _no_batch_dim = (3, 4), 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation over (N, C, D, H, W) or unbatched (C, D, H, W) inputs."""

    _expected_dims, _no_batch_dim = (4, 5), 4


__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
