"""framework.nn: modules, parameters, layers, losses, init (as torch.nn)."""
from . import attention, functional, init, parallel, utils  # noqa: F401
from .modules.activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .modules.pooling import AvgPool2d, MaxPool2d
from .modules.dropout import Dropout
from .modules.flatten import Flatten
from .modules.container import ModuleDict, ModuleList, Sequential
from .modules.batchnorm import BatchNorm1d, BatchNorm2d
from .modules.conv import Conv2d, ConvTranspose2d
from .modules.sparse import Embedding
from .modules.linear import Identity, Linear
from .modules.normalization import LayerNorm
from .modules.loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .modules.module import Module
from .parameter import Buffer, Parameter
# recurrent, attention and transformer layers, more losses (issue 16)
from .modules.activation import MultiheadAttention  # noqa: E402
from .modules.dropout import Dropout1d, Dropout2d  # noqa: E402
from .modules.loss import CosineEmbeddingLoss, HuberLoss, KLDivLoss, MarginRankingLoss, SmoothL1Loss, TripletMarginLoss
from .modules.distance import CosineSimilarity, PairwiseDistance
from .modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402
from .modules.transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                                  TransformerEncoderLayer)
from .modules.activation import (CELU, ELU, SELU, PReLU, ReLU6, SiLU, Hardsigmoid, Hardswish, Hardtanh, LogSigmoid,
                                 Mish, Softmin, Softplus, Softsign, Tanhshrink)
from .modules.padding import ConstantPad2d, ZeroPad2d
from .modules.flatten import Unflatten
from .modules.container import ParameterDict, ParameterList  # noqa: E402
from .modules.pooling import AdaptiveAvgPool2d, AvgPool1d, MaxPool1d
from .modules.conv import Conv1d
from .modules.normalization import GroupNorm
from .modules.upsampling import Upsample  # noqa: E402
from .modules.pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: E402
from .parallel import DataParallel  # noqa: E402
from .modules.instancenorm import InstanceNorm1d, InstanceNorm2d  # noqa: E402
from .modules.padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad3d,
                              ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                              ReplicationPad3d, ZeroPad1d, ZeroPad3d)
from .modules.pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
                              AdaptiveMaxPool3d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d, MaxPool3d, MaxUnpool1d,
                              MaxUnpool2d, MaxUnpool3d)
from .modules.conv import Conv3d, ConvTranspose1d, ConvTranspose3d  # noqa: E402
from .modules.batchnorm import BatchNorm3d  # noqa: E402
from .modules.instancenorm import InstanceNorm3d  # noqa: E402
from .modules.dropout import AlphaDropout, Dropout3d, FeatureAlphaDropout
from .modules.channelshuffle import ChannelShuffle
from .modules.fold import Fold, Unfold
from .modules.upsampling import UpsamplingBilinear2d, UpsamplingNearest2d
from .modules.activation import GLU, Hardshrink, RReLU, Softmax2d, Softshrink, Threshold
from .modules.linear import Bilinear, LazyLinear
from .modules.sparse import EmbeddingBag
from .modules.normalization import LocalResponseNorm, RMSNorm
from .parameter import UninitializedParameter
from .modules.loss import (GaussianNLLLoss, HingeEmbeddingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
                           MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginWithDistanceLoss)
from .modules.loss import CTCLoss  # noqa: E402
from . import modules  # noqa: E402,F401  (last: torch.nn.modules.* aliases of the names above)
