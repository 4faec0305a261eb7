"""Every scenario of the seed documents (shared/seeds 000-004), with the outputs and errors they show.

Modern PyTorch wording is used where PyTorch has changed since the documents were written (noted inline).
These tests need no torch: the expected values come from the documents.
"""
import re
import warnings

import pytest

from conftest import on_device

import framework as torch  # the documents' code, unchanged, runs on framework

SECOND_BACKWARD = r"^Trying to backward through the graph a second time \(or directly access saved tensors after they " \
                  r"have already been freed\)\. Saved intermediate values of the graph are freed when you call " \
                  r"\.backward\(\) or autograd\.grad\(\)\. Specify retain_graph=True if you need to backward through " \
                  r"the graph a second time or if you need to access saved tensors after calling backward\."
MODIFIED = r"^one of the variables needed for gradient computation has been modified by an inplace operation: "
LEAF_INPLACE = r"^a leaf Variable that requires grad is being used in an in-place operation\."
VIEW_LEAF_INPLACE = r"^a view of a leaf Variable that requires grad is being used in an in-place operation\."


def _graph():
    a = torch.tensor([[2.0, 1.0]], requires_grad=True)
    b = torch.tensor([[1.0, 1.0]], requires_grad=True)
    c = a * 3
    d = b + 4
    e = c + d
    f = torch.mean(e)
    return a, b, c, d, e, f


# ---- seed 000: leaf tensors --------------------------------------------------------------------------

def test_seed000_test01_is_leaf():
    a, b, c, d, e, f = _graph()
    assert [t.is_leaf for t in (a, b, c, d, e, f)] == [True, True, False, False, False, False]


def test_seed000_test02_grads_and_none_for_non_leaves():
    a, b, c, d, e, f = _graph()
    f.backward()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        grads = [a.grad, b.grad, c.grad, d.grad, e.grad, f.grad]
    assert repr(grads[0]) == on_device("tensor([[1.5000, 1.5000]])")
    assert repr(grads[1]) == on_device("tensor([[0.5000, 0.5000]])")
    assert grads[2:] == [None] * 4
    assert len(w) == 4 and all(issubclass(x.category, UserWarning) for x in w)
    assert str(w[0].message).startswith("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.")


def test_seed000_test02_retain_grad():
    a, b, c, d, e, f = _graph()
    for t in (c, d, e, f):
        t.retain_grad()
    f.backward()
    assert [repr(t.grad) for t in (a, b, c, d, e, f)] == [
        on_device(s) for s in ("tensor([[1.5000, 1.5000]])", "tensor([[0.5000, 0.5000]])", "tensor([[0.5000, 0.5000]])",
                               "tensor([[0.5000, 0.5000]])", "tensor([[0.5000, 0.5000]])", "tensor(1.)")]


def test_seed000_second_backward_raises():
    *_, f = _graph()
    f.backward()
    with pytest.raises(RuntimeError, match=SECOND_BACKWARD):
        f.backward()


def test_seed000_test03_inplace_on_leaf_view():
    a, b, c, d, e, f = _graph()
    with pytest.raises(RuntimeError, match=VIEW_LEAF_INPLACE):
        a[0] = 100
    assert a._version == 0 and a.tolist() == [[2.0, 1.0]]  # refused before writing


def test_seed000_test04_modified_intermediate():
    a = torch.tensor([[2.0, 1.0]], requires_grad=True)
    b = a ** 3
    c = b ** 2
    d = torch.mean(c)
    b[0][0] = 100.0
    # modern torch: "... [torch.FloatTensor [1, 2]], which is output 0 of torch::autograd::CopySlices, ..."
    with pytest.raises(RuntimeError, match=MODIFIED + re.escape(
            "[framework.FloatTensor [1, 2]], which is output 0 of CopySlices, is at version 1; expected version 0 "
            "instead.")):
        d.backward()


# ---- seed 001: backward(gradient=...), dtypes, in-place, .data vs detach ------------------------------

def test_seed001_scalar_backward():
    x = torch.tensor(1.0, requires_grad=True)
    y = x ** 2
    y.backward()
    assert x.grad.item() == 2.0


def test_seed001_nonscalar_needs_gradient():
    x = torch.ones(2, 4, requires_grad=True)
    y = x ** 2
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs"):
        y.backward()
    y.backward(gradient=torch.ones_like(x))
    assert repr(x.grad) == on_device("tensor([[2., 2., 2., 2.],\n        [2., 2., 2., 2.]])")


