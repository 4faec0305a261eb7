"""Model definitions built on framework.nn."""
from .cnn import SmallCNN
from .gan import ConvDiscriminator, ConvGenerator, Discriminator, Generator
from .mlp import MLP

__all__ = ["MLP", "Generator", "Discriminator", "ConvGenerator", "ConvDiscriminator", "SmallCNN"]
