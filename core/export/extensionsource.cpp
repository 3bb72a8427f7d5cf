#include "core/export/extensionsource.h"

#include "core/export/extensionprelude.h"
#include "core/plan/launchplan.h"

#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace kx {

namespace {

/// Plan expressions use only symbols, integers, + - * / %, parentheses and min/max/ceil_div, all of
/// which read the same in C++ once those three functions exist; anything else is refused.
Status checkExpression(const std::string &expression, const ShapeSet &shapes)
{
    for (char c : expression) {
        const bool allowed = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ' '
                             || std::string_view("+-*/%(),").find(c) != std::string_view::npos;
        if (!allowed)
            return Error::badInput("unexpected character '" + std::string(1, c) + "' in expression \"" + expression
                                   + "\"");
    }
    if (auto value = evaluateIntExpression(expression, shapes); !value)
        return Error::badInput("expression \"" + expression + "\": " + value.error().message);
    return Status::ok();
}

std::string torchDtype(const std::string &dtype)
{
    static const std::map<std::string, std::string> types{
        {"float32", "torch::kFloat32"}, {"float16", "torch::kFloat16"}, {"bfloat16", "torch::kBFloat16"},
        {"float64", "torch::kFloat64"}, {"int32", "torch::kInt32"},     {"int64", "torch::kInt64"},
        {"int8", "torch::kInt8"},       {"uint8", "torch::kUInt8"},     {"bool", "torch::kBool"}};
    const auto it = types.find(dtype);
    return it == types.end() ? std::string() : it->second;
}

std::string parameterType(const KernelParam &param)
{
    std::string type = param.type;
    // __restrict__ is meaningful to nvcc only; the host compiler sees a plain declaration.
    for (std::size_t at; (at = type.find("__restrict__")) != std::string::npos;)
        type.erase(at, std::string("__restrict__").size());
    return type;
}

} // namespace

std::string exportIdentifier(std::string_view text)
{
    std::string result;
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte & 0xC0) == 0x80)
            continue; // a UTF-8 continuation byte: its code point already became one '_'
        result += byte < 128 && std::isalnum(byte) ? c : '_';
    }
    if (result.empty() || std::isdigit(static_cast<unsigned char>(result.front())))
        result.insert(result.begin(), '_');
    return result;
}

