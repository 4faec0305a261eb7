"""framework.nn: modules, parameters, layers, losses, init (as torch.nn)."""
from . import functional, init, parallel, utils  # noqa: F401
from .activation import (GELU, AvgPool2d, Dropout, Flatten, LeakyReLU, LogSoftmax, MaxPool2d, ReLU, Sigmoid,
                         Softmax, Tanh)
from .container import ModuleDict, ModuleList, Sequential
from .layers import (BatchNorm1d, BatchNorm2d, Conv2d, ConvTranspose2d, Embedding, Identity, LayerNorm, Linear)
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .parameter import Buffer, Parameter
# recurrent, attention and transformer layers, more losses (issue 16)
from .attention import MultiheadAttention  # noqa: E402
from .dropout import Dropout1d, Dropout2d  # noqa: E402
from .losses_more import (CosineEmbeddingLoss, CosineSimilarity, HuberLoss, KLDivLoss, MarginRankingLoss,  # noqa: E402
                          PairwiseDistance, SmoothL1Loss, TripletMarginLoss)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,  # noqa: E402
                          TransformerEncoderLayer)
from .activation_more import (CELU, ELU, SELU, PReLU, ReLU6, SiLU, ConstantPad2d, Hardsigmoid, Hardswish,  # noqa: E402
                              Hardtanh, LogSigmoid, Mish, Softmin, Softplus, Softsign, Tanhshrink, Unflatten,
                              ZeroPad2d)
from .container_more import ParameterDict, ParameterList  # noqa: E402
from .layers_more import (AdaptiveAvgPool2d, AvgPool1d, Conv1d, GroupNorm, MaxPool1d, Upsample)  # noqa: E402
from .pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: E402
from .parallel import DataParallel  # noqa: E402
from .instancenorm import InstanceNorm1d, InstanceNorm2d  # noqa: E402
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad3d,  # noqa: E402
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad3d)
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,  # noqa: E402
                      AdaptiveMaxPool3d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d, MaxPool3d, MaxUnpool1d, MaxUnpool2d,
                      MaxUnpool3d)
from .convolution import Conv3d, ConvTranspose1d, ConvTranspose3d  # noqa: E402
from .layers import BatchNorm3d  # noqa: E402
from .instancenorm import InstanceNorm3d  # noqa: E402
from .layers_misc import (AlphaDropout, ChannelShuffle, Dropout3d, FeatureAlphaDropout, Fold,  # noqa: E402
                          Unfold, UpsamplingBilinear2d, UpsamplingNearest2d)
from .layers_extra import (GLU, Bilinear, EmbeddingBag, Hardshrink, LazyLinear,  # noqa: E402
                           LocalResponseNorm, RMSNorm, RReLU, Softmax2d, Softshrink, Threshold,
                           UninitializedParameter)
from .losses_misc import (GaussianNLLLoss, HingeEmbeddingLoss, MultiLabelMarginLoss,  # noqa: E402
                          MultiLabelSoftMarginLoss, MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss,
                          TripletMarginWithDistanceLoss)
from .losses_ctc import CTCLoss  # noqa: E402
from . import modules  # noqa: E402,F401  (last: torch.nn.modules.* aliases of the names above)
