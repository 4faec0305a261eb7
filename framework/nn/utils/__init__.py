"""torch.nn.utils: gradient clipping, parameter <-> vector helpers, parametrizations (spectral_norm, weight_norm,
orthogonal) and the older hook-based spectral_norm and weight_norm."""
from ..modules.module import zero_grads_  # noqa: F401  (Optimizer.zero_grad imports it from here)
from . import parametrizations, parametrize, prune, rnn, stateless  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters  # noqa: F401
from .clip_grad import clip_grad_norm, clip_grads_with_norm_, get_total_norm  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401
