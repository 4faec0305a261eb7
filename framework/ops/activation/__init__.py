"""Activation functions: softmax family, ReLU family, ELU family, gated, sigmoid family, shrinkage."""
from .softmax_family import implicit_softmax_dim, log_softmax, LogSoftmax, Softmax, softmax, softmin
from .relu_family import (Hardtanh, hardtanh, hardtanh_, HardtanhBackward, HardtanhInplace, Prelu, prelu, PreluBackward,
                          relu6, rrelu, rrelu_, RreluWithNoise, RreluWithNoiseInplace, Threshold, threshold, threshold_,
                          ThresholdInplace)
from .elu_family import Celu, celu, celu_, CeluInplace, Elu, elu, elu_, EluBackward, EluInplace, selu, selu_
from .gated import Glu, glu, Hardswish, hardswish, HardswishInplace, Mish, mish, MishInplace, Silu, silu, SiluInplace
from .sigmoid_family import (Hardsigmoid, hardsigmoid, HardsigmoidBackward, HardsigmoidInplace, LogSigmoid, logsigmoid,
                             Softplus, softplus, SoftplusBackward, softsign)
from .shrink import Hardshrink, hardshrink, HardshrinkBackward, Softshrink, softshrink, SoftshrinkBackward, tanhshrink

__all__ = ['implicit_softmax_dim', 'log_softmax', 'LogSoftmax', 'Softmax', 'softmax', 'softmin', 'Hardtanh',
           'hardtanh', 'hardtanh_', 'HardtanhBackward', 'HardtanhInplace', 'Prelu', 'prelu', 'PreluBackward', 'relu6',
           'rrelu', 'rrelu_', 'RreluWithNoise', 'RreluWithNoiseInplace', 'Threshold', 'threshold', 'threshold_',
           'ThresholdInplace', 'Celu', 'celu', 'celu_', 'CeluInplace', 'Elu', 'elu', 'elu_', 'EluBackward',
           'EluInplace', 'selu', 'selu_', 'Glu', 'glu', 'Hardswish', 'hardswish', 'HardswishInplace', 'Mish', 'mish',
           'MishInplace', 'Silu', 'silu', 'SiluInplace', 'Hardsigmoid', 'hardsigmoid', 'HardsigmoidBackward',
           'HardsigmoidInplace', 'LogSigmoid', 'logsigmoid', 'Softplus', 'softplus', 'SoftplusBackward', 'softsign',
           'Hardshrink', 'hardshrink', 'HardshrinkBackward', 'Softshrink', 'softshrink', 'SoftshrinkBackward',
           'tanhshrink']
