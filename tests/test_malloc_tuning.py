"""backend.keep_freed_memory: an eager training step reuses its freed heap instead of page-faulting it back.

Without it glibc trims the heap top that a step frees at the end of backward, and the next step faults every page
back in (160 minor faults per GAN step on the bench machine, ~10 % of the step).  Counted, not timed."""
import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                                reason="mallopt thresholds are glibc's")

_STEP = r"""
import resource
import framework as torch
import framework.nn as nn
torch.manual_seed(0)
D = nn.Sequential(nn.Linear(2, 128), nn.LeakyReLU(0.2), nn.Linear(128, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))
opt = torch.optim.Adam(D.parameters(), lr=1e-3)
x = torch.randn(256, 2)
def step():
    opt.zero_grad()
    (D(x) ** 2).mean().backward()
    opt.step()
for _ in range(20):
    step()
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(50):
    step()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) / 50, torch.backend.MALLOC_TUNED)
"""


def _faults(tuning: str) -> tuple[float, str]:
    env = dict(os.environ, FRAMEWORK_MALLOC_TUNING=tuning)
    out = subprocess.run([sys.executable, "-c", _STEP], env=env, capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    faults, tuned = out.stdout.split()
    return float(faults), tuned


def test_eager_steps_do_not_fault_their_heap_back_in():
    faults, tuned = _faults("1")
    assert tuned == "True"
    assert faults < 5, f"{faults} minor page faults per step: the freed heap went back to the OS"


def test_the_tuning_can_be_turned_off():
    _, tuned = _faults("0")
    assert tuned == "False"
