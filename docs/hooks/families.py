"""The public API by family (the families of framework/ops and framework/nn), with torch's names for each.

Each family lists PyTorch's public names under the namespace where torch has them (the headings of torch's own
reference pages: torch.rst, nn.rst, nn.functional.rst, optim.rst, autograd.rst, data.rst). The site is built from
this table and from the code: ``api_block`` writes a mkdocstrings entry for every name that framework has under
the same public path (``framework.nn.functional.conv2d``, never a private module), and ``coverage_table`` counts,
at build time, which of torch's names framework has. Only public paths appear here, so the pages survive any
re-lay of the files behind them. ``tests/test_docs_site.py`` checks that every name listed exists in torch.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import os


def _names(text: str) -> list[str]:
    return text.split()


# (family key, page title, [(torch namespace, names)]); the namespace's framework twin replaces "torch" by "framework"
FAMILIES: list[tuple[str, str, list[tuple[str, list[str]]]]] = [
    ("creation", "Creation and random sampling", [
        ("torch", _names("""tensor as_tensor asarray from_numpy zeros zeros_like ones ones_like arange range linspace
            logspace eye empty empty_like empty_strided full full_like scalar_tensor heaviside
            manual_seed seed initial_seed get_rng_state set_rng_state bernoulli multinomial normal poisson rand
            rand_like randint randint_like randn randn_like randperm
            hann_window hamming_window blackman_window bartlett_window kaiser_window""")),
    ]),
    ("pointwise", "Pointwise ops", [
        ("torch", _names("""abs absolute acos arccos acosh arccosh add addcdiv addcmul angle asin arcsin asinh arcsinh
            atan arctan atanh arctanh atan2 arctan2 bitwise_not bitwise_and bitwise_or bitwise_xor
            bitwise_left_shift bitwise_right_shift ceil clamp clip clamp_min clamp_max copysign cos cosh deg2rad div
            divide digamma erf erfc erfinv exp exp2 expm1 fix float_power floor floor_divide fmod frac frexp ldexp
            lerp lgamma log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor
            logit hypot i0 igamma igammac mul multiply mvlgamma nan_to_num neg negative nextafter polygamma positive
            pow rad2deg reciprocal remainder round rsqrt sigmoid sign sgn signbit sin sinc sinh sqrt square sub
            subtract tan tanh true_divide trunc xlogy gcd lcm rsub
            eq ne not_equal gt greater ge greater_equal lt less le less_equal maximum minimum fmax fmin isclose
            allclose equal isfinite isinf isposinf isneginf isnan isreal where masked_fill""")),
        ("torch.special", _names("""entr erf erfc erfcx erfinv expit expm1 exp2 gammaln gammainc gammaincc digamma
            psi polygamma multigammaln i0 i0e i1 i1e ndtr ndtri log_ndtr logit xlogy xlog1py zeta sinc round
            log1p log_softmax softmax logsumexp""")),
    ]),
    ("shape", "Shape: views, joining, rearranging, diagonals", [
        ("torch", _names("""reshape t transpose permute squeeze unsqueeze flatten unflatten movedim moveaxis swapaxes
            swapdims ravel adjoint broadcast_to broadcast_tensors broadcast_shapes as_strided cat concat concatenate
            stack hstack vstack dstack column_stack row_stack atleast_1d atleast_2d atleast_3d meshgrid
            cartesian_prod combinations flip fliplr flipud roll rot90 tile diag diagonal diag_embed diagflat
            block_diag tril triu tril_indices triu_indices trace""")),
    ]),
    ("indexing", "Indexing, slicing, gather and scatter", [
        ("torch", _names("""gather scatter scatter_add scatter_reduce index_select index_add index_copy index_fill
            index_reduce index_put masked_select masked_scatter take take_along_dim put narrow narrow_copy select
            unbind split chunk tensor_split hsplit vsplit dsplit nonzero argwhere diagonal_scatter select_scatter
            slice_scatter repeat_interleave unravel_index""")),
    ]),
    ("reduction", "Reductions and cumulative ops", [
        ("torch", _names("""sum nansum prod mean nanmean median nanmedian mode std var std_mean var_mean max min amax
            amin aminmax argmax argmin logsumexp norm quantile nanquantile count_nonzero all any cumsum cumprod
            cummax cummin logcumsumexp kthvalue diff trapezoid cumulative_trapezoid cov corrcoef""")),
    ]),
    ("sorting", "Sorting and searching", [
        ("torch", _names("""sort argsort topk msort searchsorted bucketize histc histogram bincount isin unique
            unique_consecutive""")),
    ]),
    ("linalg", "Linear algebra", [
        ("torch", _names("""matmul mm mv bmm dot vdot inner outer ger addmm addmv addr addbmm baddbmm chain_matmul
            einsum tensordot kron cross cdist dist det logdet slogdet inverse pinverse cholesky cholesky_solve
            cholesky_inverse qr svd lu lu_solve lu_unpack triangular_solve matrix_exp matrix_power geqrf orgqr
            ormqr vander""")),
        ("torch.linalg", _names("""vector_norm matrix_norm norm inv inv_ex det slogdet solve solve_ex cholesky
            cholesky_ex qr eig eigvals eigh eigvalsh svd svdvals pinv matrix_power matrix_exp matrix_rank cross
            multi_dot vecdot lstsq diagonal lu_factor lu_factor_ex lu lu_solve solve_triangular
            householder_product cond tensorinv tensorsolve vander ldl_factor""")),
    ]),
    ("activation", "Activations", [
        ("torch.nn.functional", _names("""relu relu_ relu6 elu elu_ selu celu leaky_relu leaky_relu_ prelu rrelu glu
            gelu logsigmoid hardshrink tanhshrink softsign softplus softmin softmax softshrink gumbel_softmax
            log_softmax tanh sigmoid hardsigmoid silu mish hardtanh hardswish threshold""")),
        ("torch.nn", _names("""ReLU ReLU6 ELU SELU CELU LeakyReLU PReLU RReLU GLU GELU LogSigmoid Hardshrink
            Tanhshrink Softsign Softplus Softmin Softmax Softmax2d LogSoftmax Softshrink Tanh Sigmoid Hardsigmoid
            SiLU Mish Hardtanh Hardswish Threshold MultiheadAttention""")),
    ]),
    ("loss", "Losses", [
        ("torch.nn.functional", _names("""binary_cross_entropy binary_cross_entropy_with_logits poisson_nll_loss
            cosine_embedding_loss cross_entropy ctc_loss gaussian_nll_loss hinge_embedding_loss kl_div l1_loss
            mse_loss margin_ranking_loss multilabel_margin_loss multilabel_soft_margin_loss multi_margin_loss
            nll_loss huber_loss smooth_l1_loss soft_margin_loss triplet_margin_loss
            triplet_margin_with_distance_loss""")),
        ("torch.nn", _names("""L1Loss MSELoss CrossEntropyLoss CTCLoss NLLLoss PoissonNLLLoss GaussianNLLLoss
            KLDivLoss BCELoss BCEWithLogitsLoss MarginRankingLoss HingeEmbeddingLoss MultiLabelMarginLoss HuberLoss
            SmoothL1Loss SoftMarginLoss MultiLabelSoftMarginLoss CosineEmbeddingLoss MultiMarginLoss
            TripletMarginLoss TripletMarginWithDistanceLoss""")),
    ]),
    ("normalization", "Normalization", [
        ("torch.nn.functional", _names("""batch_norm group_norm instance_norm layer_norm local_response_norm rms_norm
            normalize""")),
        ("torch.nn", _names("""BatchNorm1d BatchNorm2d BatchNorm3d GroupNorm SyncBatchNorm InstanceNorm1d
            InstanceNorm2d InstanceNorm3d LayerNorm LocalResponseNorm RMSNorm""")),
    ]),
    ("dropout", "Dropout", [
        ("torch.nn.functional", _names("""dropout alpha_dropout feature_alpha_dropout dropout1d dropout2d
            dropout3d""")),
        ("torch.nn", _names("Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout")),
    ]),
    ("sparse", "Embeddings (sparse layers)", [
        ("torch.nn.functional", _names("embedding embedding_bag one_hot")),
        ("torch.nn", _names("Embedding EmbeddingBag")),
    ]),
    ("pooling", "Pooling", [
        ("torch.nn.functional", _names("""avg_pool1d avg_pool2d avg_pool3d max_pool1d max_pool2d max_pool3d
            max_unpool1d max_unpool2d max_unpool3d lp_pool1d lp_pool2d lp_pool3d adaptive_max_pool1d
            adaptive_max_pool2d adaptive_max_pool3d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d
            fractional_max_pool2d fractional_max_pool3d""")),
        ("torch.nn", _names("""MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d AvgPool1d AvgPool2d
            AvgPool3d FractionalMaxPool2d FractionalMaxPool3d LPPool1d LPPool2d LPPool3d AdaptiveMaxPool1d
            AdaptiveMaxPool2d AdaptiveMaxPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d""")),
    ]),
    ("conv", "Convolution", [
        ("torch.nn.functional", _names("""conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d
            unfold fold""")),
        ("torch.nn", _names("""Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d Unfold Fold""")),
    ]),
    ("vision", "Vision: padding, resampling, shuffles", [
        ("torch.nn.functional", _names("""pad interpolate upsample upsample_nearest upsample_bilinear grid_sample
            affine_grid pixel_shuffle pixel_unshuffle channel_shuffle""")),
        ("torch.nn", _names("""PixelShuffle PixelUnshuffle Upsample UpsamplingNearest2d UpsamplingBilinear2d
            ChannelShuffle ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d
            ReplicationPad3d ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d ConstantPad2d ConstantPad3d CircularPad1d
            CircularPad2d CircularPad3d""")),
    ]),
    ("linear", "Linear layers, attention and distances", [
        ("torch.nn.functional", _names("""linear bilinear scaled_dot_product_attention cosine_similarity
            pairwise_distance pdist""")),
        ("torch.nn", _names("""Identity Linear Bilinear LazyLinear CosineSimilarity PairwiseDistance""")),
    ]),
    ("modules", "Modules, containers, recurrent and transformer layers", [
        ("torch.nn", _names("""Module Parameter Sequential ModuleList ModuleDict ParameterList ParameterDict Flatten
            Unflatten RNN LSTM GRU RNNCell LSTMCell GRUCell Transformer TransformerEncoder TransformerDecoder
            TransformerEncoderLayer TransformerDecoderLayer""")),
        ("torch.nn.utils", _names("""clip_grad_norm_ clip_grad_value_ parameters_to_vector vector_to_parameters
            weight_norm remove_weight_norm spectral_norm remove_spectral_norm""")),
    ]),
    ("optim", "Optimizers and schedules", [
        ("torch.optim", _names("""Optimizer SGD Adam AdamW RMSprop Adagrad Adadelta Adamax NAdam RAdam Rprop ASGD
            LBFGS SparseAdam""")),
        ("torch.optim.lr_scheduler", _names("""LambdaLR MultiplicativeLR StepLR MultiStepLR ConstantLR LinearLR
            ExponentialLR PolynomialLR CosineAnnealingLR ChainedScheduler SequentialLR ReduceLROnPlateau CyclicLR
            OneCycleLR CosineAnnealingWarmRestarts""")),
    ]),
    ("autograd", "Autograd", [
        ("torch", _names("no_grad enable_grad set_grad_enabled is_grad_enabled inference_mode")),
        ("torch.autograd", _names("""backward grad Function gradcheck gradgradcheck set_detect_anomaly detect_anomaly
            Variable""")),
        ("torch.autograd.functional", _names("jacobian hessian vjp jvp hvp vhp")),
        ("torch.autograd.graph", _names("""saved_tensors_hooks save_on_cpu disable_saved_tensors_hooks
            register_multi_grad_hook Node GradientEdge get_gradient_edge increment_version""")),
    ]),
    ("data", "utils.data", [
        ("torch.utils.data", _names("""Dataset IterableDataset TensorDataset StackDataset ConcatDataset ChainDataset
            Subset DataLoader Sampler SequentialSampler RandomSampler SubsetRandomSampler WeightedRandomSampler
            BatchSampler DistributedSampler random_split default_collate default_convert get_worker_info""")),
    ]),
]

# framework's own public names, beside torch's (no torch twin, so not in the coverage table)
EXTRAS = {
    "autograd": ["framework.autograd.explain"],
    "framework": ["framework.viz.to_dot", "framework.viz.make_dot", "framework.viz.save_graph", "framework.compile",
                  "framework.save", "framework.load", "framework.testing.gradcheck"],
}


def family(key: str):
    for fam in FAMILIES:
        if fam[0] == key:
            return fam
    raise KeyError(f"no family {key!r}; families: {[f[0] for f in FAMILIES]}")


def framework_object(torch_namespace: str, name: str):
    """framework's object under torch's public path (torch.nn.functional.conv2d -> framework.nn.functional.conv2d)."""
    module = importlib.import_module("framework" + torch_namespace[len("torch"):])
    return getattr(module, name, None)


def present(torch_namespace: str, names: list[str]) -> tuple[list[str], list[str]]:
    have = [n for n in names if framework_object(torch_namespace, n) is not None]
    return have, [n for n in names if n not in have]


@functools.lru_cache(maxsize=1)
def _static_package():
    """framework as griffe reads it from the source (what mkdocstrings will collect)."""
    import griffe

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return griffe.load("framework", search_paths=[root], allow_inspection=False)


def collectable(path: str) -> bool:
    """Whether mkdocstrings can collect `path` from the source (names bound at import time cannot be)."""
    try:
        obj = _static_package()[path[len("framework."):]]
        if obj.is_alias:
            obj.final_target  # noqa: B018  (raises when the alias leads nowhere)
        return True
    except Exception:  # KeyError, AliasResolutionError, CyclicAliasError: draw it from the live object
        return False


def entry(path: str) -> str:
    """One API entry: mkdocstrings' when it can collect the name, else the live object's signature and docstring."""
    if collectable(path):
        return (f"::: {path}\n    options:\n      heading_level: 3\n      show_root_heading: true\n"
                f"      show_root_full_path: false\n")
    module, _, name = path.rpartition(".")
    obj = getattr(importlib.import_module(module), name)
    try:
        sig = f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        sig = f"{name}(...)"
    doc = inspect.getdoc(obj) or ""
    return f"### `{name}`\n\n```python\n{path.rsplit('.', 1)[0]}.{sig}\n```\n\n{doc}\n"


def api_block(key: str) -> str:
    """Markdown: a mkdocstrings entry for each of the family's names that framework has, by its public path."""
    groups = [] if key in EXTRAS and key not in {f[0] for f in FAMILIES} else family(key)[2]
    out = []
    for ns, names in groups:
        have, missing = present(ns, names)
        fw = "framework" + ns[len("torch"):]
        out.append(f"## `{fw}`\n")
        out.append(f"{len(have)} of the {len(names)} names torch has here"
                   + (f"; not in framework: {', '.join(f'`{n}`' for n in missing)}." if missing else ".") + "\n")
        out.extend(entry(f"{fw}.{n}") for n in have)
    if key in EXTRAS:
        out.append("## framework's own\n")
        out.extend(entry(path) for path in EXTRAS[key])
    return "\n".join(out)


