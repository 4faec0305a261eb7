"""The default random generator (numpy PCG64), seeded by framework.manual_seed."""
from __future__ import annotations

import numpy as np

from . import backend, vmap_state


class Generator:
    """A seeded source of random numbers, like torch.Generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.manual_seed(np.random.SeedSequence().entropy % (2 ** 63) if seed is None else seed)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self.np = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> dict:
        """The bit generator's state (a JSON-friendly dict), for checkpoints."""
        return self.np.bit_generator.state

    def set_state(self, state: dict) -> None:
        self.np.bit_generator.state = state


default_generator = Generator(0)


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (and, when cupy is in use, its generator too)."""
    default_generator.manual_seed(seed)
    if backend._cupy is not None:
        backend._cupy.random.seed(seed)
    return default_generator


def seed() -> int:
    s = int(np.random.SeedSequence().entropy % (2 ** 63))
    default_generator.manual_seed(s)
    return s


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> dict:
    return default_generator.get_state()


def set_rng_state(new_state: dict) -> None:
    default_generator.set_state(new_state)


def _gen(generator) -> np.random.Generator:
    """The numpy Generator to draw from (while a step is captured: the recorder's stand-in, which logs each draw)."""
    vmap_state.check_random()
    gen = generator or default_generator
    return gen.np if backend._recorder is None else backend._recorder.generator(gen)
