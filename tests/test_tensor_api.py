"""Tensor API and factories, compared with torch where it is installed, plus bad-input errors."""
import numpy as np
import pytest

import framework
from scenario import outcome


@pytest.mark.explicit_device  # the CPU API: memory shared with NumPy, cpu as the default device
def test_metadata_and_conversions():
    t = framework.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert t.shape == (2, 2) and t.size() == (2, 2) and t.size(1) == 2 and t.dim() == 2 and t.ndim == 2
    assert t.numel() == 4 and t.device == "cpu" and t.dtype is framework.float32
    assert t.sum().item() == 10.0 and t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert t.double().dtype is framework.float64 and t.long().dtype is framework.int64
    assert t.to(framework.float64).dtype is framework.double and t.float() is t
    assert t.type() == "framework.FloatTensor" and t.type(framework.DoubleTensor).dtype is framework.float64
    assert framework.FloatTensor([1, 2]).dtype is framework.float32 and framework.LongTensor(2, 3).shape == (2, 3)
    assert t.clone().tolist() == t.tolist() and t.clone()._array is not t._array
    assert repr(t.shape) == "framework.Size([2, 2])"
    assert isinstance(t.numpy(), np.ndarray) and t.numpy() is t._array  # shares memory, as torch's


@pytest.mark.explicit_device  # the CPU API: memory shared with NumPy, cpu as the default device
def test_factories():
    framework.manual_seed(3)
    a = framework.randn(2, 3)
    framework.manual_seed(3)
    b = framework.randn(2, 3)
    assert framework.equal(a, b) and a.dtype is framework.float32
    assert framework.zeros(2, 3).sum().item() == 0 and framework.ones((2, 3)).sum().item() == 6
    assert framework.full((2,), 7).dtype is framework.int64 and framework.full((2,), 7.0).tolist() == [7.0, 7.0]
    assert framework.eye(3).sum().item() == 3 and framework.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert framework.arange(0, 1, 0.25).dtype is framework.float32
    assert framework.linspace(-5, 5, 100).shape == (100,)
    r = framework.randint(1, 5, (2, 3))
    assert r.dtype is framework.int64 and r.min().item() >= 1 and r.max().item() < 5
    assert framework.zeros_like(a).shape == a.shape and framework.ones_like(a, dtype=framework.float64).dtype is \
        framework.float64
    x = framework.zeros(2, requires_grad=True)
    assert x.requires_grad and x.is_leaf
    arr = np.arange(3.0)
    assert framework.from_numpy(arr)._array is arr and framework.as_tensor(arr)._array is arr
    assert framework.tensor(arr)._array is not arr and framework.tensor(arr).dtype is framework.float64


def test_bad_inputs_give_clear_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        framework.ones(2, 3) @ framework.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                                           r"non-singleton dimension 1"):
        framework.ones(2, 3) + framework.ones(2, 4)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float != double"):
        framework.ones(2, 3) @ framework.ones(3, 2, dtype=framework.float64)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        framework.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        framework.tensor([1, 2]).sum().backward()
    with pytest.raises(TypeError, match="can't convert np.ndarray of type complex128"):
        framework.from_numpy(np.zeros(2, dtype=complex))
    with pytest.raises(RuntimeError, match=r"shape '\[5\]' is invalid for input of size 6"):
        framework.ones(2, 3).view(5)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        framework.ones(3)[5]
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        x = framework.ones(3, requires_grad=True)
        (x * 2).backward(framework.ones(2))


def test_api_matches_torch(torch):
    def run(m):
        t = m.arange(12, dtype=m.float32).reshape(3, 4)
        return (tuple(t.shape), t.stride(), t.t().is_contiguous(), t[1].tolist(), t[:, 1].tolist(),
                t.max(dim=1).indices.tolist(), t.argmax().item(), t.mean(dim=0).tolist(), t.std().item(),
                (t > 5).sum().item(), t.flatten(1).shape[1], t.unsqueeze(0).shape[0], m.cat([t, t]).shape[0],
                t.split(2, dim=1)[1].tolist(), t.chunk(3)[2].tolist(), t.var(1, keepdim=True).shape[1],
                str(m.promote_types(m.int64, m.float32)).split(".")[-1], float(t[0, 1]), int(t[2, 3]))

    assert outcome(run, framework) == outcome(run, torch)


@pytest.mark.parametrize("expr", ["np.float32(2.0) * t", "np.float64(2.0) + t", "np.int64(2) * t", "np.float32(2.0) - t",
                                  "np.float64(3) / t", "np.float32(2) ** t", "np.float32(2) > t", "np.float16(1) + t"])
def test_numpy_scalar_on_the_left_gives_a_tensor_with_its_graph_as_torch(expr):
    """numpy defers to the Tensor (__array_priority__), so the result is t.__r*__'s: no silent numpy array."""
    torch = pytest.importorskip("torch")
    results = []
    for m in (framework, torch):
        t = m.tensor([0.5, 1.5, 2.5], requires_grad=True)
        out = eval(expr, {"np": np, "t": t})
        grad_fn = out.grad_fn.name() if out.grad_fn is not None else None
        results.append((type(out).__name__, grad_fn, str(out.dtype).split(".")[-1], out.detach().cpu().numpy().tolist()))
    assert results[0] == results[1]
