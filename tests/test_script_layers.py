"""Layers, ops and optimizers that PyTorch training scripts need (tests/scripts/ exercises them) and framework lacked:
F.instance_norm / InstanceNorm1d/2d, Reflection/ReplicationPad, PixelShuffle (its op rows are in op_table.py),
nn.init.orthogonal_, optim.Adadelta's checks (its trajectories are in test_optim*.py), Tensor device predicates.
Each is compared with torch (values, gradients, grad_fn names, reprs, errors) and gradchecked in float64."""
import warnings

import numpy as np
import pytest

import framework
from framework.autograd import gradcheck
from framework.testing import assert_close

TOL = dict(rtol=1e-10, atol=1e-10)


def _both(fn, *arrays, grad=True):
    """fn(m, *tensors) run with framework and torch on the same float64 arrays: (outputs, input grads) of each."""
    torch = pytest.importorskip("torch")
    results = []
    for m in (framework, torch):
        xs = [m.tensor(a, dtype=m.float64, requires_grad=grad) for a in arrays]
        out = fn(m, *xs)
        if grad:
            out.backward(m.tensor(np.random.default_rng(7).standard_normal(tuple(out.shape))))
        results.append((out, [x.grad for x in xs]))
    return results


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "cpu") else t.detach().numpy()


# ---- instance norm ---------------------------------------------------------------------------------------

def test_instance_norm_values_grads_and_graph_match_torch():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((3, 4, 5, 6)), rng.standard_normal(4), rng.standard_normal(4)
    (out, grads), (t_out, t_grads) = _both(
        lambda m, x, w, b: m.nn.functional.instance_norm(x, weight=w, bias=b, eps=1e-3), x, w, b)
    assert_close(out.detach(), _np(t_out), **TOL)
    for g, tg in zip(grads, t_grads):
        assert_close(g, _np(tg), **TOL)
    names = lambda o: (type(o.grad_fn).__name__, type(o.grad_fn.next_functions[0][0]).__name__)  # noqa: E731
    assert out.grad_fn.name() == "ViewBackward0" == names(t_out)[0]
    assert out.grad_fn.next_functions[0][0].name() == names(t_out)[1] == "NativeBatchNormBackward0"


@pytest.mark.parametrize("affine,track", [(False, False), (True, False), (True, True), (False, True)])
@pytest.mark.parametrize("cls,shape", [("InstanceNorm2d", (2, 3, 4, 5)), ("InstanceNorm2d", (3, 4, 5)),
                                       ("InstanceNorm1d", (2, 3, 7)), ("InstanceNorm1d", (3, 7))])
def test_instance_norm_modules_train_and_eval_match_torch(cls, shape, affine, track):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    ours, theirs = getattr(framework.nn, cls)(3, affine=affine, track_running_stats=track, momentum=0.3), \
        getattr(torch.nn, cls)(3, affine=affine, track_running_stats=track, momentum=0.3)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if affine:
        for p, tp in zip(ours.parameters(), theirs.parameters()):
            a = rng.standard_normal(3).astype(np.float32)
            p.data = framework.tensor(a)
            tp.data = torch.tensor(a)
    for mode in ("train", "train", "eval"):
        getattr(ours, mode)(), getattr(theirs, mode)()
        a = rng.standard_normal(shape).astype(np.float32)
        x, tx = framework.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        y, ty = ours(x), theirs(tx)
        assert_close(y.detach(), ty.detach().numpy(), rtol=1e-5, atol=1e-5)
        (y * y).sum().backward()
        (ty * ty).sum().backward()
        assert_close(x.grad, tx.grad.numpy(), rtol=1e-4, atol=1e-4)
        for k, v in theirs.state_dict().items():
            assert_close(ours.state_dict()[k], v.numpy(), rtol=1e-5, atol=1e-6, check_dtype=False)


