"""examples/char_rnn.py trains (briefly) with each model kind: the loss falls and the loss plot is written."""
import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load():
    spec = importlib.util.spec_from_file_location("char_rnn", os.path.join(ROOT, "examples", "char_rnn.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["lstm", "gru", "transformer"])
def test_char_model_learns_and_plots(kind, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    char_rnn = _load()
    assert char_rnn.main(["--quick", "--model", kind, "--no-progress", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    first, last = (float(v) for v in out.split(f"{kind}: loss ")[1].split(" after")[0].split(" -> "))
    assert last < first - 0.7  # from about log(vocab) = 4.1 towards character frequencies and beyond
    assert "sample: '" in out
    assert (tmp_path / f"char_{kind}_loss.png").stat().st_size > 1000


def test_text_file_is_shipped_and_small():
    path = os.path.join(ROOT, "examples", "data", "harbour_log.txt")
    size = os.path.getsize(path)
    assert 2000 < size < 20000
    with open(path, encoding="utf-8") as f:
        assert "She went down the forty two steps to meet it" in f.read()
