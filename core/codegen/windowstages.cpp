#include "core/codegen/windowstages.h"

#include "core/codegen/codegenutil.h"

#include <algorithm>
#include <sstream>

namespace kx::windowstages {

using namespace codegen;

namespace {

constexpr std::int64_t kMaxInt = 2147483647;

// NVRTC compiles without the host math headers, so INFINITY is not defined: spell the bit pattern.
constexpr const char *kMinusInfinity = "__int_as_float(0xff800000)";

bool isConv(const PipelineStage &stage)
{
    return stage.kind == PipelineStage::Kind::Conv;
}

std::size_t rankOf(const PipelineStage &stage)
{
    return stage.window.kernel.size();
}

// Spatial dimension names: w is always the innermost (fastest) one.
std::vector<std::string> dimensionNames(std::size_t rank)
{
    if (rank == 1)
        return {"l"};
    if (rank == 2)
        return {"h", "w"};
    return {"d", "h", "w"};
}

std::string upper(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return text;
}

std::string list(const std::vector<std::int64_t> &values)
{
    std::string text;
    for (const auto value : values)
        text += (text.empty() ? "" : ", ") + std::to_string(value);
    return values.size() == 1 ? text : "(" + text + ")";
}

std::string capitalized(const std::string &name)
{
    return upper(name.substr(0, 1)) + name.substr(1);
}

// What the stage computes, in one comment line.
std::string summary(const PipelineStage &stage, std::size_t index)
{
    const auto &w = stage.window;
    const std::string rank = std::to_string(rankOf(stage));
    std::ostringstream out;
    out << "// Stage " << index + 1 << ": " << stage.outputs.front().name << " = ";
    if (isConv(stage)) {
        out << (w.transposed ? "conv_transpose" : "conv") << rank << "d(" << stage.operands[0].name << ", "
            << stage.operands[1].name << ")";
        if (stage.operands.size() > 2)
            out << " + " << stage.operands[2].name;
        out << ", stride " << list(w.stride) << ", padding " << list(w.padding) << ", dilation " << list(w.dilation);
        if (w.transposed)
            out << ", output padding " << list(w.outputPadding);
        out << ", groups " << w.groups << ".\n";
    } else {
        out << stage.reduction << "_pool" << rank << "d(" << stage.operands[0].name << "), kernel " << list(w.kernel)
            << ", stride " << list(w.stride) << ", padding " << list(w.padding);
        if (stage.reduction == "max")
            out << ", dilation " << list(w.dilation);
        if (w.ceilMode)
            out << ", ceil_mode";
        if (stage.reduction == "avg")
            out << (w.countIncludePad ? ", padding counted in the divisor" : ", padding left out of the divisor");
        out << ".\n";
    }
    return out.str();
}

// constexpr lines for the window geometry, one line per spatial dimension.
std::string geometry(const PipelineStage &stage, const std::string &indent)
{
    const auto &w = stage.window;
    const auto names = dimensionNames(rankOf(stage));
    std::ostringstream out;
    for (std::size_t d = 0; d < names.size(); ++d) {
        const std::string n = upper(names[d]);
        out << indent << "constexpr int KERNEL_" << n << " = " << w.kernel[d] << ", STRIDE_" << n << " = "
            << w.stride[d] << ", PAD_" << n << " = " << w.padding[d] << ", DILATION_" << n << " = " << w.dilation[d]
            << ";\n";
    }
    return out.str();
}

// "(long long)ih * inW + iw" style offsets of a position within one channel's plane.
std::string planeOffset(const std::vector<std::string> &names, const std::string &prefix, const std::string &sizePrefix)
{
    std::string offset = "(long long)" + prefix + names[0];
    for (std::size_t d = 1; d < names.size(); ++d)
        offset = (d == 1 ? offset : "(" + offset + ")") + " * " + sizePrefix + capitalized(names[d]) + " + " + prefix
                 + names[d];
    return offset;
}

// The kernel's signature, the thread's output position and the grid-stride loop around it.
void writeLoopHead(std::ostringstream &out, const PipelineStage &stage, const std::string &unit, const Knobs &knobs)
{
    const auto names = dimensionNames(rankOf(stage));
    out << "    const long long inPlane = (long long)in" << capitalized(names[0]);
    for (std::size_t d = 1; d < names.size(); ++d)
        out << " * in" << capitalized(names[d]);
    out << ", outPlane = (long long)out" << capitalized(names[0]);
    for (std::size_t d = 1; d < names.size(); ++d)
        out << " * out" << capitalized(names[d]);
    out << ";\n    const long long total = " << unit << " * outPlane;\n"
        << "    const long long gridStride = (long long)gridDim.x * " << knobs.block << ";\n"
        << "    for (long long index = (long long)blockIdx.x * " << knobs.block
        << " + threadIdx.x; index < total; index += gridStride) {\n"
        << "        // The output position: " << names.back()
        << " fastest, so neighbouring threads read neighbouring inputs.\n"
        << "        long long rest = index;\n";
    for (std::size_t d = names.size(); d-- > 0;) {
        const std::string size = "out" + capitalized(names[d]);
        out << "        const int o" << names[d] << " = (int)(rest % " << size << ");\n"
            << "        rest /= " << size << ";\n";
    }
}

// The loops over the kernel taps that fall inside the input, around body (which reads `value`).
void writeTapLoops(std::ostringstream &out, const PipelineStage &stage, const Knobs &knobs, const std::string &body,
                   std::string indent)
{
    const auto &w = stage.window;
    const auto names = dimensionNames(rankOf(stage));
    for (std::size_t d = 0; d < names.size(); ++d) {
        const std::string n = upper(names[d]), k = "k" + names[d], i = "i" + names[d], o = "o" + names[d];
        if (d + 1 == names.size())
            out << "#pragma unroll " << knobs.unroll << "\n";
        out << indent << "for (int " << k << " = 0; " << k << " < KERNEL_" << n << "; ++" << k << ") {\n";
        indent += "    ";
        if (!w.transposed) {
            out << indent << "const int " << i << " = " << o << " * STRIDE_" << n << " - PAD_" << n << " + " << k
                << " * DILATION_" << n << ";\n"
                << indent << "if (" << i << " < 0 || " << i << " >= in" << capitalized(names[d]) << ")\n"
                << indent << "    continue;\n";
        } else if (w.stride[d] == 1) {
            out << indent << "const int " << i << " = " << o << " + PAD_" << n << " - " << k << " * DILATION_" << n
                << ";\n"
                << indent << "if (" << i << " < 0 || " << i << " >= in" << capitalized(names[d]) << ")\n"
                << indent << "    continue;\n";
        } else {
            // Gather form of the transposed convolution: input i reaches output i * STRIDE - PAD + k * DILATION.
            const std::string t = "t" + names[d];
            out << indent << "const int " << t << " = " << o << " + PAD_" << n << " - " << k << " * DILATION_" << n
                << ";\n"
                << indent << "if (" << t << " < 0 || " << t << " % STRIDE_" << n << " != 0)\n"
                << indent << "    continue; // no input lands here through this tap\n"
                << indent << "const int " << i << " = " << t << " / STRIDE_" << n << ";\n"
                << indent << "if (" << i << " >= in" << capitalized(names[d]) << ")\n"
                << indent << "    continue;\n";
        }
    }
    out << indent << "const float value = xPlane[" << planeOffset(names, "i", "in") << "];\n";
    std::istringstream lines(body);
    for (std::string line; std::getline(lines, line);)
        out << indent << line << "\n";
    for (std::size_t d = names.size(); d-- > 0;) {
        indent.resize(indent.size() - 4);
        out << indent << "}\n";
    }
}

std::string signatureSizes(const std::vector<std::string> &names)
{
    std::string text;
    for (const char *side : {"in", "out"})
        for (const auto &name : names)
            text += ", int " + std::string(side) + capitalized(name);
    return text;
}

std::string convSource(const PipelineStage &stage, std::size_t index, const Knobs &knobs)
{
    const auto &w = stage.window;
    const auto names = dimensionNames(rankOf(stage));
    const bool bias = stage.operands.size() > 2;
    std::ostringstream out;
    out << summary(stage, index)
        << "// One thread computes CHANNELS output channels at one output position, summing over the input channels\n"
        << "// of its group and the kernel taps that fall inside the input.\n";
    if (w.transposed)
        out << "// Transposed: a gather over the inputs that reach the output through each tap (no atomics).\n";
    out << "extern \"C\" __global__ void __launch_bounds__(" << knobs.block << ")\n"
        << kernelName(stage, index) << "(const float *__restrict__ x, const float *__restrict__ weight, "
        << (bias ? "const float *__restrict__ bias, " : "") << "float *__restrict__ out,\n"
        << "    long long batch, int inChannels, int outChannels" << signatureSizes(names) << ")\n{\n"
        << "    constexpr int GROUPS = " << w.groups << ", CHANNELS = " << knobs.channels << ";\n"
        << geometry(stage, "    ") << "    constexpr int TAPS = KERNEL_" << upper(names[0]);
    for (std::size_t d = 1; d < names.size(); ++d)
        out << " * KERNEL_" << upper(names[d]);
    out << ";\n"
        << "    const int inPerGroup = inChannels / GROUPS, outPerGroup = outChannels / GROUPS;\n"
        << "    const int channelBlocks = outChannels / CHANNELS; // CHANNELS divides outPerGroup\n";
    writeLoopHead(out, stage, "batch * channelBlocks", knobs);
    out << "        const int firstChannel = (int)(rest % channelBlocks) * CHANNELS;\n"
        << "        const long long n = rest / channelBlocks;\n"
        << "        const int group = firstChannel / outPerGroup;\n"
        << "        float acc[CHANNELS] = {};\n"
        << "        for (int ci = 0; ci < inPerGroup; ++ci) {\n"
        << "            const int inChannel = group * inPerGroup + ci;\n"
        << "            const float *xPlane = x + (n * inChannels + inChannel) * inPlane;\n";
    std::string channelStride;
    if (w.transposed) {
        out << "            // weight [C_in, C_out / GROUPS, taps]: the taps of inChannel to firstChannel's column.\n"
            << "            const float *taps = weight + ((long long)inChannel * outPerGroup + (firstChannel - group * "
               "outPerGroup)) * TAPS;\n";
        channelStride = "TAPS";
    } else {
        out << "            // weight [C_out, C_in / GROUPS, taps]: the taps of firstChannel from input channel ci.\n"
            << "            const float *taps = weight + ((long long)firstChannel * inPerGroup + ci) * TAPS;\n";
        channelStride = "(long long)inPerGroup * TAPS";
    }
    std::string tap = "k" + names[0];
    for (std::size_t d = 1; d < names.size(); ++d)
        tap = (d == 1 ? tap : "(" + tap + ")") + " * KERNEL_" + upper(names[d]) + " + k" + names[d];
    const std::string body = "const int tap = " + tap
                             + ";\n#pragma unroll\nfor (int j = 0; j < CHANNELS; ++j)\n"
                               "    acc[j] += value * taps[j * "
                             + channelStride + " + tap];";
    writeTapLoops(out, stage, knobs, body, "            ");
    out << "        }\n"
        << "        const long long position = " << planeOffset(names, "o", "out") << ";\n"
        << "#pragma unroll\n"
        << "        for (int j = 0; j < CHANNELS; ++j) {\n"
        << "            const int channel = firstChannel + j;\n"
        << "            out[(n * outChannels + channel) * outPlane + position] = acc[j]"
        << (bias ? " + bias[channel]" : "") << ";\n"
        << "        }\n    }\n}\n\n";
    return out.str();
}

std::string poolSource(const PipelineStage &stage, std::size_t index, const Knobs &knobs)
{
    const auto &w = stage.window;
    const auto names = dimensionNames(rankOf(stage));
    const bool max = stage.reduction == "max";
    std::ostringstream out;
    out << summary(stage, index) << "// One thread computes one output element of one (batch, channel) plane.\n"
        << "extern \"C\" __global__ void __launch_bounds__(" << knobs.block << ")\n"
        << kernelName(stage, index) << "(const float *__restrict__ x, float *__restrict__ out, long long planes"
        << signatureSizes(names) << ")\n{\n"
        << geometry(stage, "    ");
    writeLoopHead(out, stage, "planes", knobs);
    out << "        const long long plane = rest;\n"
        << "        const float *xPlane = x + plane * inPlane;\n";
    if (max) {
        out << "        float best = " << kMinusInfinity << "; // padding never wins\n";
        writeTapLoops(out, stage, knobs,
                      "if (value > best || value != value)\n    best = value; // NaN propagates, as in PyTorch",
                      "        ");
        out << "        out[plane * outPlane + " << planeOffset(names, "o", "out") << "] = best;\n    }\n}\n\n";
        return out.str();
    }
    // Average: PyTorch's divisor is the window clipped to the padded input, or to the input without padding.
    out << "        // The window, clipped to the padded input (for the divisor) and to the input (for the sum).\n";
    for (const auto &name : names) {
        const std::string n = upper(name), in = "in" + capitalized(name);
        out << "        const int start" << n << " = o" << name << " * STRIDE_" << n << " - PAD_" << n << ";\n"
            << "        const int end" << n << " = min(start" << n << " + KERNEL_" << n << ", " << in << " + PAD_" << n
            << ");\n"
            << "        const int first" << n << " = max(start" << n << ", 0), last" << n << " = min(end" << n << ", "
            << in << ");\n";
    }
    std::string padded, inside;
    for (const auto &name : names) {
        const std::string n = upper(name);
        padded += (padded.empty() ? "" : " * ") + std::string("(end") + n + " - start" + n + ")";
        inside += (inside.empty() ? "" : " * ") + std::string("(last") + n + " - first" + n + ")";
    }
    out << "        const int divisor = " << (w.countIncludePad ? padded : inside) << ";\n"
        << "        float sum = 0.0f;\n";
    std::string indent = "        ";
    for (std::size_t d = 0; d < names.size(); ++d) {
        const std::string n = upper(names[d]), i = "i" + names[d];
        if (d + 1 == names.size())
            out << "#pragma unroll " << knobs.unroll << "\n";
        out << indent << "for (int " << i << " = first" << n << "; " << i << " < last" << n << "; ++" << i << ")\n";
        indent += "    ";
    }
    out << indent << "sum += xPlane[" << planeOffset(names, "i", "in") << "];\n"
        << "        out[plane * outPlane + " << planeOffset(names, "o", "out")
        << "] = sum / (float)divisor;\n    }\n}\n\n";
    return out.str();
}

std::string windowProblem(const PipelineStage &stage)
{
    const auto &w = stage.window;
    const std::string what = isConv(stage) ? "convolution" : "pooling";
    for (std::size_t d = 0; d < w.kernel.size(); ++d) {
        const std::string at = " of dimension " + std::to_string(d + 1);
        if (w.kernel[d] < 1 || w.kernel[d] > 1024)
            return "the " + what + " kernel size " + std::to_string(w.kernel[d]) + at + " is not between 1 and 1024";
        if (w.stride[d] < 1 || w.stride[d] > kMaxInt)
            return "the " + what + " stride " + std::to_string(w.stride[d]) + at + " is not positive";
        if (w.dilation[d] < 1 || w.dilation[d] > 65536)
            return "the " + what + " dilation " + std::to_string(w.dilation[d]) + at + " is not between 1 and 65536";
        if (w.padding[d] < 0 || w.padding[d] > 65536)
            return "the " + what + " padding " + std::to_string(w.padding[d]) + at + " is not between 0 and 65536";
        if (w.outputPadding[d] < 0 || w.outputPadding[d] >= std::max(w.stride[d], w.dilation[d]))
            return "the output padding " + std::to_string(w.outputPadding[d]) + at
                   + " must be below the stride or the dilation";
        if (!isConv(stage) && w.padding[d] * 2 > w.kernel[d])
            return "the pooling padding " + std::to_string(w.padding[d]) + at + " exceeds half the kernel size";
        if (!isConv(stage) && stage.reduction == "avg" && w.dilation[d] != 1)
            return "average pooling has no dilation";
    }
    if (isConv(stage) && w.groups < 1)
        return "the convolution has " + std::to_string(w.groups) + " groups";
    if (!isConv(stage) && stage.reduction != "max" && stage.reduction != "avg")
        return "unknown pooling '" + stage.reduction + "' (max or avg)";
    if (isConv(stage) && w.ceilMode)
        return "ceil_mode is for pooling";
    return {};
}

} // namespace

std::optional<std::int64_t> outputSize(const PipelineStage &stage, std::size_t dim, std::int64_t input)
{
    const auto &w = stage.window;
    const std::int64_t span = w.dilation[dim] * (w.kernel[dim] - 1) + 1;
    std::int64_t size = 0;
    if (isConv(stage) && w.transposed) {
        size = (input - 1) * w.stride[dim] - 2 * w.padding[dim] + span + w.outputPadding[dim];
    } else {
        const std::int64_t room = input + 2 * w.padding[dim] - span;
        if (room < 0)
            return std::nullopt;
        size = (room + (w.ceilMode ? w.stride[dim] - 1 : 0)) / w.stride[dim] + 1;
        // PyTorch: the last window of ceil_mode must start inside the input or its left padding.
        if (w.ceilMode && (size - 1) * w.stride[dim] >= input + w.padding[dim])
            --size;
    }
    if (size < 1)
        return std::nullopt;
    return size;
}

std::vector<std::int64_t> outputChannelsPerGroup(const PipelineStage &stage, const std::vector<ShapeSet> &shapeSets)
{
    std::vector<std::int64_t> values;
    if (!isConv(stage) || stage.outputs.empty() || stage.outputs.front().shape.size() < 2)
        return values;
    for (const auto &shapes : shapeSets)
        if (const auto channels = dimensionValue(stage.outputs.front().shape[1], shapes))
            values.push_back(*channels / std::max<std::int64_t>(stage.window.groups, 1));
    return values;
}

std::string check(const PipelineStage &stage, const std::vector<ShapeSet> &shapeSets, const Knobs &knobs)
{
    if (auto problem = windowProblem(stage); !problem.empty())
        return problem;
    const auto &w = stage.window;
    const std::size_t rank = rankOf(stage), tensorRank = rank + 2;
    const bool conv = isConv(stage);
    const auto &x = stage.operands[0];
    const auto &y = stage.outputs.front();
    if (x.shape.size() != tensorRank || y.shape.size() != tensorRank)
        return "a " + std::to_string(rank) + "-D window needs " + x.name + " and " + y.name + " of "
               + std::to_string(tensorRank) + " dimensions [N, C, spatial...]";
    if (conv && stage.operands[1].shape.size() != tensorRank)
        return "the weight " + stage.operands[1].name + " needs " + std::to_string(tensorRank) + " dimensions";
    if (conv && stage.operands.size() > 2 && stage.operands[2].shape.size() != 1)
        return "the bias " + stage.operands[2].name + " must be 1-D [C_out]";
    for (std::size_t s = 0; s < shapeSets.size(); ++s) {
        const std::string where = "shape set " + std::to_string(s + 1);
        std::vector<std::vector<std::int64_t>> sizes;
        for (const auto *tensor : {&x, &y, conv ? &stage.operands[1] : nullptr,
                                   conv && stage.operands.size() > 2 ? &stage.operands[2] : nullptr}) {
            sizes.emplace_back();
            if (!tensor)
                continue;
            for (const auto &dimension : tensor->shape) {
                const auto value = dimensionValue(dimension, shapeSets[s]);
                if (!value || *value <= 0 || *value > kMaxInt)
                    return where + " gives " + tensor->name + "'s dimension " + dimension + " no positive 32-bit size";
                sizes.back().push_back(*value);
            }
        }
        const auto &xs = sizes[0], &ys = sizes[1], &ws = sizes[2];
        if (xs[0] != ys[0])
            return where + ": " + x.name + " and " + y.name + " have different batch sizes";
        if (!conv && xs[1] != ys[1])
            return where + ": pooling keeps the channels, but " + x.name + " has " + std::to_string(xs[1]) + " and "
                   + y.name + " " + std::to_string(ys[1]);
        if (conv) {
            const std::int64_t inChannels = xs[1], outChannels = ys[1];
            if (inChannels % w.groups != 0 || outChannels % w.groups != 0)
                return where + ": groups " + std::to_string(w.groups) + " must divide the " + std::to_string(inChannels)
                       + " input and " + std::to_string(outChannels) + " output channels";
            const std::int64_t expected0 = w.transposed ? inChannels : outChannels;
            const std::int64_t expected1 = (w.transposed ? outChannels : inChannels) / w.groups;
            if (ws[0] != expected0 || ws[1] != expected1)
                return where + ": the weight is [" + std::to_string(ws[0]) + ", " + std::to_string(ws[1])
                       + ", ...], the convolution needs [" + std::to_string(expected0) + ", "
                       + std::to_string(expected1) + ", ...]";
            for (std::size_t d = 0; d < rank; ++d)
                if (ws[d + 2] != w.kernel[d])
                    return where + ": the weight's kernel size " + std::to_string(ws[d + 2]) + " in dimension "
                           + std::to_string(d + 1) + " differs from the traced " + std::to_string(w.kernel[d])
                           + " (the kernel is compiled in)";
            if (sizes[3].size() == 1 && sizes[3][0] != outChannels)
                return where + ": the bias must hold one value per output channel (" + std::to_string(outChannels)
                       + ")";
            if ((outChannels / w.groups) % knobs.channels != 0)
                return std::to_string(knobs.channels) + " output channels per thread do not divide the "
                       + std::to_string(outChannels / w.groups) + " output channels of a group (" + where + ")";
        }
        for (std::size_t d = 0; d < rank; ++d) {
            const auto expected = outputSize(stage, d, xs[d + 2]);
            if (!expected)
                return where + ": spatial dimension " + std::to_string(d + 1) + " of " + x.name + " ("
                       + std::to_string(xs[d + 2]) + ") is smaller than the window";
            if (*expected != ys[d + 2])
                return where + ": spatial dimension " + std::to_string(d + 1) + " of " + y.name + " is "
                       + std::to_string(ys[d + 2]) + ", the window gives " + std::to_string(*expected);
        }
    }
    return {};
}

std::string kernelName(const PipelineStage &stage, std::size_t index)
{
    return "stage" + std::to_string(index + 1) + (isConv(stage) ? "_conv" : "_pool");
}

std::string kernelSource(const PipelineStage &stage, std::size_t index, const Knobs &knobs)
{
    return isConv(stage) ? convSource(stage, index, knobs) : poolSource(stage, index, knobs);
}

std::vector<std::string> sizeArguments(const PipelineStage &stage)
{
    const auto &x = stage.operands[0].shape;
    const auto &y = stage.outputs.front().shape;
    std::vector<std::string> sizes;
    if (isConv(stage))
        sizes = {x[0], x[1], y[1]};
    else
        sizes = {shapeProduct({x[0], x[1]})};
    sizes.insert(sizes.end(), x.begin() + 2, x.end());
    sizes.insert(sizes.end(), y.begin() + 2, y.end());
    return sizes;
}

std::string threadCount(const PipelineStage &stage, const Knobs &knobs)
{
    const std::string outputs = shapeProduct(stage.outputs.front().shape);
    return isConv(stage) && knobs.channels > 1 ? "ceil_div(" + outputs + ", " + std::to_string(knobs.channels) + ")"
                                               : outputs;
}

} // namespace kx::windowstages
