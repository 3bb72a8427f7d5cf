#pragma once

#include "core/domain/op.h"
#include "core/eval/launchplan.h"
#include "core/gpu/devicebuffer.h"
#include "core/gpu/opreference.h"
#include "core/gpu/planlauncher.h"
#include "core/gpu/tensorview.h"
#include "core/util/expected.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/// Reference outputs kept on the host, one byte vector per output: out of every kernel's reach.
using HostOutputs = std::vector<std::vector<unsigned char>>;

/**
 * The device memory for checking and timing a candidate on one shape set. The reference reads the
 * pristine inputs; the candidate gets copies of the inputs, NaN-filled outputs and garbage-filled scratch,
 * each followed by a guard zone of random length and content.
 *
 * The reference's outputs never stay in device memory while a candidate runs: they are copied to the host
 * and the device copy is overwritten (and LibTorch's cached blocks are given back to the driver) right after
 * the reference ran; a check brings them back into that buffer and overwrites it again afterwards. A kernel
 * that searches memory for the expected answer finds nothing to copy.
 */
class ShapeWorkspace
{
public:
    /// Lays out the op's tensors for these shapes and allocates them; reference computes the expected outputs.
    /// Throws CudaFailure when memory runs out.
    static Expected<std::unique_ptr<ShapeWorkspace>> create(const Op &op, const ShapeSet &shapes,
                                                            const ResolvedPlan &plan, int device,
                                                            std::shared_ptr<OpReference> reference);

    /// The checks create() makes before allocating anything: every tensor's shape resolves on these shapes.
    static Status checkLayouts(const Op &op, const ShapeSet &shapes);

    const ShapeSet &shapes() const { return m_shapes; }
    std::string shapesText() const;                    ///< "N=1000003, D=64"

    /// Fills the pristine inputs; floating-point values are multiplied by scale.
    Status generateInputs(std::uint64_t seed, Distribution distribution, double scale = 1.0);
    /// Whether every pristine input is finite.
    Expected<bool> inputsFinite() const;
    /// Runs the reference on the pristine inputs; keeps its outputs on the host (see reference()) with their
    /// size (referenceScale()) and finiteness (referenceFinite()).
    Status runReference();
    const HostOutputs &reference() const { return m_referenceHost; }
    bool referenceFinite() const { return m_referenceFinite; }
    /// Runs the reference in float64 (floating-point inputs converted) and returns up to maxSamples elements
    /// of each output at an even stride: the exact answer the error profile is measured against.
    Expected<std::vector<std::vector<double>>> exactSample(std::int64_t maxSamples);
    /// The same elements of the fp32 reference's outputs and of the candidate's.
    Expected<std::vector<std::vector<double>>> referenceSample(std::int64_t maxSamples);
    Expected<std::vector<std::vector<double>>> outputSample(std::int64_t maxSamples) const;
    /// Runs the reference on the pristine inputs as eager PyTorch does (timing).
    Status runReferenceEager();
    std::vector<TensorView> pristineInputs() const;
    /// Runs another implementation of the op (a baseline) on the pristine inputs into the candidate's outputs, so
    /// that checkOutputs() compares it with the reference.
    Status runIntoOutputs(OpReference &implementation);

    /// Gives the candidate fresh copies of the pristine inputs.
    void copyInputsForCandidate();
    /// Before every candidate run: NaN outputs, scratch filled with garbage pattern `round`, guards armed.
    void prepareRun(int round);
    PlanBindings bindings() const;

    /// After a candidate run: inputs bit-identical to the pristine ones, every guard intact. Returns the failure.
    Expected<std::optional<std::string>> checkIntegrity() const;

    /// Compares the candidate's outputs with the reference; failure text names the first bad output.
    struct OutputCheck
    {
        double maxAbsError = 0;
        double maxRelError = 0;
        std::int64_t mismatches = 0;
        std::string failure;
    };
    Expected<OutputCheck> checkOutputs(double atol, double rtol);
    /// The same against reference outputs kept from an earlier runReference() (another input set).
    Expected<OutputCheck> checkOutputsAgainst(const HostOutputs &reference, double atol, double rtol);
    /// The largest root mean square of the reference outputs: how large this trial's results are.
    double referenceScale() const { return m_referenceScale; }
    /// A digest of the candidate's outputs: equal outputs, equal fingerprints.
    Expected<std::uint64_t> outputsFingerprint() const;

    void keepFirstRun();                                ///< Copies the outputs aside (determinism check).
    Expected<bool> sameAsFirstRun() const;              ///< Bit-exact.
    Expected<OutputCheck> compareWithFirstRun(double atol, double rtol) const;

    /// Input sensitivity: outputs and reference of the last trial on these shapes, to compare the next one with.
    void keepAsPrevious(int trial);
    int previousTrial() const { return m_previousTrial; }
    Expected<bool> outputsSameAsPrevious() const;
    bool referenceSameAsPrevious() const { return m_referenceHost == m_previousReferenceHost; }

private:
    struct Tensor
    {
        TensorLayout layout;
        DeviceBuffer buffer;
        TensorView view(int device) const { return layout.view(buffer.data(), device); }
    };
    struct Scratch
    {
        std::string name;
        DeviceBuffer buffer;
    };

    static Expected<std::vector<TensorLayout>> layouts(const std::vector<TensorSpec> &specs, const ShapeSet &shapes,
                                                       const std::string &what);
    Expected<OutputCheck> compareOutputs(const std::vector<Tensor> &actual, const std::vector<Tensor> &expected,
                                         double atol, double rtol, const char *expectedWhat) const;
    Expected<bool> allBitEqual(const std::vector<Tensor> &a, const std::vector<Tensor> &b) const;
    static Expected<std::vector<std::vector<double>>> sampleEach(const std::vector<TensorView> &views,
                                                                 std::int64_t maxSamples);
    std::vector<TensorView> views(const std::vector<Tensor> &tensors) const;
    /// Overwrites the device copy of the reference's outputs.
    void poisonExpected();

    int m_device = 0;
    ShapeSet m_shapes;
    std::shared_ptr<OpReference> m_opReference;
    std::vector<Tensor> m_pristine;
    std::vector<Tensor> m_inputs;           // the candidate's copies
    std::vector<Tensor> m_expected;         // the reference's outputs, only while it runs or a check runs
    HostOutputs m_referenceHost;
    double m_referenceScale = 0;
    bool m_referenceFinite = true;
    std::vector<Tensor> m_outputs;
    std::vector<Tensor> m_firstRun;
    std::vector<Tensor> m_previousOutputs;
    HostOutputs m_previousReferenceHost;
    std::vector<Scratch> m_scratch;
    int m_previousTrial = -1;
};

} // namespace kx