def test_seed001_weighted_vjp():
    x = torch.tensor([2., 1.], requires_grad=True).view(1, 2)
    y = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    z = torch.mm(x, y)
    assert f"z:{z}" == on_device("z:tensor([[5., 8.]], grad_fn=<MmBackward0>)")  # modern name (was MmBackward)
    z.backward(torch.Tensor([[1., 0]]), retain_graph=True)
    with pytest.warns(UserWarning):
        assert x.grad is None  # x is the view, not a leaf
    assert repr(y.grad) == on_device("tensor([[2., 0.],\n        [1., 0.]])")


def test_seed001_int_to_float_then_grad():
    x = torch.randint(1, 5, (2, 3))
    assert x.dtype == torch.int64
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        x.requires_grad_(True)
    x = x.type_as(torch.FloatTensor(x.shape))
    x.requires_grad_(True)
    y = x ** 2
    y.backward(torch.ones_like(x))
    assert torch.equal(x.grad, 2 * x.detach())


def test_seed001_leaf_inplace_and_init_under_no_grad():
    w = torch.tensor([[1., 1.], [1., 1.]], requires_grad=True)
    with pytest.raises(RuntimeError, match=LEAF_INPLACE):
        w.normal_()
    with torch.no_grad():
        w.normal_()
    assert w.is_leaf and w.requires_grad and w._version == 1


def test_seed001_saved_input_modified():
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    w = torch.tensor([[1., 1.], [1., 1.]], requires_grad=True)
    x2 = x * 1
    d = torch.mm(x2, w)
    x2 -= 1  # mm saved x2 to compute w's gradient
    with pytest.raises(RuntimeError, match=MODIFIED + r".*is at version 1; expected version 0 instead"):
        d.sum().backward()


def test_seed001_data_is_unsafe_detach_is_safe():
    a = torch.tensor([1, 2, 3.], requires_grad=True)
    out = a.sigmoid()
    c = out.data
    c.zero_()  # unnoticed: .data has its own version counter
    assert repr(out) == on_device("tensor([0., 0., 0.], grad_fn=<SigmoidBackward0>)")
    out.sum().backward()
    assert repr(a.grad) == on_device("tensor([0., 0., 0.])")  # silently wrong (the true gradient is not zero)

    a = torch.tensor([1, 2, 3.], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    c.zero_()  # noticed: detach() shares the version counter
    with pytest.raises(RuntimeError, match=MODIFIED + re.escape("[framework.FloatTensor [3]]")):
        out.sum().backward()


def test_seed001_sin_derivative_exercise():
    x = torch.linspace(-5, 5, 100)
    x.requires_grad_(True)
    y = torch.sin(x)
    y.backward(torch.ones_like(x))
    assert torch.allclose(x.grad, torch.cos(x.detach()), atol=1e-6)


# ---- seed 002: leaf/non-leaf, non-leaf grad warning, a += 1 on a leaf ----------------------------------

def test_seed002_leaf_grads_and_warning():
    a = torch.tensor([1., 2, 3], requires_grad=True)
    b = torch.tensor([2., 3, 4])
    c = a * b
    loss = c.sum()
    loss.backward()
    assert repr(a.grad) == on_device("tensor([2., 3., 4.])")
    assert b.grad is None
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
        assert loss.grad is None


def test_seed002_augmented_assignment_on_leaf():
    a = torch.tensor([1, 2., 3], requires_grad=True)
    b = torch.tensor([2, 3, 4.])
    c = a * b
    with pytest.raises(RuntimeError, match=LEAF_INPLACE):
        a += 1
    c.sum().backward()
    assert a.grad.tolist() == [2.0, 3.0, 4.0]


# ---- seed 003: no_grad and the manual SGD update -------------------------------------------------------

def _params():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * torch.tensor([3.0, 4.0])).sum().backward()
    return [w]


def test_seed003_update_without_no_grad_raises():
    params, lr, batch_size = _params(), 0.1, 10
    with pytest.raises(RuntimeError, match=LEAF_INPLACE):
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def test_seed003_rebinding_makes_a_non_leaf():
    params, lr, batch_size = _params(), 0.1, 10
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'zero_'"):
        for param in params:
            param = param - lr * param.grad / batch_size
            assert param.is_leaf is False
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                param.grad.zero_()


def test_seed003_rebinding_under_no_grad():
    params, lr, batch_size = _params(), 0.1, 10
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'zero_'"):
        with torch.no_grad():
            for param in params:
                assert param.requires_grad is True
                param = param - lr * param.grad / batch_size
                assert param.is_leaf is True and param.requires_grad is False
                param.grad.zero_()


def test_seed003_correct_update():
    params, lr, batch_size = _params(), 0.1, 10
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()
    w = params[0]
    assert w.is_leaf and w.requires_grad and w.grad.tolist() == [0.0, 0.0]
    assert torch.allclose(w.detach(), torch.tensor([1.0 - 0.03, 2.0 - 0.04]))


