"""export(): trace the model once, map each recorded op to ONNX nodes, check the model and write it."""
from __future__ import annotations

import contextlib
import enum
import inspect
import os
import warnings

import numpy as np

from .. import backend
from ..autograd.grad_mode import enable_grad
from ..nn.modules.module import Module
from ..ops.shape import Cat, Stack
from ..ops.conv import Conv1d
from ..ops.normalization import GroupNorm
from ..ops.conv import ConvNd, ConvTransposeNd
from ..ops.indexing import Select, Slice, Split, SplitWithSizes, Unbind
from ..ops.shape import Expand, Permute, ReshapeAlias, ReshapeCopy, Squeeze, SqueezeDims, T, Transpose, Unsqueeze, View
from ..tensor import Tensor
from ._graph import GraphBuilder, UnsupportedOp
from ._modules import MODULE_SYMBOLIC, mapping_for
from . import _symbolic_shapes  # noqa: F401  (registers the shape, indexing and comparison mappings)
from ._symbolic import mapping_of
from ._tracer import tracing

DEFAULT_OPSET = 17  # the first with LayerNormalization; run by every onnxruntime of the last years
MIN_OPSET = 17


class TrainingMode(enum.IntEnum):
    """torch.onnx.TrainingMode: the mode the model is exported in."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """torch.onnx.OperatorExportTypes: only ONNX (standard operators) is produced here."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class OnnxExporterError(RuntimeError):
    """An error of the ONNX exporter (torch.onnx.errors.OnnxExporterError)."""


class UnsupportedOperatorError(OnnxExporterError):
    """A recorded op has no ONNX mapping (torch.onnx.errors.UnsupportedOperatorError)."""


_state = {"exporting": False}


def is_in_onnx_export() -> bool:
    """True while export() runs the model (a forward may take another path for export)."""
    return _state["exporting"]


def _require_onnx():
    try:
        import onnx  # noqa: F401  (optional dependency: the [onnx] extra)
    except ImportError as e:
        raise ImportError("framework.onnx.export needs the `onnx` package: pip install 'framework[onnx]' "
                          "(the [onnx] extra installs onnx and onnxruntime)") from e
    return onnx


def _flatten(value) -> list:
    """Tensors of a (nested) tuple/list/dict, in order; None and other values are left out."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flatten(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _flatten(v)]
    return []


def _with_grad(value, leaves: dict):
    """``value`` with each floating-point Tensor replaced by a detached copy that requires grad (kept in
    ``leaves`` by the original's id): traced so, every value computed from the inputs has a history, so that
    one computed outside a recorded op is caught instead of being frozen into the graph as a constant."""
    if isinstance(value, Tensor):
        if value._array.dtype.kind != "f":
            return value
        if id(value) not in leaves:
            leaves[id(value)] = value.detach().requires_grad_()
        return leaves[id(value)]
    if isinstance(value, (tuple, list)):
        return type(value)(_with_grad(v, leaves) for v in value)
    if isinstance(value, dict):
        return {k: _with_grad(v, leaves) for k, v in value.items()}
    return value


def _flatten_names(value) -> list:
    """Value names (or None) of a mapping's (nested) outputs."""
    if isinstance(value, (tuple, list)):
        return [n for v in value for n in _flatten_names(v)]
    return [value]


def _check_unsupported(options: dict) -> None:
    """NotImplementedError naming an argument of torch.onnx.export that this exporter cannot honour."""
    for name, value, default in [
        ("operator_export_type", options["operator_export_type"], OperatorExportTypes.ONNX),
        ("custom_opsets", options["custom_opsets"] or None, None),
        ("export_modules_as_functions", bool(options["export_modules_as_functions"]), False),
        ("dynamic_shapes", options["dynamic_shapes"], None),
        ("custom_translation_table", options["custom_translation_table"] or None, None),
        ("report", options["report"], False), ("verify", options["verify"], False),
        ("profile", options["profile"], False), ("dump_exported_program", options["dump_exported_program"], False)]:
        if value != default and not (value is None and default is None):
            raise NotImplementedError(f"framework.onnx.export: {name}={value!r} is not supported (the exporter "
                                      f"writes standard ONNX operators from one trace; leave {name} at its default)")


def _axes_names(dynamic_axes) -> dict:
    """{value name: {axis: dim name}}, from torch's list or dict form."""
    out = {}
    for name, axes in (dynamic_axes or {}).items():
        out[name] = dict(axes) if isinstance(axes, dict) else {int(a): f"{name}_dynamic_axes_{i + 1}"
                                                               for i, a in enumerate(axes)}
    return out


def _value_info(onnx, name: str, tensor: Tensor, axes: dict):
    shape = [axes.get(i, s) for i, s in enumerate(tensor._array.shape)]
    return onnx.helper.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(tensor._array.dtype), shape)


