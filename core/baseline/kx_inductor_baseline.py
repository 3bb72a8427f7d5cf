#!/usr/bin/env python3
"""torch.compile (Inductor) as a baseline for Kernel Explorer: what a user of an op would run instead of a kernel.

    python3 kx_inductor_baseline.py package OUT.pt2 [--device N] < request.json
    python3 kx_inductor_baseline.py time [--device N] < request.json
    python3 kx_inductor_baseline.py check [--device cpu|N] < request.json

The request (JSON on stdin) holds the op as Kernel Explorer stores it ("op": name, referenceSource, inputs,
outputs, shapeSets ...) and, for `time`, how to time it ("shapeSet", "precision", "inputSeed", "warmupRuns",
"timedRuns", "timeBudgetMs", "l2Bytes", "atol", "rtol").

The op's referenceSource is Python: a KernelBench problem file (class Model, get_inputs, get_init_inputs), or a
catalog op's module (class Model whose forward takes the op's inputs in order). The op's inputs are the forward's
tensors followed by the model's parameters and buffers (as the import bundled them), so the compiled function
takes exactly the tensors the worker times eager PyTorch and candidates on.

  package  exports that function (torch.export) and builds an AOTInductor package for this GPU
           (torch._inductor.aoti_compile_and_package); the worker loads and times it in C++, like eager.
  time     times torch.compile of the function here, the way the worker times candidates (same input values,
           an L2 flush before every run, warmups, CUDA events, median of at least 100 runs unless the time budget
           cuts them, outputs checked against the fp32 eager result first): for ops whose export fails.
  check    runs the function once on the request's shapes and writes its outputs' shapes, dtypes and sums (tests:
           the catalog's module texts compute what its LibTorch references compute); a list of requests gives
           {"ok", "results"}.

The last line on stdout is one JSON object: for package {"ok", "package", "torch", "arch", "exportSeconds",
"compileSeconds"} or {"ok": false, "stage", "error"}; for time a baseline measurement {"samplesMs",
"wallSamplesMs", "maxAbsError", "maxRelError", "error", "details"}. Exit code 0 when it says ok, 3 when the op
cannot be compiled, 5 when PyTorch is missing, 1 otherwise.
"""

import argparse
import contextlib
import importlib.util
import json
import os
import re
import sys
import tempfile
import time
import traceback

EXIT_FAILED, EXIT_NO_TORCH = 3, 5


class BaselineError(Exception):
    def __init__(self, stage, message):
        super().__init__(message)
        self.stage = stage


def firstLine(text):
    lines = [line for line in str(text).splitlines() if line.strip()]
    return lines[0] if lines else ""


def describe(error):
    return "%s: %s" % (type(error).__name__, firstLine(error))


def loadModule(source, name):
    """The op's Python source as a module (written to a temporary file, so that inspect and tracebacks work)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="kx_op_", delete=False, encoding="utf-8") as handle:
        handle.write(source)
        path = handle.name
    try:
        spec = importlib.util.spec_from_file_location("kx_op_" + re.sub(r"\W", "_", name), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 - the op's own code failed
        raise BaselineError("load", "the op's PyTorch source does not load: " + describe(error))
    finally:
        os.unlink(path)
    if not hasattr(module, "Model"):
        raise BaselineError("load", "the op's PyTorch source defines no class Model")
    return module


def onDevice(torch, device):
    """Creates tensors on device inside the block (PyTorch 2.0 and newer; older ones create them on the CPU)."""
    return torch.device(device) if hasattr(torch, "set_default_device") else contextlib.nullcontext()


def functionalCall(torch, model, params, args):
    if hasattr(torch, "func"):
        return torch.func.functional_call(model, params, args)
    from torch.nn.utils import stateless
    return stateless.functional_call(model, params, args)


def concreteShape(spec, shapes):
    result = []
    for dimension in spec.get("shape", []):
        if re.fullmatch(r"\d+", dimension):
            result.append(int(dimension))
        elif dimension in shapes:
            result.append(int(shapes[dimension]))
        else:
            raise BaselineError("load", "%s: dimension %s is not a size of the shape set" % (spec["name"], dimension))
    return result


def valueBound(spec, bound, shapes):
    """A bound of an integer input's value range: an integer or a size of the shape set."""
    if re.fullmatch(r"-?\d+", bound):
        return int(bound)
    if bound in shapes:
        return int(shapes[bound])
    raise BaselineError("load", "%s: value bound %s is not a size of the shape set" % (spec["name"], bound))


