#!/usr/bin/env python3
"""Turns a KernelBench-format problem file into a bundle Kernel Explorer can import.

    python3 kx_problem_bundle.py PROBLEM.py OUTDIR [--seed S] [--device cpu|cuda] [--max-bytes N]

A problem file defines `class Model(nn.Module)`, `get_inputs()` (the forward inputs) and `get_init_inputs()`
(the arguments of Model's constructor), usually with module-level size constants (batch_size = 16, ...).

Writes to OUTDIR:
  reference.pt  TorchScript module whose forward(*inputs, *parameters) returns the model's outputs; the model's
                own weights are left out of it (they are arguments), so it stays small whatever the model's size
  problem.json  inputs, outputs, shape symbols, shape sets, the ATen op graph (see writeProblem below)

Exit codes: 0 done, 2 the file cannot be loaded or lacks a definition, 3 the model cannot be run or traced,
4 the inputs exceed --max-bytes, 5 PyTorch is missing, 1 anything else. Messages go to stderr.
"""

import argparse
import contextlib
import hashlib
import importlib.util
import inspect
import json
import math
import os
import re
import sys
import traceback
import warnings

EXIT_LOAD, EXIT_TRACE, EXIT_TOO_LARGE, EXIT_NO_TORCH = 2, 3, 4, 5
FORMAT_VERSION = 1