@contextlib.contextmanager
def _mode(model, training: TrainingMode):
    """The model in the export's mode for the trace; every module's own mode restored afterwards."""
    saved = [(m, m.training) for m in model.modules()]
    try:
        if training == TrainingMode.EVAL:
            model.eval()
        elif training == TrainingMode.TRAINING:
            model.train()
        yield
    finally:
        for m, was in saved:
            m.training = was


def _input_names(model, n: int, given) -> list:
    names = list(given or [])
    if len(names) > n:
        raise ValueError(f"framework.onnx.export: {len(names)} input_names for {n} input tensors")
    try:
        params = [p for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    defaults = [p.name for p in params] if len(params) >= n else []
    for i in range(len(names), n):
        names.append(defaults[i] if i < len(defaults) and defaults[i] not in names else f"input_{i}")
    return names


_PERMUTING = (Transpose, T, Permute)  # ops that move dims: what a dim holds does not carry over
# ops whose number args are dims, indices or shapes that the mappings handle (or that never hold a batch size)
_SHAPE_TARGETS = (View, ReshapeAlias, ReshapeCopy, Expand, Transpose, Squeeze,
                  SqueezeDims, Unsqueeze, Permute, Select, Slice, Split,
                  SplitWithSizes, Unbind, Cat, Stack, ConvNd,
                  ConvTransposeNd, GroupNorm, Conv1d)


def _warn_shape_numbers(call, sizes: dict) -> None:
    """Warn when an op gets a Python int equal to a dynamic axis's size at export (x * x.size(0), zeros(n, ...)):
    if it came from a shape, the graph keeps that number at every size (reshape and view targets are computed
    from the input's Shape; other numbers cannot be)."""
    if not sizes or not isinstance(call.op, (type, str)) or call.op in _SHAPE_TARGETS:
        return
    for a in call.args:
        if type(a) is int and a in sizes:
            name = call.op if isinstance(call.op, str) else call.op.__name__
            warnings.warn(f"framework.onnx.export: op '{name}' called from {call.module_path} got the number {a}, "
                          f"the size of dynamic axis '{sizes[a]}' at export; if it was computed from a shape, the "
                          f"graph keeps {a} at every size (exporting with another size tells)", stacklevel=3)


def _live(nodes: list, outputs: list) -> list:
    """The nodes that the graph's outputs depend on, in order (a mapping may leave a value unused)."""
    needed, live = set(outputs), []
    for node in reversed(nodes):
        if needed.intersection(node.output):
            live.append(node)
            needed.update(node.input)
    return live[::-1]


def _emit(g: GraphBuilder, call) -> None:
    """Map one recorded call; bind its outputs' tensors to the values the mapping returned."""
    if isinstance(call.op, str):  # a graph-free function (a comparison): recorded by name
        mapping, op_name, node_name = mapping_of(call.op), call.op, "no grad_fn"
    elif isinstance(call.op, type):  # a Function subclass
        mapping, op_name, node_name = mapping_of(call.op), call.op.__name__, call.op._node_cls.__name__
    else:  # a module mapped whole
        mapping, op_name, node_name = mapping_for(call.op), type(call.op).__name__, "module"
    if mapping is None:
        raise UnsupportedOperatorError(f"framework.onnx.export: no ONNX mapping for op '{op_name}' ({node_name}) "
                                       f"called from {call.module_path}")
    poisoned = [g.unusable[n] for n in map(g.name_if_known, _flatten(call.args) + _flatten(call.kwargs))
                if n in g.unusable]
    if poisoned:  # computed from a value with no mapping: an error only if an output of the graph needs it
        for t in _flatten(call.outputs):
            name = g.fresh("unusable")
            g.unusable[name] = poisoned[0]
            g.bind(t, name)
        return
    try:
        names = mapping(g, call)
    except UnsupportedOp as e:
        raise UnsupportedOperatorError(f"framework.onnx.export: op '{op_name}' ({node_name}) called from "
                                       f"{call.module_path} cannot be exported: {e}") from None
    bound = [(t, name) for t, name in zip(_flatten_outputs(call.outputs), _flatten_names(names))
             if isinstance(t, Tensor) and name is not None]
    if g.factors and call.op not in _PERMUTING:
        g.carry_factors([a for a in _flatten(call.args) if isinstance(a, Tensor)], bound)
    for t, name in bound:
        g.bind(t, name)


def _flatten_outputs(outputs) -> list:
    """The outputs flattened as _flatten_names flattens the mapping's names (None kept in place)."""
    if isinstance(outputs, (tuple, list)):
        return [t for v in outputs for t in _flatten_outputs(v)]
    return [outputs]


def export(model, args=(), f=None, *, kwargs: dict | None = None, verbose: bool | None = None,
           input_names=None, output_names=None, opset_version: int | None = None, dynamo: bool = True,
           external_data: bool = True, dynamic_shapes=None, custom_translation_table=None, report: bool = False,
           optimize: bool = True, verify: bool = False, profile: bool = False, dump_exported_program: bool = False,
           artifacts_dir="." , export_params: bool = True, keep_initializers_as_inputs: bool = False,
           dynamic_axes=None, training: TrainingMode = TrainingMode.EVAL,
           operator_export_type: OperatorExportTypes = OperatorExportTypes.ONNX, do_constant_folding: bool = True,
           custom_opsets=None, export_modules_as_functions=False, autograd_inlining: bool = True) -> None:
    """Trace ``model(*args, **kwargs)`` once and write it to ``f`` (a path or a binary file object) as ONNX.

    torch.onnx.export's parameters: both ``dynamo`` values use this one tracer (framework has no dynamo);
    ``do_constant_folding``, ``optimize``, ``external_data`` and ``autograd_inlining`` need nothing here.
    """
    onnx = _require_onnx()
    _check_unsupported(locals())
    if not isinstance(model, Module):
        raise TypeError(f"framework.onnx.export: model must be an nn.Module, not {type(model).__name__}")
    if f is None:
        raise NotImplementedError("framework.onnx.export: f=None (returning an ONNXProgram) is not supported; "
                                  "pass a path or a binary file object")
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    newest = onnx.defs.onnx_opset_version()
    if not MIN_OPSET <= opset <= newest:
        raise ValueError(f"framework.onnx.export: opset_version {opset} is not supported; choose one from "
                         f"{MIN_OPSET} to {newest}")
    args = args if isinstance(args, tuple) else (args,)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):  # torch's convention: a trailing dict holds keyword arguments
        kwargs.update(args[-1])
        args = args[:-1]
    inputs = _flatten(args) + _flatten(kwargs)
    in_names = _input_names(model, len(inputs), input_names)
    axes = _axes_names(dynamic_axes)
    training = TrainingMode(int(training))

    leaves = {}
    args, kwargs = _with_grad(args, leaves), _with_grad(kwargs, leaves)
    inputs = [leaves.get(id(t), t) for t in inputs]
    whole = tuple(MODULE_SYMBOLIC)
    with _mode(model, training), enable_grad(), tracing(model, whole) as trace:
        _state["exporting"] = True
        try:
            result = model(*args, **kwargs)
        finally:
            _state["exporting"] = False
        g = GraphBuilder(onnx, opset, dynamic=bool(axes))
        graph_inputs = []
        for name, t in zip(in_names, inputs):
            g.bind(t, name)
            graph_inputs.append(_value_info(onnx, name, t, axes.get(name, {})))
        seen, params = set(), []
        for name, t in list(model.named_parameters()) + list(model.named_buffers()):
            if t is not None and id(t) not in seen and not g.known(t):
                seen.add(id(t))
                g.bind(t, name)
                params.append((name, t))
        sizes = {t._array.shape[axis]: dim for name, t in zip(in_names, inputs)
                 for axis, dim in axes.get(name, {}).items() if t._array.shape[axis] > 1}
        for call in trace.ops:
            _warn_shape_numbers(call, sizes)
            _emit(g, call)
        outputs = _flatten(result)
        out_names = list(output_names or [])
        out_names += [f"output_{i}" if len(outputs) > 1 else "output" for i in range(len(out_names), len(outputs))]
        graph_outputs = []
        for name, t in zip(out_names, outputs):
            try:
                value = g.name(t)
            except UnsupportedOp as e:
                raise UnsupportedOperatorError(f"framework.onnx.export: output {name!r} cannot be exported: {e}") \
                    from None
            g.nodes.append(onnx.helper.make_node("Identity", [value], [name]))
            graph_outputs.append(_value_info(onnx, name, t, axes.get(name, {})))

    nodes = _live(g.nodes, out_names)
    used = {i for node in nodes for i in node.input}
    initializers = [i for i in g.initializers if i.name in used]
    for name, t in params:
        if name not in used:
            continue
        array = np.array(backend.to_numpy(t._array), order="C")
        if export_params:
            initializers.append(onnx.numpy_helper.from_array(array, name))
            if keep_initializers_as_inputs:
                graph_inputs.append(_value_info(onnx, name, t, {}))
        else:
            graph_inputs.append(_value_info(onnx, name, t, {}))
    graph = onnx.helper.make_graph(nodes, type(model).__name__, graph_inputs, graph_outputs, initializers)
    opsets = [onnx.helper.make_opsetid("", opset)]
    proto = onnx.helper.make_model(graph, opset_imports=opsets, producer_name="framework",
                                   ir_version=onnx.helper.find_min_ir_version_for(opsets))  # (older runtimes read it)
    onnx.checker.check_model(proto)
    if verbose:
        print(onnx.printer.to_text(proto.graph))
    data = proto.SerializeToString()
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(data)
    else:
        f.write(data)
