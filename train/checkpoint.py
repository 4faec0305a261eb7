"""Checkpoints that survive crashes: atomic writes (framework.save), keep the newest N, resume from the
newest file that loads (a corrupt or half-written one is skipped with a warning)."""
from __future__ import annotations

import os
import re
import warnings

import framework
from framework.serialization import CheckpointError

_NAME = re.compile(r"^ckpt-(\d{8})\.safetensors$")


class CheckpointManager:
    """Writes ``ckpt-<step>.safetensors`` files into ``directory``."""

    def __init__(self, directory: str, keep: int = 3) -> None:
        self.directory, self.keep = directory, keep
        self.loaded_path: str | None = None  # the file load_latest() read
        os.makedirs(directory, exist_ok=True)
        for name in os.listdir(directory):  # half-written files of a run that was killed mid-save
            if name.startswith(".tmp-ckpt-"):
                os.remove(os.path.join(directory, name))

    def path(self, step: int) -> str:
        return os.path.join(self.directory, f"ckpt-{step:08d}.safetensors")

    def steps(self) -> list[int]:
        """Steps of the checkpoint files present, oldest first."""
        found = []
        for name in os.listdir(self.directory):
            m = _NAME.match(name)
            if m:
                found.append(int(m.group(1)))
        return sorted(found)

    def save(self, state: dict, step: int) -> str:
        path = self.path(step)
        framework.save(state, path)  # temp file + fsync + rename: a crash leaves the old files intact
        for old in self.steps()[:-self.keep]:
            try:
                os.remove(self.path(old))
            except FileNotFoundError:
                pass
        return path

    def load_latest(self) -> dict | None:
        """The newest checkpoint that loads, or None when there is none."""
        for step in reversed(self.steps()):
            try:
                state = framework.load(self.path(step))
                self.loaded_path = self.path(step)
                return state
            except CheckpointError as e:
                warnings.warn(f"skipping unreadable checkpoint: {e}", RuntimeWarning, stacklevel=2)
        return None