def test_instance_norm_gradcheck_float64():
    rng = np.random.default_rng(2)
    x = framework.tensor(rng.standard_normal((2, 3, 2, 3)), requires_grad=True)
    w = framework.tensor(rng.standard_normal(3), requires_grad=True)
    b = framework.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda x, w, b: framework.nn.functional.instance_norm(x, weight=w, bias=b), (x, w, b))


def test_instance_norm_errors_and_warning_match_torch():
    torch = pytest.importorskip("torch")
    cases = [(lambda m: m.nn.InstanceNorm2d(3)(m.zeros(2, 3, 1, 1)), ValueError),
             (lambda m: m.nn.InstanceNorm2d(3, affine=True)(m.zeros(2, 4, 2, 2)), ValueError),
             (lambda m: m.nn.InstanceNorm2d(3)(m.zeros(3, 4)), ValueError),
             (lambda m: m.nn.functional.instance_norm(m.zeros(2, 3, 2), use_input_stats=False), RuntimeError)]
    for fn, cls in cases:
        with pytest.raises(cls) as theirs:
            fn(torch)
        with pytest.raises(cls) as ours:
            fn(framework)
        # (framework.Size where torch says torch.Size)
        assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0].replace("torch.", "framework.")
    for m in (torch, framework):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.nn.InstanceNorm2d(4)(m.ones(2, 3, 2, 2))
        assert [str(w.message) for w in caught] == ["input's size at dim=1 does not match num_features. You can "
                                                    "silence this warning by not passing in num_features, which is "
                                                    "not used because affine=False"]


def test_batch_norm_repr_says_bias_false_without_affine_as_torch():
    torch = pytest.importorskip("torch")
    assert repr(framework.nn.BatchNorm2d(3, affine=False)) == repr(torch.nn.BatchNorm2d(3, affine=False))


# ---- padding layers ------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls,padding,shape", [("ReflectionPad2d", 2, (2, 3, 4, 5)),
                                               ("ReflectionPad2d", (1, 0, 2, 1), (3, 4, 5)),
                                               ("ReplicationPad2d", (2, 1, 0, 3), (1, 2, 3, 3)),
                                               ("ReflectionPad1d", 2, (2, 3, 4)),
                                               ("ReplicationPad1d", (3, 1), (2, 3))])
def test_padding_layers_match_torch(cls, padding, shape):
    torch = pytest.importorskip("torch")
    assert repr(getattr(framework.nn, cls)(padding)) == repr(getattr(torch.nn, cls)(padding))
    a = np.random.default_rng(3).standard_normal(shape)
    (out, (g,)), (t_out, (tg,)) = _both(lambda m, x: getattr(m.nn, cls)(padding)(x), a)
    assert out.grad_fn.name() == type(t_out.grad_fn).__name__
    assert_close(out.detach(), _np(t_out), **TOL)
    assert_close(g, _np(tg), **TOL)
    x = framework.tensor(a, requires_grad=True)
    assert gradcheck(lambda x: getattr(framework.nn, cls)(padding)(x), (x,))


# ---- pixel shuffle ---------------------------------------------------------------------------------------

def test_pixel_shuffle_layers_reprs_and_round_trip():
    torch = pytest.importorskip("torch")
    assert repr(framework.nn.PixelShuffle(3)) == repr(torch.nn.PixelShuffle(3))
    assert repr(framework.nn.PixelUnshuffle(2)) == repr(torch.nn.PixelUnshuffle(2))
    a = np.arange(2 * 18 * 2 * 3, dtype=np.float32).reshape(2, 18, 2, 3)
    y = framework.nn.PixelShuffle(3)(framework.tensor(a))
    np.testing.assert_array_equal(y.cpu().numpy(), torch.nn.PixelShuffle(3)(torch.tensor(a)).numpy())
    np.testing.assert_array_equal(framework.nn.PixelUnshuffle(3)(y).cpu().numpy(), a)