def test_seed003_no_grad_results():
    x = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        y = x * 2
    assert y.requires_grad is False and y.is_leaf and y.grad_fn is None
    assert (x * 2).requires_grad is True


# ---- seed 004: grad_fn names, retain_grad, hooks, _version ---------------------------------------------

def _seed004_graph():
    input = torch.ones([2, 2], requires_grad=False)
    w1 = torch.tensor(2.0, requires_grad=True)
    w2 = torch.tensor(3.0, requires_grad=True)
    w3 = torch.tensor(3.0, requires_grad=True)
    l1 = input * w1
    l2 = l1 + w2
    l3 = l1 * w3
    l4 = l2 * l3
    return w1, w2, w3, l1, l2, l3, l4


def test_seed004_exp_repr():
    a = torch.tensor(2.0, requires_grad=True)
    assert repr(a.exp()) == on_device("tensor(7.3891, grad_fn=<ExpBackward0>)")  # modern name (was ExpBackward)


def test_seed004_data_grad_grad_fn():
    w1, w2, w3, l1, l2, l3, l4 = _seed004_graph()
    loss = l4.mean()
    assert (repr(w1.data), w1.grad, w1.grad_fn) == (on_device("tensor(2.)"), None, None)
    assert repr(l1.data) == on_device("tensor([[2., 2.],\n        [2., 2.]])")
    assert type(l1.grad_fn).__name__ == "MulBackward0" and repr(l1.grad_fn).startswith("<MulBackward0 object at 0x")
    assert repr(loss.data) == on_device("tensor(30.)") and type(loss.grad_fn).__name__ == "MeanBackward0"
    loss.backward()
    assert repr(w1.grad) == on_device("tensor(21.)")


def test_seed004_is_leaf():
    a = torch.ones([2, 2], requires_grad=True)
    assert a.is_leaf
    b = a + 2
    assert not b.is_leaf and b.grad_fn is not None and a.grad_fn is None


def test_seed004_retain_grad():
    *_, l1, l2, l3, l4 = _seed004_graph()
    loss = l4.mean()
    l1.retain_grad()
    l4.retain_grad()
    loss.retain_grad()
    loss.backward()
    assert repr(loss.grad) == on_device("tensor(1.)")
    assert repr(l4.grad) == on_device("tensor([[0.2500, 0.2500],\n        [0.2500, 0.2500]])")
    assert repr(l1.grad) == on_device("tensor([[5.2500, 5.2500],\n        [5.2500, 5.2500]])")


def test_seed004_hooks_order_and_no_grad_kept(capsys):
    *_, l1, l2, l3, l4 = _seed004_graph()
    loss2 = l4.mean()
    l1.register_hook(lambda grad: print("l1 grad:", grad))
    l4.register_hook(lambda grad: print("l4 grad", grad))
    loss2.register_hook(lambda grad: print("loss grad:", grad))
    loss2.backward()
    with pytest.warns(UserWarning):
        print(loss2.grad)
    assert capsys.readouterr().out == (
        on_device("loss grad: tensor(1.)\n"
                  "l4 grad tensor([[0.2500, 0.2500],\n        [0.2500, 0.2500]])\n"
                  "l1 grad: tensor([[5.2500, 5.2500],\n        [5.2500, 5.2500]])\n"
                  "None\n"))


def test_seed004_version_counter_error():
    a = torch.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    assert b._version == 0
    loss = (b * b).mean()
    b[0] = 1000.0
    assert b._version == 1
    # the document (old torch) says "output 0 of AddBackward0"; modern torch names b's current history
    with pytest.raises(RuntimeError, match=MODIFIED + re.escape(
            "[framework.FloatTensor [2]], which is output 0 of CopySlices, is at version 1; expected version 0 "
            "instead.")):
        loss.backward()


def test_seed004_slice_assign_on_leaf():
    a = torch.tensor([10., 5., 2., 3.], requires_grad=True)
    assert repr(a) == on_device("tensor([10.,  5.,  2.,  3.], requires_grad=True)") and a.is_leaf
    # modern torch refuses `a[:] = 0` on such a leaf under grad mode (the document's torch allowed it)
    with pytest.raises(RuntimeError, match=LEAF_INPLACE):
        a[:] = 0
    with torch.no_grad():
        a[:] = 0
    assert repr(a) == on_device("tensor([0., 0., 0., 0.], requires_grad=True)") and a.is_leaf and a._version == 1


def test_seed004_slice_assign_on_non_leaf_rebases_history():
    a = torch.tensor([10., 5., 2., 3.], requires_grad=True)
    b = a * 1
    b[:] = 0
    b.add_(10.)
    assert repr(b) == on_device("tensor([10., 10., 10., 10.], grad_fn=<AddBackward0>)") and not b.is_leaf
    (b * b).mean().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0, 0.0]  # b no longer depends on a
