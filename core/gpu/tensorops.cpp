// LibTorch side of the evaluator's tensor work (one of the two translation units that include LibTorch).
#include "core/gpu/tensorops.h"

#include "core/gpu/torchinterop.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/cuda.h>
#include <torch/version.h>
#ifdef KX_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

namespace kx {
namespace {

using torchinterop::errorText;
using torchinterop::wrap;

at::Device deviceOf(const TensorView &view)
{
    return torchinterop::deviceFor(view.device);
}

Status checkUsable(const TensorView &view)
{
    if (!view.data)
        return Error{"tensor has no storage"};
    if (view.device >= 0 && !torch::cuda::is_available())
        return Error{"LibTorch cannot use the GPU here (a CPU-only build, or no device)"};
    return {};
}

// The same memory as a flat integer tensor, so equality is bitwise (NaN payloads included).
at::Tensor wrapBits(const TensorView &view)
{
    const auto bytes = view.byteCount();
    const auto type = bytes % 8 == 0 ? at::kLong : bytes % 4 == 0 ? at::kInt : at::kByte;
    const auto width = type == at::kLong ? 8 : type == at::kInt ? 4 : 1;
    return at::from_blob(view.data, {bytes / width}, at::TensorOptions().dtype(type).device(deviceOf(view)));
}

// Adds one slice (starting at element `offset`) to the comparison.
void compareSlice(at::Tensor a, at::Tensor e, std::int64_t offset, double atol, double rtol, Comparison &result)
{
    at::Tensor bad;
    if (at::isFloatingType(a.scalar_type())) {
        const bool inDouble = a.scalar_type() == at::kDouble || e.scalar_type() == at::kDouble;
        const auto computeType = inDouble ? at::kDouble : at::kFloat;
        a = a.to(computeType);
        e = e.to(computeType);
        const auto eFinite = at::isfinite(e);
        const auto bothFinite = eFinite & at::isfinite(a);
        const auto diff = (a - e).abs();
        const auto eAbs = e.abs();
        const auto within = bothFinite & (diff <= eAbs * rtol + atol);
        const auto sameNonFinite = a.eq(e) | (at::isnan(a) & at::isnan(e));
        bad = at::where(eFinite, within, sameNonFinite).logical_not();
        const auto finiteDiff = at::where(bothFinite, diff, at::zeros_like(diff));
        result.maxAbsError = std::max(result.maxAbsError, finiteDiff.max().item<double>());
        const auto relative = at::where(bothFinite & (eAbs > atol), finiteDiff / eAbs, at::zeros_like(diff));
        result.maxRelError = std::max(result.maxRelError, relative.max().item<double>());
    } else {
        bad = a.ne(e);
        result.maxAbsError =
            std::max(result.maxAbsError, (a.to(at::kDouble) - e.to(at::kDouble)).abs().max().item<double>());
    }
    const auto mismatches = bad.sum().item<std::int64_t>();
    if (mismatches > 0 && result.firstMismatch < 0) {
        // argmax returns the first maximal index: the first mismatch.
        const auto first = bad.to(at::kInt).argmax().item<std::int64_t>();
        result.firstMismatch = offset + first;
        result.actualAtFirst = a[first].item<double>();
        result.expectedAtFirst = e[first].item<double>();
    }
    result.mismatches += mismatches;
}

// The generator's seed is shared state: one fill at a time.
std::mutex &generatorMutex()
{
    static std::mutex mutex;
    return mutex;
}

// The default generator of the view's device, seeded; the caller holds generatorMutex() while it draws.
at::Generator seededGenerator(const TensorView &view, std::uint64_t seed)
{
    auto generator = at::globalContext().defaultGenerator(deviceOf(view));
    std::lock_guard lock(generator.mutex());
    generator.set_current_seed(seed);
    return generator;
}

} // namespace

bool TensorOps::haveTorch()
{
    return true;
}

bool TensorOps::haveCuda()
{
    return torch::cuda::is_available();
}

void TensorOps::setTf32Allowed(bool allowed)
{
    at::globalContext().setAllowTF32CuBLAS(allowed);
    at::globalContext().setAllowTF32CuDNN(allowed);
}

bool TensorOps::tf32Allowed()
{
    return at::globalContext().allowTF32CuBLAS();
}

void TensorOps::releaseCachedMemory()
{
#ifdef KX_TORCH_CUDA
    if (haveCuda())
        c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

std::string TensorOps::torchVersion()
{
    return TORCH_VERSION;
}

namespace {

// Fills a floating-point tensor whose rows (last dimension) hold `row` elements; `generator` is seeded. Large
// tensors are handled a slice of whole rows at a time, so that the temporaries (and sorting) need little
// memory besides the tensor.
void fillFloating(at::Tensor flat, std::int64_t row, Distribution distribution, std::uint64_t seed,
                  at::Generator &generator)
{
    const std::int64_t elements = flat.numel();
    row = std::max<std::int64_t>(1, row);
    const std::int64_t sliceElements = std::max(row, TensorOps::kSliceElements / row * row);
    const auto floatOptions = flat.options().dtype(at::kFloat);
    for (std::int64_t begin = 0; begin < elements; begin += sliceElements) {
        const auto length = std::min(sliceElements, elements - begin);
        auto slice = flat.narrow(0, begin, length);
        switch (distribution) {
        case Distribution::Normal: slice.normal_(0.0, 1.0, generator); break;
        case Distribution::Uniform: slice.uniform_(-1.0, 1.0, generator); break;
        case Distribution::Wide: {
            // One element in 16 is 100 times larger.
            slice.normal_(0.0, 10.0, generator);
            auto pick = at::empty(slice.sizes(), floatOptions).uniform_(0.0, 1.0, generator);
            slice.mul_(pick.lt(1.0 / 16).to(slice.scalar_type()).mul_(99.0).add_(1.0));
            break;
        }
        case Distribution::Constant: {
            // Exact binary fractions: sums of them stay exact, so any honest order of summation agrees.
            static constexpr double values[] = {0.75, -1.25, 2.5, 0.5, -0.375};
            slice.fill_(values[seed % std::size(values)]);
            break;
        }
        case Distribution::IntegerValued: slice.random_(-8, 9, generator); break;
        case Distribution::Sorted:
        case Distribution::ReverseSorted:
            slice.view({-1, row}).copy_(std::get<0>(at::empty({length / row, row}, floatOptions)
                                                        .normal_(0.0, 1.0, generator)
                                                        .sort(1, distribution == Distribution::ReverseSorted)));
            break;
        case Distribution::Ramp: {
            const double step = row > 1 ? 1.5 / double(row - 1) : 0.0;
            slice.copy_(at::arange(begin, begin + length, flat.options().dtype(at::kDouble))
                            .fmod_(double(row))
                            .mul_(step)
                            .add_(0.5));
            break;
        }
        case Distribution::Positive: slice.normal_(0.0, 1.0, generator).abs_(); break;
        case Distribution::Negative: slice.normal_(0.0, 1.0, generator).abs_().neg_(); break;
        case Distribution::Mixed: {
            slice.normal_(0.0, 1.0, generator);
            auto exponent = at::empty(slice.sizes(), floatOptions).random_(-12, 13, generator);
            slice.mul_(at::exp2(exponent).to(slice.scalar_type()));
            break;
        }
        case Distribution::Special: {
            slice.normal_(0.0, 1.0, generator);
            const float inf = std::numeric_limits<float>::infinity();
            const float max = std::numeric_limits<float>::max();
            const std::vector<float> special{0.0f,   -0.0f,   inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                                             1e-40f, -1e-40f, max, -max};
            const auto table = at::tensor(special, floatOptions);
            const auto count = std::int64_t(special.size());
            // One element in 32 takes a special value (table index below count), the rest stay.
            auto pick = at::empty(slice.sizes(), flat.options().dtype(at::kLong)).random_(0, 32 * count, generator);
            const auto chosen = pick.lt(count);
            slice.copy_(at::where(chosen, table.index_select(0, pick.clamp_max(count - 1)), slice.to(at::kFloat)));
            break;
        }
        }
    }
}

} // namespace

Status TensorOps::fillRandom(const TensorView &tensor, std::uint64_t seed, Distribution distribution, double scale)
{
    if (auto usable = checkUsable(tensor); !usable)
        return usable;
    const auto &range = tensor.valueRange;
    if (range && (isFloatingPoint(tensor.dtype) || tensor.dtype == DType::Bool || range->low >= range->high))
        return Error{std::string("random inputs: a value range [") + std::to_string(range->low) + ", "
                     + std::to_string(range->high) + ") for a " + toString(tensor.dtype) + " tensor"};
    try {
        std::lock_guard lock(generatorMutex());
        auto generator = seededGenerator(tensor, seed);
        auto t = wrap(tensor);
        if (!isFloatingPoint(tensor.dtype)) {
            if (tensor.dtype == DType::Bool)
                t.random_(0, 2, generator); // a mask: about half true
            else if (range)
                t.random_(range->low, range->high, generator);
            else
                t.random_(-1000, 1000, generator);
            return {};
        }
        auto flat = t.reshape({-1});
        fillFloating(flat, tensor.shape.empty() ? 1 : tensor.shape.back(), distribution, seed, generator);
        if (scale != 1.0)
            flat.mul_(scale);
        return {};
    } catch (const std::exception &error) {
        return Error{std::string("random inputs: ") + errorText(error)};
    }
}

Expected<bool> TensorOps::allFinite(const TensorView &tensor)
{
    if (auto usable = checkUsable(tensor); !usable)
        return usable.error();
    if (!isFloatingPoint(tensor.dtype))
        return true;
    try {
        return at::isfinite(wrap(tensor)).all().item<bool>();
    } catch (const std::exception &error) {
        return Error{std::string("finiteness check: ") + errorText(error)};
    }
}

Expected<std::uint64_t> TensorOps::fingerprint(const TensorView &tensor)
{
    if (auto usable = checkUsable(tensor); !usable)
        return usable.error();
    try {
        // Sum of each 32-bit word times an odd weight that depends on its position, and the plain sum, in
        // wrapping 64-bit arithmetic: equal bytes give equal fingerprints; a changed word changes them.
        auto words = wrapBits(tensor);
        if (words.scalar_type() == at::kLong)
            words = words.view(at::kInt);
        std::uint64_t weighted = 0;
        std::uint64_t plain = 0;
        const std::int64_t elements = words.numel();
        for (std::int64_t begin = 0; begin < elements; begin += kSliceElements / 4) {
            const auto length = std::min(kSliceElements / 4, elements - begin);
            const auto slice = words.narrow(0, begin, length).to(at::kLong);
            const auto weights = at::arange(begin, begin + length, slice.options())
                                     .mul_(std::int64_t(0x9E3779B97F4A7C15ull))
                                     .bitwise_or_(1);
            weighted += std::uint64_t(slice.mul(weights).sum().item<std::int64_t>());
            plain += std::uint64_t(slice.sum().item<std::int64_t>());
        }
        return weighted ^ (plain * 0xBF58476D1CE4E5B9ull) ^ std::uint64_t(elements);
    } catch (const std::exception &error) {
        return Error{std::string("fingerprint: ") + errorText(error)};
    }
}

Status TensorOps::applyKeystream(const TensorView &tensor, std::uint64_t key)
{
    if (auto usable = checkUsable(tensor); !usable)
        return usable;
    try {
        std::lock_guard lock(generatorMutex());
        auto generator = seededGenerator(tensor, key);
        auto words = wrapBits(tensor);
        const std::int64_t elements = words.numel();
        for (std::int64_t begin = 0; begin < elements; begin += kSliceElements) {
            auto slice = words.narrow(0, begin, std::min(kSliceElements, elements - begin));
            auto stream = at::empty(slice.sizes(), slice.options());
            if (slice.scalar_type() == at::kByte)
                stream.random_(0, 256, generator);
            else
                stream.random_(generator);
            slice.bitwise_xor_(stream);
        }
        return {};
    } catch (const std::exception &error) {
        return Error{std::string("keystream: ") + errorText(error)};
    }
}

Expected<std::vector<double>> TensorOps::sample(const TensorView &tensor, std::int64_t maxSamples)
{
    if (auto usable = checkUsable(tensor); !usable)
        return usable.error();
    try {
        const auto flat = wrap(tensor).reshape({-1});
        const std::int64_t elements = flat.numel();
        const std::int64_t stride =
            std::max<std::int64_t>(1, (elements + maxSamples - 1) / std::max<std::int64_t>(1, maxSamples));
        const auto picked = flat.slice(0, 0, elements, stride).to(at::kDouble).cpu().contiguous();
        return std::vector<double>(picked.data_ptr<double>(), picked.data_ptr<double>() + picked.numel());
    } catch (const std::exception &error) {
        return Error{std::string("sampling outputs: ") + errorText(error)};
    }
}

Expected<Comparison> TensorOps::compare(const TensorView &actual, const TensorView &expected, double atol, double rtol,
                                        std::int64_t sliceElements)
{
    if (auto usable = checkUsable(actual); !usable)
        return usable.error();
    if (auto usable = checkUsable(expected); !usable)
        return usable.error();
    // A float64 expectation (the exact answer) may check outputs of any floating type.
    const bool comparable =
        actual.dtype == expected.dtype || (expected.dtype == DType::Float64 && isFloatingPoint(actual.dtype));
    if (!comparable || actual.elementCount() != expected.elementCount())
        return Error{std::string("cannot compare ") + toString(actual.dtype) + shapeText(actual.shape) + " with "
                     + toString(expected.dtype) + shapeText(expected.shape)};
    try {
        Comparison result;
        result.elements = actual.elementCount();
        const auto a = wrap(actual).reshape({-1});
        const auto e = wrap(expected).reshape({-1});
        sliceElements = std::max<std::int64_t>(1, sliceElements);
        for (std::int64_t begin = 0; begin < result.elements; begin += sliceElements) {
            const auto length = std::min(sliceElements, result.elements - begin);
            compareSlice(a.narrow(0, begin, length), e.narrow(0, begin, length), begin, atol, rtol, result);
        }
        return result;
    } catch (const std::exception &error) {
        return Error{std::string("comparison: ") + errorText(error)};
    }
}

Expected<double> TensorOps::rootMeanSquare(const TensorView &tensor, std::int64_t sliceElements)
{
    if (auto usable = checkUsable(tensor); !usable)
        return usable.error();
    if (!isFloatingPoint(tensor.dtype))
        return 0.0;
    try {
        const auto flat = wrap(tensor).reshape({-1});
        const std::int64_t elements = flat.numel();
        sliceElements = std::max<std::int64_t>(1, sliceElements);
        double sumOfSquares = 0;
        std::int64_t finite = 0;
        for (std::int64_t begin = 0; begin < elements; begin += sliceElements) {
            const auto slice = flat.narrow(0, begin, std::min(sliceElements, elements - begin)).to(at::kDouble);
            const auto keep = at::isfinite(slice);
            sumOfSquares += slice.masked_select(keep).square().sum().item<double>();
            finite += keep.sum().item<std::int64_t>();
        }
        return finite > 0 ? std::sqrt(sumOfSquares / double(finite)) : 0.0;
    } catch (const std::exception &error) {
        return Error{std::string("root mean square: ") + errorText(error)};
    }
}

Expected<bool> TensorOps::bitEqual(const TensorView &a, const TensorView &b)
{
    if (auto usable = checkUsable(a); !usable)
        return usable.error();
    if (auto usable = checkUsable(b); !usable)
        return usable.error();
    if (a.byteCount() != b.byteCount())
        return false;
    try {
        return at::equal(wrapBits(a), wrapBits(b));
    } catch (const std::exception &error) {
        return Error{std::string("bitwise comparison: ") + errorText(error)};
    }
}

namespace {

// torch.backends.cudnn.benchmark for one library call, restored however the call ends.
class CudnnBenchmarkScope
{
public:
    explicit CudnnBenchmarkScope(bool on)
        : m_previous(at::globalContext().benchmarkCuDNN())
    {
        at::globalContext().setBenchmarkCuDNN(on);
    }
    ~CudnnBenchmarkScope() { at::globalContext().setBenchmarkCuDNN(m_previous); }
    CudnnBenchmarkScope(const CudnnBenchmarkScope &) = delete;
    CudnnBenchmarkScope &operator=(const CudnnBenchmarkScope &) = delete;

private:
    bool m_previous;
};

// A convolution operand in the memory format cuDNN runs its tensor-core kernels on: a channels-last copy of an
// input or weight of rank 4 (NHWC) or 5 (NDHWC); other tensors (bias, 1-D convolutions) as they are.
at::Tensor channelsLastOperand(const at::Tensor &tensor)
{
    if (tensor.dim() == 4)
        return tensor.contiguous(at::MemoryFormat::ChannelsLast);
    if (tensor.dim() == 5)
        return tensor.contiguous(at::MemoryFormat::ChannelsLast3d);
    return tensor;
}

// aten::_convolution takes cuDNN's switches as arguments, which a traced graph fixed when it was recorded (an imported
// problem is traced with TF32 off, so that its reference does not round). A library step runs them as the run says
// instead, as aten::conv2d and eager PyTorch's Python do: TF32 where the precision policy allows it, algorithms timed
// where the step asks (cudnnBenchmark).
void useRunSwitches(const std::vector<c10::Argument> &parameters, std::vector<c10::IValue> &stack)
{
    for (std::size_t i = 0; i < parameters.size() && i < stack.size(); ++i) {
        if (parameters[i].name() == "allow_tf32" && stack[i].isBool())
            stack[i] = at::globalContext().allowTF32CuDNN();
        else if (parameters[i].name() == "benchmark" && stack[i].isBool())
            stack[i] = at::globalContext().benchmarkCuDNN();
    }
}

} // namespace

bool TensorOps::cudnnBenchmark()
{
    return at::globalContext().benchmarkCuDNN();
}

Status TensorOps::runLibraryStep(const std::string &atenOp, const std::vector<ResolvedArg> &args,
                                 const std::vector<TensorView> &tensorArgs, bool cudnnBenchmark, bool channelsLast)
{
    if (args.size() != tensorArgs.size())
        return Error{"library step " + atenOp + ": internal argument mismatch"};
    if (channelsLast && !isConvolutionOp(atenOp))
        return Error{"library step " + atenOp + ": channels-last operands are for convolutions only"};
    // The result goes to the last output argument, or else to the last scratch buffer (a later kernel step
    // reads it, e.g. a fused epilogue after a convolution).
    int destination = -1;
    for (const auto kind : {PlanArg::Kind::Output, PlanArg::Kind::Scratch}) {
        for (std::size_t i = 0; i < args.size(); ++i)
            if (args[i].kind == kind)
                destination = int(i);
        if (destination >= 0)
            break;
    }
    if (destination < 0)
        return Error{"library step " + atenOp + " has no output or scratch argument to write its result to"};
    try {
        std::string name = atenOp;
        std::string overload;
        if (const auto dot = name.find('.'); dot != std::string::npos) {
            overload = name.substr(dot + 1);
            name.resize(dot);
        }
        const auto handle = c10::Dispatcher::singleton().findSchema(c10::OperatorName(name, overload));
        if (!handle)
            return Error{"unknown ATen op '" + atenOp + "'"};
        const auto &parameters = handle->schema().arguments();
        std::vector<c10::IValue> stack;
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (int(i) == destination)
                continue;
            // Plan numbers are ints or doubles; the schema says which the op takes (eps = 0 is an int in JSON).
            const auto type = stack.size() < parameters.size() ? parameters[stack.size()].type() : c10::TypePtr();
            const bool wantsFloat = type
                                    && (type->kind() == c10::TypeKind::FloatType
                                        || (type->kind() == c10::TypeKind::OptionalType
                                            && type->containedTypes().at(0)->kind() == c10::TypeKind::FloatType));
            const bool wantsBool = type && type->kind() == c10::TypeKind::BoolType;
            switch (args[i].kind) {
            case PlanArg::Kind::Int:
                if (wantsFloat)
                    stack.emplace_back(double(args[i].intValue));
                else if (wantsBool)
                    stack.emplace_back(args[i].intValue != 0);
                else
                    stack.emplace_back(args[i].intValue);
                break;
            case PlanArg::Kind::Float: stack.emplace_back(args[i].floatValue); break;
            case PlanArg::Kind::Ints: stack.emplace_back(std::vector<std::int64_t>(args[i].ints)); break;
            case PlanArg::Kind::Bool: stack.emplace_back(args[i].flag); break;
            case PlanArg::Kind::None: stack.emplace_back(); break;
            case PlanArg::Kind::String: stack.emplace_back(args[i].text); break;
            default:
                if (auto usable = checkUsable(tensorArgs[i]); !usable)
                    return usable;
                // A transposed argument is a strided view of the same memory: the library reads it in place.
                const auto tensor = args[i].transposed ? wrap(tensorArgs[i]).transpose(-2, -1) : wrap(tensorArgs[i]);
                stack.emplace_back(channelsLast ? channelsLastOperand(tensor) : tensor);
            }
        }
        if (stack.size() > parameters.size())
            return Error{atenOp + " takes " + std::to_string(parameters.size()) + " arguments, the plan passes "
                         + std::to_string(stack.size())};
        for (std::size_t i = stack.size(); i < parameters.size(); ++i) {
            if (!parameters[i].default_value())
                return Error{atenOp + ": argument '" + parameters[i].name() + "' has no default and is not given"};
            stack.push_back(*parameters[i].default_value());
        }
        {
            const CudnnBenchmarkScope benchmark(cudnnBenchmark);
            if (isConvolutionOp(atenOp))
                useRunSwitches(parameters, stack);
            handle->callBoxed(&stack);
        }
        if (stack.empty() || !stack.front().isTensor())
            return Error{atenOp + " returned no tensor"};
        const auto result = stack.front().toTensor();
        auto out = wrap(tensorArgs[std::size_t(destination)]);
        if (result.numel() != out.numel())
            return Error{atenOp + " returned " + std::to_string(result.numel()) + " elements, '"
                         + args[std::size_t(destination)].name + "' holds " + std::to_string(out.numel())};
        out.copy_(result.reshape(out.sizes())); // copy_ lays a channels-last result out as the destination is
        return {};
    } catch (const std::exception &error) {
        return Error{"library step " + atenOp + ": " + errorText(error)};
    }
}

} // namespace kx