@pytest.mark.parametrize("call", [lambda m: m.nn.functional.pixel_shuffle(m.zeros(1, 8, 2, 2), 3),
                                  lambda m: m.nn.functional.pixel_shuffle(m.zeros(8, 2), 2),
                                  lambda m: m.nn.functional.pixel_shuffle(m.zeros(1, 4, 2, 2), 0),
                                  lambda m: m.nn.functional.pixel_unshuffle(m.zeros(1, 1, 5, 6), 3),
                                  lambda m: m.nn.functional.pixel_unshuffle(m.zeros(1, 1, 6, 5), 3),
                                  lambda m: m.nn.functional.pixel_unshuffle(m.zeros(4, 4), 2),
                                  lambda m: m.nn.functional.pixel_unshuffle(m.zeros(1, 4, 4), -1)])
def test_pixel_shuffle_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(framework)
    assert str(ours.value) == str(theirs.value)


# ---- nn.init.orthogonal_ ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (8, 2, 3, 3), (5, 5)])
def test_orthogonal_init_gives_orthonormal_rows_or_columns_times_gain(shape):
    w = framework.empty(*shape)
    out = framework.nn.init.orthogonal_(w, gain=2.0)
    assert out is w and w._version > 0
    q = w.cpu().numpy().reshape(shape[0], -1).astype(np.float64)
    gram = q @ q.T if q.shape[0] <= q.shape[1] else q.T @ q
    np.testing.assert_allclose(gram, 4.0 * np.eye(gram.shape[0]), atol=1e-5)


def test_orthogonal_init_on_a_parameter_records_nothing_and_refuses_1d():
    torch = pytest.importorskip("torch")
    conv = framework.nn.Conv2d(2, 4, 3)
    framework.nn.init.orthogonal_(conv.weight, framework.nn.init.calculate_gain("relu"))
    assert conv.weight.is_leaf and conv.weight.grad_fn is None
    for m in (torch, framework):
        with pytest.raises(ValueError, match="^Only tensors with 2 or more dimensions are supported$"):
            m.nn.init.orthogonal_(m.zeros(3))


# ---- Adadelta and Tensor predicates ----------------------------------------------------------------------

def test_adadelta_defaults_and_validation_match_torch():
    torch = pytest.importorskip("torch")
    assert framework.optim.Adadelta([framework.nn.Parameter(framework.ones(1))]).defaults == \
        torch.optim.Adadelta([torch.nn.Parameter(torch.ones(1))]).defaults
    for kwargs in (dict(lr=-1.0), dict(rho=1.5), dict(rho=-0.1), dict(eps=-1e-3), dict(weight_decay=-1)):
        with pytest.raises(ValueError) as theirs:
            torch.optim.Adadelta([torch.nn.Parameter(torch.ones(1))], **kwargs)
        with pytest.raises(ValueError) as ours:
            framework.optim.Adadelta([framework.nn.Parameter(framework.ones(1))], **kwargs)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.explicit_device  # CPU tensors, as both libraries make them by default
def test_tensor_device_predicates_and_ndimension_match_torch():
    torch = pytest.importorskip("torch")
    for m in (framework, torch):
        x = m.zeros(2, 3)
        assert (x.ndimension(), x.is_cpu, x.is_xpu, x.is_mps, x.is_meta, x.get_device()) == (2, True, False, False,
                                                                                            False, -1)


# ---- TransformerEncoder's construction warning (word_language_model's TransformerModel) ----------------------

@pytest.mark.parametrize("layer_kwargs,encoder_kwargs", [
    (dict(), dict()), (dict(batch_first=True), dict()), (dict(batch_first=True, norm_first=True), dict()),
    (dict(batch_first=True, activation="gelu"), dict()), (dict(nhead=1, batch_first=True), dict()),
    (dict(batch_first=True, bias=False), dict()), (dict(), dict(enable_nested_tensor=False))])
