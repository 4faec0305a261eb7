"""Instance normalisation (torch.nn.modules.instancenorm): F.instance_norm and InstanceNorm1d/2d."""
from __future__ import annotations

import warnings

from ..autograd.grad_mode import no_grad
from ..ops import batch_norm as _bn
from ..tensor import Tensor
from .layers import _BatchNorm


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each (sample, channel) over its spatial dims.

    As torch's aten::instance_norm: batch norm over the input viewed as (1, N*C, *spatial), with the
    per-channel weight, bias and running stats repeated N times; the running stats then take the mean of
    their N updated copies.  So the graph is ViewBackward0 <- NativeBatchNormBackward0 <- RepeatBackward0.
    """
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.size()}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = input.shape[0], input.shape[1]
    weight_, bias_, mean_, var_ = (t.repeat(b) if t is not None else None
                                   for t in (weight, bias, running_mean, running_var))
    out = _bn.batch_norm(input.contiguous().view(1, b * c, *input.shape[2:]), mean_, var_, weight_, bias_,
                         use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(mean_.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(var_.view(b, c).mean(0))
    return out.view(input.shape)


class _InstanceNorm(_BatchNorm):
    """BatchNorm's parameters and buffers, with instance statistics (and no affine, no running stats, by default)."""

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
