"""Property test (hypothesis): for random broadcastable shapes, binary ops' gradients have the inputs'
shapes and equal the sums of the upstream gradient over the broadcast dims."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import framework


@settings(max_examples=60, deadline=None)
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4),
       op=st.sampled_from(["add", "sub", "mul"]))
def test_broadcast_gradients(shapes, op):
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    rng = np.random.default_rng(0)
    a0, b0 = rng.standard_normal(sa), rng.standard_normal(sb)
    a = framework.tensor(a0, requires_grad=True)
    b = framework.tensor(b0, requires_grad=True)
    out = {"add": a + b, "sub": a - b, "mul": a * b}[op]
    assert tuple(out.shape) == tuple(out_shape)
    g = rng.standard_normal(out_shape)
    out.backward(framework.tensor(g))
    assert tuple(a.grad.shape) == tuple(sa) and tuple(b.grad.shape) == tuple(sb)
    ga = {"add": g, "sub": g, "mul": g * b0}[op]
    gb = {"add": g, "sub": -g, "mul": g * a0}[op]

    def reduce_to(x, shape):
        x = np.asarray(x)
        while x.ndim > len(shape):
            x = x.sum(0)
        for i, s in enumerate(shape):
            if s == 1 and x.shape[i] != 1:
                x = x.sum(i, keepdims=True)
        return x

    np.testing.assert_allclose(a.grad.cpu().numpy(), reduce_to(np.broadcast_to(ga, out_shape), sa),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.grad.cpu().numpy(), reduce_to(np.broadcast_to(gb, out_shape), sb),
                               rtol=1e-10, atol=1e-12)
