#include "core/gpu/shapeworkspace.h"

#include "core/gpu/shaperig.h"
#include "core/gpu/tensorops.h"

#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

namespace kx {
namespace {

// Garbage for scratch memory, a different pattern each run: NaN, a huge finite value, and two mixed ones.
constexpr unsigned char kScratchPatterns[] = {0xFF, 0x7F, 0xC3, 0x5A};
// All-ones bytes are NaN in every floating-point format.
constexpr unsigned char kOutputPoison = 0xFF;

std::string number(double value)
{
    std::ostringstream text;
    text.precision(7);
    text << value;
    return text.str();
}

} // namespace

Expected<std::unique_ptr<ShapeWorkspace>> ShapeWorkspace::create(const Op &op, const ShapeSet &shapes,
                                                                 const ResolvedPlan &plan, int device,
                                                                 std::shared_ptr<OpReference> reference)
{
    if (!reference)
        return Error{"no reference to check candidates against"};
    auto workspace = std::unique_ptr<ShapeWorkspace>(new ShapeWorkspace);
    workspace->m_opReference = std::move(reference);
    workspace->m_device = device;
    workspace->m_shapes = shapes;
    auto inputs = layouts(op.inputs, shapes, "input ");
    if (!inputs)
        return inputs.error();
    auto outputs = layouts(op.outputs, shapes, "output ");
    if (!outputs)
        return outputs.error();
    const auto allocate = [](const std::vector<TensorLayout> &layouts) {
        std::vector<Tensor> tensors;
        for (const auto &layout : layouts)
            tensors.push_back(Tensor{layout, DeviceBuffer(layout.byteCount())});
        return tensors;
    };
    workspace->m_pristine = allocate(*inputs);
    workspace->m_inputs = allocate(*inputs);
    workspace->m_outputs = allocate(*outputs);
    workspace->m_check = allocate(*outputs);
    workspace->m_firstRun = allocate(*outputs);
    workspace->m_previousOutputs = allocate(*outputs);
    for (const auto &[name, bytes] : plan.scratchBytes)
        workspace->m_scratch.push_back(Scratch{name, DeviceBuffer(bytes)});
    return workspace;
}

Expected<std::vector<TensorLayout>> ShapeWorkspace::layouts(const std::vector<TensorSpec> &specs,
                                                            const ShapeSet &shapes, const std::string &what)
{
    std::vector<TensorLayout> result;
    for (const auto &spec : specs) {
        auto layout = resolveLayout(spec, shapes);
        if (!layout)
            return Error{what + layout.error().message};
        result.push_back(*layout);
    }
    return result;
}

Status ShapeWorkspace::checkLayouts(const Op &op, const ShapeSet &shapes)
{
    if (auto inputs = layouts(op.inputs, shapes, "input "); !inputs)
        return inputs.error();
    if (auto outputs = layouts(op.outputs, shapes, "output "); !outputs)
        return outputs.error();
    return {};
}

std::string ShapeWorkspace::shapesText() const
{
    std::string text;
    for (const auto &[symbol, size] : m_shapes)
        text += (text.empty() ? "" : ", ") + symbol + "=" + std::to_string(size);
    return text;
}

Status ShapeWorkspace::generateInputs(std::uint64_t seed, Distribution distribution, double scale)
{
    for (std::size_t i = 0; i < m_pristine.size(); ++i) {
        // Each input its own stream of numbers: a+b must not see a == b.
        if (auto status = TensorOps::fillRandom(m_pristine[i].view(m_device), seed * 64 + i, distribution, scale);
            !status)
            return status;
    }
    return {};
}

Expected<bool> ShapeWorkspace::inputsFinite() const
{
    for (const auto &tensor : m_pristine) {
        auto finite = TensorOps::allFinite(tensor.view(m_device));
        if (!finite || !*finite)
            return finite;
    }
    return true;
}

std::vector<TensorView> ShapeWorkspace::views(const std::vector<Tensor> &tensors) const
{
    std::vector<TensorView> result;
    for (const auto &tensor : tensors)
        result.push_back(tensor.view(m_device));
    return result;
}

namespace {
std::uint64_t randomKey()
{
    static thread_local std::mt19937_64 engine{std::random_device{}()};
    return engine();
}
} // namespace

ShapeWorkspace::Sealed &ShapeWorkspace::slot(std::vector<std::optional<Sealed>> &slots, int index)
{
    if (index < 0)
        throw std::invalid_argument("negative reference slot");
    if (std::size_t(index) >= slots.size())
        slots.resize(std::size_t(index) + 1);
    auto &sealed = slots[std::size_t(index)];
    if (!sealed) {
        sealed.emplace();
        for (const auto &tensor : m_outputs)
            sealed->tensors.push_back(Tensor{tensor.layout, DeviceBuffer(tensor.layout.byteCount())});
    }
    return *sealed;
}

void ShapeWorkspace::seal(Sealed &sealed)
{
    sealed.key = randomKey();
    for (const auto &tensor : sealed.tensors)
        need(TensorOps::applyKeystream(tensor.view(m_device), sealed.key));
}

void ShapeWorkspace::unsealIntoCheck(const Sealed &sealed)
{
    for (std::size_t i = 0; i < m_check.size(); ++i) {
        m_check[i].buffer.copyFrom(sealed.tensors[i].buffer);
        need(TensorOps::applyKeystream(m_check[i].view(m_device), sealed.key));
    }
}

void ShapeWorkspace::poisonCheck()
{
    for (const auto &tensor : m_check)
        tensor.buffer.fill(kOutputPoison);
}

Status ShapeWorkspace::runReference(int index)
{
    auto &sealed = slot(m_references, index);
    const auto expected = views(sealed.tensors);
    if (Status ran = m_opReference->run(pristineInputs(), expected); !ran)
        return ran;
    try {
        m_referenceScale = 0;
        m_referenceFinite = true;
        m_referenceFingerprint = 0;
        for (const auto &view : expected) {
            m_referenceScale = std::max(m_referenceScale, need(TensorOps::rootMeanSquare(view)));
            m_referenceFinite = m_referenceFinite && need(TensorOps::allFinite(view));
            m_referenceFingerprint = m_referenceFingerprint * 0x100000001B3ull ^ need(TensorOps::fingerprint(view));
        }
        seal(sealed);
    } catch (const std::runtime_error &error) {
        return Error{error.what()};
    }
    // LibTorch's cached blocks held the answer too: back to the driver with them.
    TensorOps::releaseCachedMemory();
    return {};
}

Expected<std::vector<std::vector<double>>> ShapeWorkspace::sampleEach(const std::vector<TensorView> &views,
                                                                      std::int64_t maxSamples)
{
    std::vector<std::vector<double>> samples;
    for (const auto &view : views) {
        auto sample = TensorOps::sample(view, maxSamples);
        if (!sample)
            return sample.error();
        samples.push_back(std::move(*sample));
    }
    return samples;
}

Expected<std::vector<ShapeWorkspace::Tensor>> ShapeWorkspace::runExact()
{
    std::vector<Tensor> exact;
    for (const auto &tensor : m_outputs) {
        auto layout = tensor.layout;
        layout.dtype = DType::Float64;
        exact.push_back(Tensor{layout, DeviceBuffer(layout.byteCount())});
    }
    if (auto ran = m_opReference->runInDouble(pristineInputs(), views(exact)); !ran) {
        releaseExact(exact);
        return ran.error();
    }
    return exact;
}

void ShapeWorkspace::releaseExact(std::vector<Tensor> &exact)
{
    for (const auto &tensor : exact)
        tensor.buffer.fill(kOutputPoison);
    exact.clear();
    TensorOps::releaseCachedMemory();
}

Expected<std::vector<std::vector<double>>> ShapeWorkspace::exactSample(std::int64_t maxSamples)
{
    auto exact = runExact();
    if (!exact)
        return exact.error();
    auto samples = sampleEach(views(*exact), maxSamples);
    releaseExact(*exact);
    return samples;
}

Expected<ShapeWorkspace::ExactCheck> ShapeWorkspace::checkAgainstExact(double atol, double rtol, bool baselineInTf32)
{
    if (m_references.empty() || !m_references.front())
        return Error{"no reference outputs (the reference has not run)"};
    auto exact = runExact();
    if (!exact)
        return exact.error();
    auto candidate = compareOutputs(m_outputs, *exact, atol, rtol, "the float64 answer");
    Status baselineRan;
    if (baselineInTf32) {
        // Eager PyTorch as the policy lets it run: the reference with TF32 allowed, into the check buffers.
        const Tf32Scope tf32(true);
        baselineRan = m_opReference->runEagerInto(pristineInputs(), views(m_check));
    } else {
        unsealIntoCheck(*m_references.front());
    }
    auto baseline = baselineRan ? compareOutputs(m_check, *exact, atol, rtol, "the float64 answer")
                                : Expected<OutputCheck>(baselineRan.error());
    poisonCheck();
    releaseExact(*exact);
    if (!candidate)
        return candidate.error();
    if (!baseline)
        return baseline.error();
    return ExactCheck{std::move(*candidate), std::move(*baseline)};
}

Expected<std::vector<std::vector<double>>> ShapeWorkspace::referenceSample(std::int64_t maxSamples)
{
    if (m_references.empty() || !m_references.front())
        return Error{"no reference outputs (the reference has not run)"};
    unsealIntoCheck(*m_references.front());
    auto samples = sampleEach(views(m_check), maxSamples);
    poisonCheck();
    return samples;
}

Expected<std::vector<std::vector<double>>> ShapeWorkspace::outputSample(std::int64_t maxSamples) const
{
    return sampleEach(views(m_outputs), maxSamples);
}

Expected<std::vector<std::vector<double>>> ShapeWorkspace::tf32EagerSample(std::int64_t maxSamples)
{
    // The check buffers have the outputs' layouts, so sampleEach() picks the same elements as outputSample().
    Status ran;
    {
        const Tf32Scope tf32(true);
        ran = m_opReference->runEagerInto(pristineInputs(), views(m_check));
    }
    auto samples =
        ran ? sampleEach(views(m_check), maxSamples) : Expected<std::vector<std::vector<double>>>(ran.error());
    poisonCheck();
    TensorOps::releaseCachedMemory();
    return samples;
}

Status ShapeWorkspace::runReferenceEager()
{
    return m_opReference->runEager(pristineInputs());
}

Status ShapeWorkspace::runIntoOutputs(OpReference &implementation)
{
    return implementation.run(pristineInputs(), views(m_outputs));
}

std::vector<TensorView> ShapeWorkspace::pristineInputs() const
{
    return views(m_pristine);
}

void ShapeWorkspace::copyInputsForCandidate()
{
    for (std::size_t i = 0; i < m_inputs.size(); ++i)
        m_inputs[i].buffer.copyFrom(m_pristine[i].buffer);
}

void ShapeWorkspace::prepareRun(int round)
{
    for (const auto &tensor : m_outputs) {
        tensor.buffer.fill(kOutputPoison);
        tensor.buffer.armGuard();
    }
    const auto pattern = kScratchPatterns[std::size_t(round) % std::size(kScratchPatterns)];
    for (const auto &scratch : m_scratch) {
        scratch.buffer.fill(pattern);
        scratch.buffer.armGuard();
    }
    for (const auto &tensor : m_inputs)
        tensor.buffer.armGuard();
}

PlanBindings ShapeWorkspace::bindings() const
{
    PlanBindings bindings;
    for (const auto &tensor : m_inputs)
        bindings.tensors[tensor.layout.name] = tensor.view(m_device);
    for (const auto &tensor : m_outputs)
        bindings.tensors[tensor.layout.name] = tensor.view(m_device);
    for (const auto &scratch : m_scratch)
        bindings.scratch[scratch.name] =
            TensorView{scratch.buffer.data(), {scratch.buffer.bytes() / 4}, DType::Float32, m_device};
    return bindings;
}

Expected<std::optional<std::string>> ShapeWorkspace::checkIntegrity() const
{
    for (std::size_t i = 0; i < m_inputs.size(); ++i) {
        auto same = TensorOps::bitEqual(m_inputs[i].view(m_device), m_pristine[i].view(m_device));
        if (!same)
            return same.error();
        if (!*same)
            return std::optional<std::string>("modified its input " + m_inputs[i].layout.name);
        if (!m_inputs[i].buffer.guardIntact())
            return std::optional<std::string>("wrote past the end of input " + m_inputs[i].layout.name);
    }
    for (const auto &tensor : m_outputs) {
        if (!tensor.buffer.guardIntact())
            return std::optional<std::string>("wrote past the end of output " + tensor.layout.name);
    }
    for (const auto &scratch : m_scratch) {
        if (!scratch.buffer.guardIntact())
            return std::optional<std::string>("wrote past the end of scratch buffer " + scratch.name);
    }
    return std::optional<std::string>();
}

Expected<ShapeWorkspace::OutputCheck> ShapeWorkspace::compareOutputs(const std::vector<Tensor> &actual,
                                                                     const std::vector<Tensor> &expected, double atol,
                                                                     double rtol, const char *expectedWhat) const
{
    OutputCheck check;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        auto comparison = TensorOps::compare(actual[i].view(m_device), expected[i].view(m_device), atol, rtol);
        if (!comparison)
            return comparison.error();
        check.maxAbsError = std::max(check.maxAbsError, comparison->maxAbsError);
        check.maxRelError = std::max(check.maxRelError, comparison->maxRelError);
        check.mismatches += comparison->mismatches;
        if (comparison->mismatches > 0 && check.failure.empty()) {
            check.failure = "output " + actual[i].layout.name + " differs from " + expectedWhat + " at "
                            + std::to_string(comparison->mismatches) + " of " + std::to_string(comparison->elements)
                            + " elements; first at index " + std::to_string(comparison->firstMismatch) + ": got "
                            + number(comparison->actualAtFirst) + ", expected " + number(comparison->expectedAtFirst)
                            + " (atol " + number(atol) + ", rtol " + number(rtol) + ")";
        }
    }
    return check;
}