class ProblemError(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def fail(message, code):
    raise ProblemError(message, code)


def firstLine(text):
    """PyTorch's errors run over several lines (CUDA ones end in advice about debugging flags): the first says
    what happened, and the message is read as one line."""
    lines = [line for line in str(text).splitlines() if line.strip()]
    return lines[0] if lines else ""


def whereInFile(path, error):
    """file:line of the deepest frame of error that lies in the problem file."""
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.abspath(frame.filename) == os.path.abspath(path):
            line = frame.lineno
    return "%s:%d" % (path, line) if line else path


def loadProblem(path):
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        fail("cannot read %s: %s" % (path, error.strerror), EXIT_LOAD)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        fail("%s is not UTF-8 text" % path, EXIT_LOAD)
    try:
        compile(text, path, "exec")
    except SyntaxError as error:
        fail("%s:%s: syntax error: %s" % (path, error.lineno or "?", error.msg), EXIT_LOAD)
    spec = importlib.util.spec_from_file_location("kx_problem", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 - any failure of the file itself is the user's to see
        fail("%s: loading the file failed: %s: %s" % (whereInFile(path, error), type(error).__name__, error),
             EXIT_LOAD)
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(module, name):
            fail("%s does not define %s (a KernelBench problem defines Model, get_inputs and get_init_inputs)"
                 % (path, name), EXIT_LOAD)
    return module, data


def sizeConstants(module):
    """Module-level int constants (not bools): the candidates for shape symbols."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and type(value) is int and value > 0}


# Names the generated kernels declare themselves (and C keywords): a tensor is never given one of them.
RESERVED = {"acc", "m", "n", "M", "N", "K", "i", "j", "k", "c", "r", "s", "u", "v", "row", "rows", "cols", "sum",
            "total", "shared", "out_ptr", "value", "first", "vectors", "threads", "base", "result", "apply", "conv",
            "plane", "channels", "epilogue", "float", "int", "long", "double", "const", "return", "if", "for",
            "auto", "char", "short", "signed", "unsigned", "void", "while", "do", "else", "switch", "case",
            "default", "break", "continue", "struct", "union", "enum", "static", "extern", "inline", "bool",
            "true", "false", "size_t"}


def identifier(text, taken):
    name = re.sub(r"[^A-Za-z0-9_]", "_", text) or "t"
    if name[0].isdigit():
        name = "t_" + name
    if name in RESERVED:
        name += "_in"
    base, suffix = name, 1
    while name in taken:
        suffix += 1
        name = "%s_%d" % (base, suffix)
    taken.add(name)
    return name


def dtypeName(dtype):
    return str(dtype).replace("torch.", "")


def plannedInputBytes(torch, module, path):
    """The size of get_inputs()'s tensors without making them (meta device), or None where PyTorch cannot tell."""
    if not hasattr(torch.device("meta"), "__enter__"):
        return None  # PyTorch < 2.0 has no device context
    try:
        with torch.device("meta"):
            values = module.get_inputs()
    except Exception:  # noqa: BLE001 - the real call below reports the file's own errors
        return None
    values = values if isinstance(values, (list, tuple)) else [values]
    return sum(v.numel() * v.element_size() for v in values if isinstance(v, torch.Tensor))


def tooLarge(path, size, maxBytes):
    # kx passes its --max-mb here as --max-bytes: the message names the option its users know.
    fail("%s: the inputs and parameters take %.1f MB, more than the limit of %.1f MB (kx's --max-mb); make the "
         "size constants smaller or raise the limit" % (path, size / 1e6, maxBytes / 1e6), EXIT_TOO_LARGE)


def callProblem(path, function, what):
    try:
        return function()
    except Exception as error:  # noqa: BLE001
        fail("%s: %s raised %s: %s" % (whereInFile(path, error), what, type(error).__name__, error), EXIT_TRACE)


def onDevice(torch, device):
    """Makes new tensors on the device (several GB of inputs are much faster to fill there), where PyTorch can."""
    if device != "cpu" and hasattr(torch.device(device), "__enter__"):
        return torch.device(device)
    return contextlib.nullcontext()


class Problem:
    """The model, its inputs (tensors and baked-in constants) and its parameters, on one device."""

    def __init__(self, torch, module, path, seed, device):
        self.torch, self.module, self.path, self.device = torch, module, path, device
        torch.manual_seed(seed)
        initInputs = callProblem(path, module.get_init_inputs, "get_init_inputs()")
        if not isinstance(initInputs, (list, tuple)):
            initInputs = [initInputs]
        with onDevice(torch, device):
            model = callProblem(path, lambda: module.Model(*initInputs), "Model(*get_init_inputs())")
        if not isinstance(model, torch.nn.Module):
            fail("%s: Model is not a torch.nn.Module" % path, EXIT_LOAD)
        self.model = model.to(device).eval()
        self.parameterNames = [key for key, _ in self.model.named_parameters()] + \
                              [key for key, _ in self.model.named_buffers()]
        self.parameters = [value.detach() for _, value in self.model.named_parameters()] + \
                          [value.detach() for _, value in self.model.named_buffers()]
        self.seed = seed
        self.takeInputs()

    def takeInputs(self):
        torch = self.torch
        torch.manual_seed(self.seed + 1)
        with onDevice(torch, self.device):
            values = callProblem(self.path, self.module.get_inputs, "get_inputs()")
        if not isinstance(values, (list, tuple)):
            values = [values]
        self.callTemplate = []          # per forward argument: ("tensor", index) or ("constant", value)
        self.tensors = []
        for value in values:
            if isinstance(value, torch.Tensor):
                self.callTemplate.append(("tensor", len(self.tensors)))
                self.tensors.append(value.to(self.device))
            elif isinstance(value, (bool, int, float)) or value is None:
                self.callTemplate.append(("constant", value))
            else:
                fail("%s: get_inputs() returns a %s: only tensors, ints, floats and bools are supported"
                     % (self.path, type(value).__name__), EXIT_LOAD)

    def arguments(self, tensors):
        return [tensors[slot] if kind == "tensor" else slot for kind, slot in self.callTemplate]

    def eager(self):
        with self.torch.no_grad():
            return callProblem(self.path, lambda: self.model(*self.arguments(self.tensors)), "Model.forward")


def reparametrized(torch):
    """A context manager that runs a module with given parameter and buffer tensors (traceable)."""
    from torch.nn.utils import stateless
    if hasattr(stateless, "_reparametrize_module"):
        return stateless._reparametrize_module
    return None


def declaredShape(shape):
    """A parameter's shape as the op declares it: without size-1 dimensions (a [C, 1, 1] bias is [C])."""
    kept = [d for d in shape if d != 1]
    return kept or [1]


def makeReference(problem):
    torch = problem.torch
    swap = reparametrized(torch)
    names, template, tensorCount = list(problem.parameterNames), list(problem.callTemplate), len(problem.tensors)
    shapes = [list(p.shape) for p in problem.parameters]
    reshapes = [declaredShape(shape) != shape for shape in shapes]

    class Reference(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, *args):
            tensors = args[:tensorCount]
            params = [p.reshape(shape) if reshape else p for p, shape, reshape in zip(args[tensorCount:], shapes, reshapes)]
            call = [tensors[slot] if kind == "tensor" else slot for kind, slot in template]
            if swap is not None:
                with swap(self.model, dict(zip(names, params))):
                    return self.model(*call)
            return torch.func.functional_call(self.model, dict(zip(names, params)), tuple(call))

    return Reference(problem.model)


def flatOutputs(torch, result, path):
    items = list(result) if isinstance(result, (list, tuple)) else [result]
    for item in items:
        if not isinstance(item, torch.Tensor):
            fail("%s: Model.forward returns a %s: only tensors (or tuples of tensors) are supported"
                 % (path, type(item).__name__), EXIT_TRACE)
    return items


def declaredParameters(problem):
    return tuple(p.reshape(declaredShape(list(p.shape))) for p in problem.parameters)


def orderParametersByUse(problem, traced):
    """Puts the parameters in the order the forward first uses them (x, weight, bias rather than bias first)."""
    graph = traced.inlined_graph
    graphInputs = list(graph.inputs())[1 + len(problem.tensors):]
    firstUse, alias = {}, {}
    for position, node in enumerate(graph.nodes()):
        if node.kind() in ("aten::reshape", "aten::view"):
            # The reshape back to the model's own shape is not a use: its result's first use is.
            source = next(iter(node.inputs())).debugName()
            alias[next(iter(node.outputs())).debugName()] = alias.get(source, source)
            continue
        for value in node.inputs():
            name = value.debugName()
            firstUse.setdefault(alias.get(name, name), position)
    order = sorted(range(len(graphInputs)), key=lambda i: (firstUse.get(graphInputs[i].debugName(), 1 << 30), i))
    problem.parameterNames = [problem.parameterNames[i] for i in order]
    problem.parameters = [problem.parameters[i] for i in order]
    return order != list(range(len(order)))


def trace(problem):
    traced = traceOnce(problem)
    if orderParametersByUse(problem, traced):
        traced = traceOnce(problem)
    return traced


def traceOnce(problem):
    torch = problem.torch
    reference = makeReference(problem)
    args = tuple(problem.tensors) + declaredParameters(problem)
    try:
        with torch.no_grad():
            traced = torch.jit.trace(reference, args, check_trace=False)
    except ProblemError:
        raise
    except Exception as error:  # noqa: BLE001
        fail("%s: tracing Model.forward failed: %s: %s" % (whereInFile(problem.path, error), type(error).__name__,
                                                           str(error).strip().splitlines()[0] if str(error) else ""),
             EXIT_TRACE)
    return traced


def closeEnough(torch, expected, actual):
    if len(expected) != len(actual):
        return False
    for e, a in zip(expected, actual):
        if e.shape != a.shape or e.dtype != a.dtype:
            return False
        if e.is_floating_point():
            if not torch.allclose(e, a, atol=1e-4, rtol=1e-4, equal_nan=True):
                return False
        elif not torch.equal(e, a):
            return False
    return True


def withoutOwnWeights(torch, problem, traced, expected):
    """Empties the traced module's copies of the model's parameters and buffers: the forward takes them as
    arguments, so the saved module (kept in the archive, sent with every evaluation) need not hold them.
    Kept as they are if the module turns out to read them after all."""
    own = list(traced.parameters()) + list(traced.buffers())
    kept = [t.data for t in own]
    for tensor in own:
        tensor.data = torch.empty(0, dtype=tensor.dtype, device=tensor.device)
    try:
        with torch.no_grad():
            actual = flatOutputs(torch, traced(*(tuple(problem.tensors) + declaredParameters(problem))), problem.path)
        if closeEnough(torch, expected, actual):
            return
    except Exception:  # noqa: BLE001 - an empty weight was read: keep them
        pass
    for tensor, data in zip(own, kept):
        tensor.data = data


def symbolic(shape, symbols):
    return [symbols.get(int(d), str(int(d))) for d in shape]


def symbolTable(constants):
    """value -> constant name, for values exactly one constant has."""
    byValue = {}
    for name, value in constants.items():
        byValue.setdefault(value, []).append(name)
    return {value: names[0] for value, names in byValue.items() if len(names) == 1}


BATCH_LIKE = re.compile(r"^(batch|batch_size|batchsize|bs|b|n|num_batches|batch_dim)$", re.IGNORECASE)


def secondShapeSet(problem, traced, symbols, firstSet, specs):
    """Halves the batch-like constants, re-runs the model and checks the traced module at those shapes."""
    torch, module = problem.torch, problem.module
    batchNames = [name for name in firstSet if BATCH_LIKE.match(name) and firstSet[name] >= 2]
    if not batchNames:
        return None, "no batch-like size constant", None
    saved = {name: getattr(module, name) for name in batchNames}
    firstInputs = (problem.tensors, problem.callTemplate)
    try:
        for name in batchNames:
            setattr(module, name, saved[name] // 2)
        shapes = dict(firstSet)
        shapes.update({name: saved[name] // 2 for name in batchNames})
        problem.takeInputs()
        expected = flatOutputs(torch, problem.eager(), problem.path)
        with torch.no_grad():
            actual = traced(*(tuple(problem.tensors) + declaredParameters(problem)))
        actual = flatOutputs(torch, actual, problem.path)
        if not closeEnough(torch, expected, actual):
            return None, "the traced module disagrees with the model at the halved batch size", None
        # The shapes must follow the symbols: a dimension that did not scale is not what its name says.
        for spec, tensor in zip(specs, list(problem.tensors) + list(declaredParameters(problem)) + expected):
            want = [shapes[d] if d in shapes else int(d) for d in spec["shape"]]
            if want != list(tensor.shape):
                why = "%s has shape %s at the halved batch size, not %s" % (spec["name"], list(tensor.shape), want)
                return None, why, None
        return shapes, None, graphShapes(torch, problem, traceOnce(problem))
    except ProblemError as error:
        return None, str(error), None
    except Exception as error:  # noqa: BLE001
        return None, "%s: %s" % (type(error).__name__, error), None
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
        problem.tensors, problem.callTemplate = firstInputs


def jsonSafe(value):
    """JSON has no infinities or NaN (a causal mask filled with float('-inf'), say): such floats are written as
    {"nonFinite": "inf" | "-inf" | "nan"}, which BundleReader turns back into numbers."""
    if isinstance(value, float) and not math.isfinite(value):
        return {"nonFinite": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, (list, tuple)):
        return [jsonSafe(item) for item in value]
    if isinstance(value, dict):
        return {key: jsonSafe(item) for key, item in value.items()}
    return value


def constantValue(torch, value):
    """The Python value of a graph constant (lists resolved), or None when it is not a constant."""
    node = value.node()
    if node.kind() == "prim::Constant":
        try:
            v = value.toIValue()
        except Exception:  # noqa: BLE001
            return None
        if isinstance(v, torch.Tensor):
            return v.item() if v.numel() == 1 else None
        if isinstance(v, (bool, int, float, str)) or v is None:
            return v
        if isinstance(v, (list, tuple)):
            return list(v)
        return str(v)
    if node.kind() == "prim::ListConstruct":
        # A list of computed tensors (aten::cat's) names them, as a call's tensor arguments are named.
        return [{"value": i.debugName()} if i.type().kind() == "TensorType" and i.node().kind() != "prim::Constant"
                else constantValue(torch, i) for i in node.inputs()]
    return None


def tensorInfo(value):
    try:
        sizes = value.type().sizes()
    except Exception:  # noqa: BLE001
        sizes = None
    try:
        scalar = value.type().scalarType()
    except Exception:  # noqa: BLE001
        scalar = None
    info = {"value": value.debugName()}
    if sizes is not None:
        info["shape"] = [int(s) for s in sizes]
    if scalar:
        info["dtype"] = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16",
                         "Long": "int64", "Int": "int32", "Bool": "bool"}.get(scalar, scalar.lower())
    return info


def graphShapes(torch, problem, traced):
    """Per call of the traced forward (in opGraph's order), the shapes of its tensor outputs."""
    return [{"kind": node["kind"], "shapes": [out.get("shape") for out in node["outputs"]]}
            for node in opGraph(torch, traced, [])["nodes"]]


def opGraph(torch, traced, inputNames):
    """The ATen calls of the traced forward, in order, with their tensor and scalar arguments."""
    graph = traced.inlined_graph
    graphInputs = list(graph.inputs())[1:]  # the first is the module itself
    nodes = []
    for node in graph.nodes():
        kind = node.kind()
        if kind in ("prim::Constant", "prim::GetAttr", "prim::ListConstruct"):
            continue
        entry = {"kind": kind, "inputs": [], "outputs": []}
        try:
            schema = str(node.schema())  # "aten::min.dim(Tensor self, ...) -> ..."
        except Exception:  # noqa: BLE001 - prim:: and other calls without a schema
            schema = ""
        name = schema.split("(", 1)[0]
        if name.startswith(kind + "."):
            entry["overload"] = name[len(kind) + 1:]
        for value in node.inputs():
            if value.type().kind() == "TensorType" and value.node().kind() != "prim::Constant":
                entry["inputs"].append(tensorInfo(value))
            else:
                entry["inputs"].append({"const": constantValue(torch, value)})
        for value in node.outputs():
            if value.type().kind() == "TensorType":
                entry["outputs"].append(tensorInfo(value))
            else:
                entry["outputs"].append({"value": value.debugName(), "type": str(value.type())})
        nodes.append(entry)
    return {
        "inputs": [{"value": v.debugName(), "name": name} for v, name in zip(graphInputs, inputNames)],
        "outputs": [v.debugName() for v in outputValues(graph)],
        "nodes": nodes,
    }


def outputValues(graph):
    result = graph.return_node().inputs()
    values = list(result)
    if len(values) == 1 and values[0].node().kind() == "prim::TupleConstruct":
        return list(values[0].node().inputs())
    return values


def forwardNames(problem):
    try:
        names = [p.name for p in inspect.signature(problem.model.forward).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    result = []
    for position, (kind, slot) in enumerate(problem.callTemplate):
        if kind == "tensor":
            result.append(names[position] if position < len(names) else "in%d" % slot)
    return result


def writeProblem(torch, problem, data, outdir, maxBytes):
    path = problem.path
    inputBytes = sum(t.numel() * t.element_size() for t in problem.tensors + problem.parameters)
    if maxBytes and inputBytes > maxBytes:
        tooLarge(path, inputBytes, maxBytes)
    expected = flatOutputs(torch, problem.eager(), path)
    traced = trace(problem)
    with torch.no_grad():
        actual = flatOutputs(torch, traced(*(tuple(problem.tensors) + declaredParameters(problem))), path)
    if not closeEnough(torch, expected, actual):
        fail("%s: the traced module does not reproduce Model.forward (data-dependent control flow?)" % path,
             EXIT_TRACE)

    constants = sizeConstants(problem.module)
    table = symbolTable(constants)
    taken = set()
    specs = []
    for name, tensor in zip(forwardNames(problem), problem.tensors):
        specs.append({"name": identifier(name, taken), "shape": symbolic(tensor.shape, table),
                      "dtype": dtypeName(tensor.dtype), "kind": "input"})
    for key, tensor in zip(problem.parameterNames, problem.parameters):
        specs.append({"name": identifier(key.replace(".", "_"), taken),
                      "shape": symbolic(declaredShape(list(tensor.shape)), table),
                      "dtype": dtypeName(tensor.dtype), "kind": "parameter", "key": key})
    outputs = []
    for index, tensor in enumerate(expected):
        outputs.append({"name": identifier("out" if len(expected) == 1 else "out%d" % index, taken),
                        "shape": symbolic(tensor.shape, table), "dtype": dtypeName(tensor.dtype)})

    used = {d for spec in specs + outputs for d in spec["shape"] if not d.isdigit()}
    firstSet = {name: constants[name] for name in sorted(used)}
    shapeSets = [firstSet]
    second, why, secondShapes = secondShapeSet(problem, traced, table, firstSet, specs + outputs)
    notes = []
    if second:
        shapeSets.append(second)
    else:
        notes.append("one shape set only: " + why)
    constantsUsed = [{"position": i, "value": slot} for i, (kind, slot) in enumerate(problem.callTemplate)
                     if kind == "constant"]
    if constantsUsed:
        notes.append("non-tensor inputs baked into the reference as constants: "
                     + ", ".join("argument %d = %r" % (c["position"], c["value"]) for c in constantsUsed))

    os.makedirs(outdir, exist_ok=True)
    withoutOwnWeights(torch, problem, traced, expected)
    torch.jit.save(traced, os.path.join(outdir, "reference.pt"))
    problem_json = {
        "format": FORMAT_VERSION,
        "file": os.path.basename(path),
        "sha256": hashlib.sha256(data).hexdigest(),
        "torch": torch.__version__,
        "seed": problem.seed,
        "inputs": specs,
        "outputs": outputs,
        "constants": constants,
        "bakedConstants": constantsUsed,
        "shapeSets": shapeSets,
        "notes": notes,
        "graph": opGraph(torch, traced, [spec["name"] for spec in specs]),
        # The same calls at the second shape set: how each intermediate's dimensions follow the size constants.
        "secondShapes": secondShapes or [],
    }
    with open(os.path.join(outdir, "problem.json"), "w", encoding="utf-8") as handle:
        json.dump(jsonSafe(problem_json), handle, indent=1, allow_nan=False)
        handle.write("\n")


def main(argv):
    parser = argparse.ArgumentParser(description="Bundle a KernelBench-format problem file for Kernel Explorer.")
    parser.add_argument("problem")
    parser.add_argument("outdir")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--max-bytes", type=int, default=2 * 1024 ** 3,
                        help="largest total size of inputs and parameters (0: no limit)")
    args = parser.parse_args(argv)
    try:
        import torch  # noqa: F401 - imported late so that a missing PyTorch gets its own exit code
    except ImportError:
        sys.stderr.write("PyTorch is not installed for %s: install python3-torch, or PyTorch with pip\n"
                         % sys.executable)
        return EXIT_NO_TORCH
    # Full fp32: a traced convolution keeps the TF32 switch as an argument, and the reference must not round.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    # Tracing warns about Python values it bakes in; the check against eager mode below is what counts.
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    try:
        module, data = loadProblem(args.problem)
        if args.device == "cuda" and not torch.cuda.is_available():
            fail("--device cuda: this PyTorch sees no CUDA device", EXIT_TRACE)
        planned = plannedInputBytes(torch, module, args.problem)
        if args.max_bytes and planned is not None and planned > args.max_bytes:
            tooLarge(args.problem, planned, args.max_bytes)
        problem = Problem(torch, module, args.problem, args.seed, args.device)
        writeProblem(torch, problem, data, args.outdir, args.max_bytes)
    except ProblemError as error:
        sys.stderr.write(firstLine(error) + "\n")
        return error.code
    except Exception as error:  # noqa: BLE001 - a case this helper does not handle yet: say where, in one line
        frame = traceback.extract_tb(error.__traceback__)[-1]
        sys.stderr.write("%s: the helper failed in %s (%s:%d): %s: %s\n"
                         % (args.problem, frame.name, os.path.basename(frame.filename), frame.lineno,
                            type(error).__name__, firstLine(error)))
        return EXIT_TRACE
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
