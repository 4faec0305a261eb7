"""framework.utils.tensorboard: SummaryWriter, as torch.utils.tensorboard (event files for TensorBoard).

The event files are written through the ``tensorboard`` package's own protobufs and event-file writer, so this
subpackage needs it: ``pip install "framework[tensorboard]"``.
"""
try:
    import tensorboard  # noqa: F401  (an optional dependency: the extra [tensorboard])
except ImportError as error:
    raise ImportError('framework.utils.tensorboard needs the tensorboard package, which is not installed: '
                      'pip install "framework[tensorboard]" (or pip install tensorboard)') from error

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "SummaryWriter"]