Expected<ShapeWorkspace::OutputCheck> ShapeWorkspace::checkOutputs(double atol, double rtol, int index)
{
    if (index < 0 || std::size_t(index) >= m_references.size() || !m_references[std::size_t(index)])
        return Error{"no reference outputs to check against (the reference has not run)"};
    unsealIntoCheck(*m_references[std::size_t(index)]);
    auto check = compareOutputs(m_outputs, m_check, atol, rtol, "the reference");
    poisonCheck();
    return check;
}

void ShapeWorkspace::keepVerified(int index)
{
    auto &verified = slot(m_verified, index);
    for (std::size_t i = 0; i < m_outputs.size(); ++i)
        verified.tensors[i].buffer.copyFrom(m_outputs[i].buffer);
    seal(verified);
}

Expected<bool> ShapeWorkspace::sameAsVerified(int index)
{
    if (index < 0 || std::size_t(index) >= m_verified.size() || !m_verified[std::size_t(index)])
        return false;
    const auto &verified = *m_verified[std::size_t(index)];
    // Seal a copy of the outputs with the same key: equal sealed bytes, equal outputs.
    for (std::size_t i = 0; i < m_check.size(); ++i) {
        m_check[i].buffer.copyFrom(m_outputs[i].buffer);
        if (auto sealed = TensorOps::applyKeystream(m_check[i].view(m_device), verified.key); !sealed)
            return sealed.error();
    }
    auto same = allBitEqual(m_check, verified.tensors);
    poisonCheck();
    return same;
}