Expected<std::string> extensionSource(const Candidate &candidate, const Op &op)
{
    Expected<LaunchPlan> parsed = parseLaunchPlan(candidate.launchPlan);
    if (!parsed)
        return Error::badInput("the launch plan is invalid: " + parsed.error().message);
    const LaunchPlan &plan = *parsed;
    if (op.shapeSets.empty())
        return Error::badInput("the op has no shapes");
    const ShapeSet &defaults = op.shapeSets.front();
    const std::vector<KernelSignature> signatures = parseKernelSignatures(candidate.source);
    std::map<std::string, const KernelSignature *> byName;
    for (const KernelSignature &signature : signatures)
        byName[signature.name] = &signature;

    std::ostringstream launches;
    int stepIndex = 0;
    for (const auto &step : plan.steps) {
        ++stepIndex;
        if (std::holds_alternative<LibraryStep>(step))
            return Error::badInput("step " + std::to_string(stepIndex) + " is a library step ("
                                   + std::get<LibraryStep>(step).op + "); the export launches kernel steps only");
        const KernelStep &kernel = std::get<KernelStep>(step);
        // The extension launches with cudaLaunchKernel: it would drop a cluster, and nobody would encode a tensor map.
        if (!kernel.cluster.empty())
            return Error::badInput("step " + std::to_string(stepIndex) + " (" + kernel.kernel
                                   + ") launches in clusters; the export launches plain grids only");
        for (const PlanArg &arg : kernel.args)
            if (arg.kind == PlanArg::Kind::TensorMap)
                return Error::badInput("step " + std::to_string(stepIndex) + " (" + kernel.kernel
                                       + ") takes a tensor map; the export passes pointers and numbers only");
        const auto found = byName.find(kernel.kernel);
        if (found == byName.end())
            return Error::badInput("the kernel " + kernel.kernel
                                   + " is not an extern \"C\" __global__ function of the source");
        const KernelSignature &signature = *found->second;
        if (signature.params.size() != kernel.args.size())
            return Error::badInput("the kernel " + kernel.kernel + " takes " + std::to_string(signature.params.size())
                                   + " parameters but the plan passes " + std::to_string(kernel.args.size()));
        std::vector<std::string> dims[2] = {kernel.grid, kernel.block};
        for (auto &list : dims) {
            for (const std::string &expression : list)
                if (Status status = checkExpression(expression, defaults); !status)
                    return status.error();
            while (list.size() < 3)
                list.push_back("1");
        }
        if (Status status = checkExpression(kernel.sharedBytesExpr, defaults); !status)
            return status.error();

        launches << "    {   // Step " << stepIndex << ": " << kernel.kernel << "\n";
        std::vector<std::string> argNames;
        for (std::size_t i = 0; i < kernel.args.size(); ++i) {
            const PlanArg &arg = kernel.args[i];
            const std::string name = "a" + std::to_string(i);
            const std::string type = parameterType(signature.params[i]);
            switch (arg.kind) {
            case PlanArg::Kind::Input:
                launches << "        const void *" << name << " = " << exportIdentifier(arg.name) << ".data_ptr();\n";
                break;
            case PlanArg::Kind::Output:
                launches << "        void *" << name << " = " << exportIdentifier(arg.name) << ".data_ptr();\n";
                break;
            case PlanArg::Kind::Scratch:
                launches << "        void *" << name << " = scratch_" << exportIdentifier(arg.name) << ".data_ptr();\n";
                break;
            case PlanArg::Kind::Int:
                if (Status status = checkExpression(arg.expr, defaults); !status)
                    return status.error();
                launches << "        " << type << " " << name << " = static_cast<" << type << ">(" << arg.expr
                         << ");\n";
                break;
            case PlanArg::Kind::Float: {
                std::ostringstream value;
                value.precision(17);
                value << arg.value;
                launches << "        " << type << " " << name << " = static_cast<" << type << ">(" << value.str()
                         << ");\n";
                break;
            }
            default:
                return Error::badInput("step " + std::to_string(stepIndex)
                                       + " passes a library-only argument to a kernel");
            }
            argNames.push_back(name);
        }
        launches << "        void *args[] = {";
        for (std::size_t i = 0; i < argNames.size(); ++i)
            launches << (i ? ", " : "") << "&" << argNames[i];
        if (argNames.empty())
            launches << "nullptr";
        launches << "};\n";
        launches << "        const dim3 grid(dim(" << dims[0][0] << "), dim(" << dims[0][1] << "), dim(" << dims[0][2]
                 << "));\n";
        launches << "        const dim3 block(dim(" << dims[1][0] << "), dim(" << dims[1][1] << "), dim(" << dims[1][2]
                 << "));\n";
        launches << "        check(cudaLaunchKernel(reinterpret_cast<const void *>(&" << kernel.kernel
                 << "), grid, block, args, static_cast<size_t>(" << kernel.sharedBytesExpr << "), stream), \""
                 << kernel.kernel << "\");\n";
        launches << "    }\n";
    }

    std::ostringstream out;
    const std::string moduleName = exportIdentifier(op.name);
    out << "// PyTorch C++ extension for the op \"" << op.name << "\", kernel " << candidate.id << ".\n"
        << "//\n"
        << "// Build and call it from Python, next to kernel.cu:\n"
        << "//     from torch.utils.cpp_extension import load\n"
        << "//     ext = load(name=\"" << moduleName << "\", sources=[\"extension.cpp\", \"kernel.cu\"])\n"
        << "//     outputs = ext.forward(";
    for (std::size_t i = 0; i < op.inputs.size(); ++i)
        out << (i ? ", " : "") << exportIdentifier(op.inputs[i].name);
    out << ")\n"
        << "//\n"
        << "// Limits:\n"
        << "// - kernel.cu is compiled by nvcc here, not by NVRTC as in Kernel Explorer; flags and results may "
           "differ.\n"
        << "// - Inputs must be contiguous CUDA tensors with the dtypes below; outputs are allocated with the op's\n"
        << "//   shapes and dtypes. No autograd: forward only.\n"
        << "// - Shape symbols are read from the input shapes; a symbol no input carries keeps the value of the op's\n"
        << "//   default shapes. Grid, block, shared memory and integer arguments are evaluated from them at run "
           "time.\n"
        << "// - Kernel parameters must be pointers or scalar types the host compiler knows (no half, float4 ...).\n"
        << "// - Only kernel steps: plans with library steps are not exported.\n"
        << kExtensionPrelude;
    // The kernels' host stubs: nvcc emits one per __global__ function, with C linkage for extern "C".
    out << "extern \"C\" {\n";
    std::set<std::string> declared;
    for (const auto &step : plan.steps) {
        const KernelStep &kernel = std::get<KernelStep>(step);
        if (!declared.insert(kernel.kernel).second)
            continue;
        const KernelSignature &signature = *byName.at(kernel.kernel);
        out << "void " << kernel.kernel << "(";
        for (std::size_t i = 0; i < signature.params.size(); ++i)
            out << (i ? ", " : "") << parameterType(signature.params[i]) << " " << signature.params[i].name;
        out << ");\n";
    }
    out << "}\n\n";
    // forward(): bind symbols, check inputs, allocate outputs and scratch, launch.
    std::string outputType = op.outputs.size() == 1 ? "torch::Tensor" : "std::vector<torch::Tensor>";
    out << outputType << " forward(";
    for (std::size_t i = 0; i < op.inputs.size(); ++i)
        out << (i ? ", " : "") << "const torch::Tensor &" << exportIdentifier(op.inputs[i].name);
    out << ")\n{\n";
    std::set<std::string> bound;
    for (const TensorSpec &input : op.inputs) {
        const std::string name = exportIdentifier(input.name);
        const std::string dtype = torchDtype(input.dtype);
        if (dtype.empty())
            return Error::badInput("the input " + input.name + " has the unsupported dtype " + input.dtype);
        out << "    TORCH_CHECK(" << name << ".is_cuda() && " << name << ".is_contiguous(), \"" << input.name
            << " must be a contiguous CUDA tensor\");\n"
            << "    TORCH_CHECK(" << name << ".scalar_type() == " << dtype << ", \"" << input.name << " must be "
            << input.dtype << "\");\n"
            << "    TORCH_CHECK(" << name << ".dim() == " << input.shape.size() << ", \"" << input.name << " must have "
            << input.shape.size() << " dimensions\");\n";
    }
    for (const TensorSpec &input : op.inputs) {
        for (std::size_t d = 0; d < input.shape.size(); ++d) {
            const std::string &dimension = input.shape[d];
            if (dimension.empty() || std::isdigit(static_cast<unsigned char>(dimension[0])))
                continue;
            if (bound.insert(dimension).second)
                out << "    const int64_t " << dimension << " = " << exportIdentifier(input.name) << ".size(" << d
                    << ");\n";
            else
                out << "    TORCH_CHECK(" << exportIdentifier(input.name) << ".size(" << d << ") == " << dimension
                    << ", \"" << input.name << ": dimension " << d << " must equal " << dimension << "\");\n";
        }
    }
    for (const auto &[symbol, value] : defaults) {
        if (bound.insert(symbol).second)
            out << "    const int64_t " << symbol << " = " << value
                << "; // not carried by any input: the op's default\n";
    }
    out << "    const c10::cuda::CUDAGuard guard(" << exportIdentifier(op.inputs.empty() ? "x" : op.inputs[0].name)
        << ".device());\n"
        << "    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream();\n"
        << "    const auto device = " << exportIdentifier(op.inputs.empty() ? "x" : op.inputs[0].name)
        << ".device();\n";
    for (const TensorSpec &output : op.outputs) {
        const std::string dtype = torchDtype(output.dtype);
        if (dtype.empty())
            return Error::badInput("the output " + output.name + " has the unsupported dtype " + output.dtype);
        out << "    torch::Tensor " << exportIdentifier(output.name) << " = torch::empty({";
        for (std::size_t d = 0; d < output.shape.size(); ++d)
            out << (d ? ", " : "") << output.shape[d];
        out << "}, torch::TensorOptions().dtype(" << dtype << ").device(device));\n";
    }
    for (const ScratchBuffer &scratch : plan.scratch) {
        if (Status status = checkExpression(scratch.bytesExpr, defaults); !status)
            return status.error();
        out << "    torch::Tensor scratch_" << exportIdentifier(scratch.name) << " = torch::empty({"
            << scratch.bytesExpr << "}, torch::TensorOptions().dtype(torch::kUInt8).device(device));\n";
    }
    out << launches.str();
    if (op.outputs.size() == 1) {
        out << "    return " << exportIdentifier(op.outputs[0].name) << ";\n";
    } else {
        out << "    return {";
        for (std::size_t i = 0; i < op.outputs.size(); ++i)
            out << (i ? ", " : "") << exportIdentifier(op.outputs[i].name);
        out << "};\n";
    }
    out << "}\n\n"
        << "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)\n{\n"
        << "    m.def(\"forward\", &forward, \"" << op.name << " (kernel " << candidate.id.substr(0, 12) << ")\");\n"
        << "}\n";
    return out.str();
}

} // namespace kx