def test_transformer_encoder_warns_as_torch_when_it_cannot_use_nested_tensors(layer_kwargs, encoder_kwargs):
    torch = pytest.importorskip("torch")
    messages = []
    for m in (torch, framework):
        kwargs = dict(dict(d_model=8, nhead=2, dim_feedforward=16), **layer_kwargs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            encoder = m.nn.TransformerEncoder(m.nn.TransformerEncoderLayer(**kwargs), 2, **encoder_kwargs)
        messages.append(([str(w.message) for w in caught], encoder.use_nested_tensor))
    assert messages[0] == messages[1]


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
def test_transformer_warns_from_its_encoder_as_torch():
    with pytest.warns(UserWarning, match="^enable_nested_tensor is True, but self.use_nested_tensor is False because "
                                         r"encoder_layer.self_attn.batch_first was not True\(use batch_first"):
        framework.nn.Transformer(d_model=8, nhead=2, dim_feedforward=16, num_encoder_layers=1, num_decoder_layers=1)


def test_factories_take_size_as_a_keyword_as_torch():
    torch = pytest.importorskip("torch")
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        for m in (torch, framework):
            assert tuple(getattr(m, name)(size=(2, 3)).shape) == (2, 3)
            assert tuple(getattr(m, name)(size=[4]).shape) == (4,)
        with pytest.raises(TypeError) as theirs:
            getattr(torch, name)(2, size=(3,))
        with pytest.raises(TypeError) as ours:
            getattr(framework, name)(2, size=(3,))
        if name in ("zeros", "ones", "empty"):  # rand/randn: torch lists its overloads instead
            assert str(ours.value) == str(theirs.value)


# ---- Dropout2d on inputs that are not 3-D or 4-D (mnist_rnn's Dropout2d after an LSTM: (N, 64)) -----------

@pytest.mark.parametrize("shape", [(4, 6), (2, 3, 2, 2, 2)])
def test_dropout2d_warns_as_torch_on_other_ranks_and_drops_per_feature(shape):
    torch = pytest.importorskip("torch")
    messages = []
    for m in (torch, framework):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = m.nn.Dropout2d(0.5)(m.ones(*shape, requires_grad=True))
        messages.append([str(w.message) for w in caught])
        assert type(y.grad_fn).__name__ == "MulBackward0" or y.grad_fn.name() == "MulBackward0"
    assert messages[0] == messages[1] and len(messages[0]) == 1
    y = y.detach().cpu().numpy().reshape(shape[0], shape[1], -1)
    assert ((y == 0).all(-1) | (y == 2).all(-1)).all()  # one draw per (sample, feature)


# ---- np.array(tensor) (siamese_network: np.array(targets.clone(), dtype=None, copy=None)) -----------------

@pytest.mark.explicit_device  # numpy() of a CPU tensor
def test_numpy_conversion_protocol_matches_torch():
    torch = pytest.importorskip("torch")
    for m in (torch, framework):
        t = m.tensor([1, 2, 3])
        a = np.array(t.clone(), dtype=None, copy=None)
        assert type(a) is np.ndarray and a.dtype == np.int64 and a.tolist() == [1, 2, 3]
        assert np.asarray(t, dtype=np.float32).dtype == np.float32
        copied = np.array(t, copy=True)
        copied[0] = 7
        assert t.tolist() == [1, 2, 3]
        assert np.asarray(t).tolist() == [1, 2, 3] and float(np.float32(m.tensor(2.5))) == 2.5
        with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad"):
            np.asarray(m.ones(2, requires_grad=True))


# ---- the new layers inside framework.compile (fast_neural_style / super_resolution's training step) ---------

@pytest.mark.explicit_device  # framework.compile replays NumPy steps (as tests/test_compile.py)
def test_script_layers_train_under_compile_bit_for_bit():
    def run(compiled):
        framework.manual_seed(0)
        nn = framework.nn
        model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1),
                              nn.InstanceNorm2d(4, affine=True, track_running_stats=True), nn.ReLU(),
                              nn.ReflectionPad2d(1), nn.Conv2d(4, 4, 3), nn.PixelShuffle(2))
        opt = framework.optim.Adadelta(model.parameters(), lr=1.0)
        rng = np.random.default_rng(0)
        xs = [framework.tensor(rng.standard_normal((4, 1, 6, 6)).astype(np.float32)) for _ in range(3)]

        def step(x):
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
            return loss.detach()
        fn = framework.compile(step) if compiled else step
        losses = [fn(xs[i % 3]).cpu().numpy().copy() for i in range(6)]
        return losses, [v.cpu().numpy().copy() for v in model.state_dict().values()], fn
    eager, e_state, _ = run(False)
    replayed, c_state, fn = run(True)
    assert fn.replays >= 4
    for a, b in zip(eager + e_state, replayed + c_state):
        np.testing.assert_array_equal(a, b)