void ShapeWorkspace::keepFirstRun()
{
    for (std::size_t i = 0; i < m_outputs.size(); ++i)
        m_firstRun[i].buffer.copyFrom(m_outputs[i].buffer);
}

Expected<bool> ShapeWorkspace::allBitEqual(const std::vector<Tensor> &a, const std::vector<Tensor> &b) const
{
    for (std::size_t i = 0; i < a.size(); ++i) {
        auto same = TensorOps::bitEqual(a[i].view(m_device), b[i].view(m_device));
        if (!same || !*same)
            return same;
    }
    return true;
}

Expected<bool> ShapeWorkspace::sameAsFirstRun() const
{
    return allBitEqual(m_outputs, m_firstRun);
}

Expected<ShapeWorkspace::OutputCheck> ShapeWorkspace::compareWithFirstRun(double atol, double rtol) const
{
    return compareOutputs(m_outputs, m_firstRun, atol, rtol, "the first run on the same inputs");
}

void ShapeWorkspace::keepAsPrevious(int trial)
{
    for (std::size_t i = 0; i < m_outputs.size(); ++i)
        m_previousOutputs[i].buffer.copyFrom(m_firstRun[i].buffer);
    m_previousReferenceFingerprint = m_referenceFingerprint;
    m_previousTrial = trial;
}

Expected<bool> ShapeWorkspace::outputsSameAsPrevious() const
{
    return allBitEqual(m_firstRun, m_previousOutputs);
}

std::int64_t ShapeWorkspace::inputBytes() const
{
    std::int64_t bytes = 0;
    for (const auto &tensor : m_inputs)
        bytes += tensor.layout.byteCount();
    return bytes;
}

std::int64_t ShapeWorkspace::outputBytes() const
{
    std::int64_t bytes = 0;
    for (const auto &tensor : m_outputs)
        bytes += tensor.layout.byteCount();
    return bytes;
}

} // namespace kx