def coverage_table() -> str:
    """Markdown: per family and namespace, how many of torch's names framework has, and which it lacks."""
    rows = ["| family | namespace | torch names | in framework | missing |", "|---|---|---|---|---|"]
    total = have_total = 0
    for key, title, groups in FAMILIES:
        for ns, names in groups:
            have, missing = present(ns, names)
            total += len(names)
            have_total += len(have)
            rows.append(f"| [{title}]({key}.md) | `{ns}` | {len(names)} | {len(have)} | "
                        + (", ".join(f"`{n}`" for n in missing) or "—") + " |")
    rows.append(f"| **all** | | **{total}** | **{have_total}** | |")
    return "\n".join(rows)


def tensor_methods() -> str:
    """Markdown: the public methods and properties of framework.Tensor as imported (bound by the ops families)."""
    import framework

    names = sorted(n for n in dir(framework.Tensor) if not n.startswith("_"))
    dunder = sorted(n for n in dir(framework.Tensor) if n.startswith("__") and n.endswith("__")
                    and n[2:-2] in _OPERATORS)
    return (f"{len(names)} public names: " + ", ".join(f"`{n}`" for n in names)
            + f".\n\nOperators: " + ", ".join(f"`{n}`" for n in dunder) + ".\n")


_OPERATORS = set("""add radd iadd sub rsub isub mul rmul imul truediv rtruediv itruediv floordiv rfloordiv ifloordiv
    mod rmod imod pow rpow ipow matmul rmatmul imatmul neg pos abs invert and rand iand or ror ior xor rxor ixor
    lshift rlshift ilshift rshift rrshift irshift eq ne lt le gt ge getitem setitem len iter bool float int
    index""".split())