def identifierBase(key):
    """The name the import gave a parameter (kx_problem_bundle.identifier, without its de-duplication suffix)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", key.replace(".", "_")) or "t"
    if name[0].isdigit():
        name = "t_" + name
    return name


class OpFunction:
    """The op as a function of its inputs (forward tensors, then parameters and buffers) on one device."""

    def __init__(self, torch, request, device):
        self.torch = torch
        op = request["op"]
        self.op = op
        self.device = device
        module = loadModule(op.get("referenceSource", ""), op.get("name", "op"))
        torch.manual_seed(int(request.get("seed", 0)))
        initInputs = module.get_init_inputs() if hasattr(module, "get_init_inputs") else []
        if not isinstance(initInputs, (list, tuple)):
            initInputs = [initInputs]
        try:
            with onDevice(torch, device):
                self.model = module.Model(*initInputs)
        except Exception as error:  # noqa: BLE001
            raise BaselineError("load", "Model(*get_init_inputs()) failed: " + describe(error))
        self.model = self.model.to(device).eval()
        specs = op.get("inputs", [])
        # The forward's tensors and constants as get_inputs() gives them (on the meta device: no memory).
        self.template = None
        if hasattr(module, "get_inputs"):
            with onDevice(torch, "meta"):
                values = module.get_inputs()
            if not isinstance(values, (list, tuple)):
                values = [values]
            self.template = []
            tensors = 0
            for value in values:
                if isinstance(value, torch.Tensor):
                    self.template.append(("tensor", tensors))
                    tensors += 1
                else:
                    self.template.append(("constant", value))
            self.forwardCount = tensors
        else:
            self.forwardCount = len(specs)
        self.parameterKeys = self.matchParameters(specs[self.forwardCount:])

    def matchParameters(self, specs):
        own = [key for key, _ in self.model.named_parameters()] + [key for key, _ in self.model.named_buffers()]
        shapes = dict(self.model.named_parameters())
        shapes.update(dict(self.model.named_buffers()))
        self.ownShapes = {key: list(value.shape) for key, value in shapes.items()}
        keys, used = [], set()
        for spec in specs:
            name = spec["name"]
            found = None
            for key in own:
                base = identifierBase(key)
                if key not in used and (name in (base, base + "_in") or re.fullmatch(re.escape(base) + r"_\d+", name)):
                    found = key
                    break
            if found is None:
                raise BaselineError("load", "input %s is no parameter or buffer of Model" % name)
            used.add(found)
            keys.append(found)
        return keys

    def module(self):
        """An nn.Module whose forward takes the op's inputs and returns its outputs (a tuple)."""
        torch, model = self.torch, self.model
        template, forwardCount, keys, ownShapes = self.template, self.forwardCount, self.parameterKeys, self.ownShapes

        class OpModule(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model

            def forward(self, *args):
                tensors = args[:forwardCount]
                call = list(tensors) if template is None else \
                    [tensors[slot] if kind == "tensor" else slot for kind, slot in template]
                if not keys:
                    result = self.model(*call)
                else:
                    # The import declares parameters without their size-1 dimensions: back to the model's shapes.
                    params = {key: value.reshape(ownShapes[key]) for key, value in zip(keys, args[forwardCount:])}
                    result = functionalCall(torch, self.model, params, tuple(call))
                return tuple(result) if isinstance(result, (list, tuple)) else (result,)

        return OpModule().eval()

    def inputs(self, shapeSet, seed):
        """The op's inputs on its device, with the values the worker times candidates on (same seeds, same
        generator calls as its ShapeWorkspace::generateInputs with normal inputs)."""
        torch = self.torch
        shapes = self.op["shapeSets"][shapeSet]
        generator = torch.Generator(device=self.device)
        tensors = []
        for index, spec in enumerate(self.op.get("inputs", [])):
            dtype = getattr(torch, spec.get("dtype", "float32"))
            tensor = torch.empty(concreteShape(spec, shapes), dtype=dtype, device=self.device)
            generator.manual_seed((seed * 64 + index) % (1 << 64))
            if tensor.is_floating_point():
                tensor.normal_(0.0, 1.0, generator=generator)
            elif tensor.dtype == torch.bool:
                tensor.random_(0, 2, generator=generator)  # a mask
            elif spec.get("valueRange"):
                low, high = (valueBound(spec, bound, shapes) for bound in spec["valueRange"])
                tensor.random_(low, high, generator=generator)  # class indices, as the worker draws them
            else:
                tensor.random_(-1000, 1000, generator=generator)
            tensors.append(tensor)
        return tensors


def setTf32(torch, allowed):
    torch.backends.cuda.matmul.allow_tf32 = allowed
    torch.backends.cudnn.allow_tf32 = allowed


def cudaDevice(torch, device):
    if not torch.cuda.is_available():
        raise BaselineError("device", "this PyTorch sees no CUDA device")
    torch.cuda.set_device(device)
    return "cuda:%d" % device


def package(torch, request, outPath, device):
    result = {"ok": False, "torch": torch.__version__}
    where = cudaDevice(torch, device)
    major, minor = torch.cuda.get_device_capability(device)
    result["arch"] = "sm_%d%d" % (major, minor)
    if not hasattr(torch, "export") or not hasattr(torch._inductor, "aoti_compile_and_package"):
        raise BaselineError("export", "PyTorch %s cannot build AOTInductor packages (2.6 or newer can)"
                            % torch.__version__)
    function = OpFunction(torch, request, where)
    module = function.module()
    example = tuple(function.inputs(int(request.get("shapeSet", 0)), int(request.get("inputSeed", 0))))
    # Parameters stay inputs, as torch.compile treats them by default (no freezing).
    setTf32(torch, False)
    started = time.time()
    try:
        with torch.no_grad():
            exported = torch.export.export(module, example)
    except Exception as error:  # noqa: BLE001
        raise BaselineError("export", "torch.export failed: " + describe(error))
    result["exportSeconds"] = round(time.time() - started, 2)
    started = time.time()
    try:
        path = torch._inductor.aoti_compile_and_package(exported, package_path=outPath)
    except Exception as error:  # noqa: BLE001
        raise BaselineError("compile", "AOTInductor failed: " + describe(error))
    result["compileSeconds"] = round(time.time() - started, 2)
    result["package"] = path
    result["ok"] = True
    return result


def compare(torch, actual, expected, atol, rtol):
    """Largest errors and the first mismatch, as the worker's check counts them."""
    maxAbs = maxRel = 0.0
    failure = ""
    for index, (a, e) in enumerate(zip(actual, expected)):
        if a.shape != e.shape or a.dtype != e.dtype:
            return maxAbs, maxRel, "output %d is %s %s, eager gives %s %s" % (index, a.dtype, list(a.shape),
                                                                           e.dtype, list(e.shape))
        if not e.is_floating_point():
            if not torch.equal(a, e):
                failure = failure or "output %d differs from eager (integers)" % index
            continue
        a, e = a.double(), e.double()
        finite = torch.isfinite(a) & torch.isfinite(e)
        diff = (a - e).abs()
        bad = ~torch.where(finite, diff <= atol + rtol * e.abs(), (a == e) | (torch.isnan(a) & torch.isnan(e)))
        if finite.any():
            maxAbs = max(maxAbs, diff[finite].max().item())
            relative = torch.where(finite & (e.abs() > atol), diff / e.abs().clamp_min(1e-300), torch.zeros_like(diff))
            maxRel = max(maxRel, relative.max().item())
        if bad.any() and not failure:
            count = int(bad.sum().item())
            failure = "output %d: %d elements outside atol %g, rtol %g" % (index, count, atol, rtol)
    return maxAbs, maxRel, failure


def timeCompiled(torch, request, device):
    where = cudaDevice(torch, device)
    function = OpFunction(torch, request, where)
    module = function.module()
    inputs = function.inputs(int(request.get("shapeSet", 0)), int(request.get("inputSeed", 0)))
    measurement = {"kind": "inductor", "method": "torch-compile", "samplesMs": [], "wallSamplesMs": [],
                   "maxAbsError": 0.0, "maxRelError": 0.0, "error": ""}
    details = {"torch": torch.__version__, "mode": "default"}
    with torch.no_grad():
        setTf32(torch, False)
        expected = module(*inputs)
        eagerMs = None
        tf32 = request.get("precision", "fp32") != "fp32"
        setTf32(torch, tf32)
        compiled = torch.compile(module)
        started = time.time()
        try:
            actual = compiled(*inputs)
            torch.cuda.synchronize()
        except Exception as error:  # noqa: BLE001
            raise BaselineError("compile", "torch.compile failed: " + describe(error))
        details["compileSeconds"] = round(time.time() - started, 2)
        maxAbs, maxRel, failure = compare(torch, actual, expected, float(request.get("atol", 1e-4)),
                                          float(request.get("rtol", 1e-4)))
        measurement["maxAbsError"], measurement["maxRelError"] = maxAbs, maxRel
        if failure:
            measurement["error"] = "inductor baseline outside the %s tolerance: %s" % (
                request.get("precision", "fp32"), failure)
            measurement["details"] = json.dumps(details)
            return measurement

        l2 = int(request.get("l2Bytes", 50 << 20))
        flush = torch.empty(max(2 * l2, 8 << 20), dtype=torch.uint8, device=where)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        rounds = [0]

        def timeOnce(run):
            # As the worker's RunTimer: a different byte each time, then the whole device synchronised.
            rounds[0] += 1
            flush.fill_(rounds[0] & 0xFF)
            torch.cuda.synchronize()
            wallStart = time.perf_counter()
            start.record()
            run(*inputs)
            stop.record()
            torch.cuda.synchronize()
            return start.elapsed_time(stop), (time.perf_counter() - wallStart) * 1e3

        warmups = max(1, int(request.get("warmupRuns", 10)))
        began = time.perf_counter()
        for _ in range(warmups):
            timeOnce(compiled)
        warmupMs = (time.perf_counter() - began) * 1e3 / warmups
        runs = max(1, int(request.get("timedRuns", 100)))
        budget = float(request.get("timeBudgetMs", 2000))
        if warmupMs * runs > budget:
            runs = max(10, int(budget / max(warmupMs, 1e-3)))
        for _ in range(runs):
            eventMs, wallMs = timeOnce(compiled)
            measurement["samplesMs"].append(eventMs)
            measurement["wallSamplesMs"].append(wallMs)
        # Eager in this process, for a reviewer comparing the Python-side numbers with the worker's eager time.
        setTf32(torch, tf32)
        eager = sorted(timeOnce(module)[0] for _ in range(min(runs, 30)))
        eagerMs = eager[len(eager) // 2]
        details["pythonEagerMs"] = eagerMs
    measurement["details"] = json.dumps(details)
    return measurement


def check(torch, request, device):
    where = "cpu" if device == "cpu" else cudaDevice(torch, int(device))
    function = OpFunction(torch, request, where)
    with torch.no_grad():
        outputs = function.module()(*function.inputs(int(request.get("shapeSet", 0)), int(request.get("inputSeed", 0))))
    return {"ok": True, "outputs": [{"shape": list(o.shape), "dtype": str(o.dtype).replace("torch.", ""),
                                     "sum": float(o.double().sum().item())} for o in outputs]}


def main(argv):
    parser = argparse.ArgumentParser(description="torch.compile (Inductor) baselines for Kernel Explorer.")
    parser.add_argument("mode", choices=("package", "time", "check"))
    parser.add_argument("out", nargs="?", help="package: the .pt2 file to write")
    parser.add_argument("--device", default="0", help="CUDA device index (check: also cpu)")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print(json.dumps({"ok": False, "stage": "python", "error": "PyTorch is not installed for " + sys.executable}))
        return EXIT_NO_TORCH
    try:
        request = json.loads(sys.stdin.read())
        if args.mode == "package":
            if not args.out:
                parser.error("package needs the path of the package to write")
            result = package(torch, request, args.out, int(args.device))
        elif args.mode == "time":
            result = timeCompiled(torch, request, int(args.device))
        elif isinstance(request, list):
            result = {"ok": True, "results": [check(torch, one, args.device) for one in request]}
        else:
            result = check(torch, request, args.device)
    except BaselineError as error:
        print(json.dumps({"ok": False, "stage": error.stage, "error": str(error)}))
        return EXIT_FAILED
    except Exception as error:  # noqa: BLE001 - a case this helper does not handle: say where, in one line
        frame = traceback.extract_tb(error.__traceback__)[-1]
        print(json.dumps({"ok": False, "stage": "helper", "error": "the Inductor helper failed in %s (%s:%d): %s"
                          % (frame.name, os.path.basename(frame.filename), frame.lineno, describe(error))}))
        return EXIT_FAILED
    sys.stdout.flush()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
