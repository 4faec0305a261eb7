"""Model definitions built on framework.nn."""
from .cnn import SmallCNN
from .gan import BNGenerator, ConvDiscriminator, ConvGenerator, Discriminator, Generator
from .mlp import MLP

__all__ = ["MLP", "Generator", "BNGenerator", "Discriminator", "ConvGenerator", "ConvDiscriminator", "SmallCNN"]