# ---- torch.device objects and nn.DataParallel (imagenet: `device.type == 'cuda'`, DataParallel(model).cuda()) --

def test_device_objects_have_torchs_type_and_index_and_stay_strings():
    torch = pytest.importorskip("torch")
    for spec, args in [("cpu", ("cpu",)), ("cuda:1", ("cuda:1",)), ("cuda:1", ("cuda", 1))]:
        ours, theirs = framework.device(*args), torch.device(*args)
        assert (ours.type, ours.index) == (theirs.type, theirs.index) and str(ours) == str(theirs) == spec
        assert ours == spec and isinstance(ours, str)  # framework's devices are their names
    assert framework.device("cuda").type == "cuda"
    assert framework.ones(2).to(framework.device("cpu")).device == "cpu"
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda"):
        framework.device("foo")
    accel = framework.accelerator.current_accelerator()
    assert accel is None if not framework.cuda.is_available() else accel.type == "cuda"


@pytest.mark.explicit_device
def test_data_parallel_without_a_gpu_calls_the_module_as_torch():
    torch = pytest.importorskip("torch")
    if framework.cuda.is_available():
        pytest.skip("the CPU path: no GPU visible")
    ours, theirs = framework.nn.DataParallel(framework.nn.Linear(2, 3)), torch.nn.DataParallel(torch.nn.Linear(2, 3))
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict()) == [
        "module.weight", "module.bias"]
    assert ours.device_ids == theirs.device_ids == [] and hasattr(ours, "dim") == hasattr(theirs, "dim")
    assert tuple(ours(framework.ones(4, 2)).shape) == (4, 3)
    for m in (torch, framework):
        with pytest.raises(RuntimeError, match="^device type could not be determined$"):
            m.nn.parallel.data_parallel(m.nn.Linear(2, 2), m.ones(1, 2))


def test_data_parallel_on_one_gpu_moves_module_and_inputs(device):
    if device == "cpu":
        pytest.skip("needs a GPU (or the strict stand-in)")
    lin = framework.nn.Linear(2, 3, device="cpu")
    dp = framework.nn.DataParallel(lin)
    assert dp.device_ids == [0] and dp.output_device == 0 and lin.weight.device == "cuda:0"
    out = dp(framework.ones(4, 2, device="cpu"))
    assert out.device == "cuda:0" and tuple(out.shape) == (4, 3)
    assert framework.nn.parallel.data_parallel(lin, framework.ones(1, 2, device="cpu"), [0]).device == "cuda:0"
    with pytest.raises(NotImplementedError, match="DataParallel over 2 devices is not supported"):
        framework.nn.DataParallel(lin, device_ids=[0, 1])


def test_instance_norm_is_not_a_batch_norm_as_in_torch():
    """Code that freezes batch norms with isinstance(m, _BatchNorm) must leave instance norms alone, as in torch."""
    torch = pytest.importorskip("torch")
    from torch.nn.modules.batchnorm import _BatchNorm as TorchBatchNorm

    from framework.nn.modules.batchnorm import _BatchNorm
    assert isinstance(torch.nn.InstanceNorm2d(3), TorchBatchNorm) is isinstance(framework.nn.InstanceNorm2d(3),
                                                                                 _BatchNorm) is False
    assert isinstance(framework.nn.BatchNorm2d(3), _BatchNorm)
