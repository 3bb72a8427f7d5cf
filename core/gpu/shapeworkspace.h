#pragma once

#include "core/domain/op.h"
#include "core/gpu/devicebuffer.h"
#include "core/gpu/opreference.h"
#include "core/gpu/planlauncher.h"
#include "core/gpu/tensorview.h"
#include "core/plan/launchplan.h"
#include "core/util/expected.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/**
 * The device memory for checking and timing a candidate on one shape set. The reference reads the
 * pristine inputs; the candidate gets copies of the inputs, NaN-filled outputs and garbage-filled scratch,
 * each followed by a guard zone of random length and content.
 *
 * The reference's outputs never lie in device memory as they are while a candidate runs: right after the
 * reference ran they are sealed (XORed with a keystream from a random key that only the host knows) and
 * LibTorch's cached blocks, which held them too, go back to the driver; a check unseals a copy into a
 * buffer of its own and overwrites that buffer afterwards. Outputs already checked are kept sealed the same
 * way. A kernel that searches memory for the expected answer finds nothing it can recognize or use.
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
    std::string shapesText() const; ///< "N=1000003, D=64"

    /// Fills the pristine inputs; floating-point values are multiplied by scale.
    Status generateInputs(std::uint64_t seed, Distribution distribution, double scale = 1.0);
    /// Whether every pristine input is finite.
    Expected<bool> inputsFinite() const;
    /// Runs the reference on the pristine inputs and keeps its outputs sealed in reference slot `slot` (several
    /// input sets keep one each), with their size (referenceScale()) and finiteness (referenceFinite()).
    Status runReference(int slot = 0);
    bool referenceFinite() const { return m_referenceFinite; }
    /// Runs the reference in float64 (floating-point inputs converted) and returns up to maxSamples elements
    /// of each output at an even stride: the exact answer the error profile is measured against.
    Expected<std::vector<std::vector<double>>> exactSample(std::int64_t maxSamples);
    /// The same elements of the fp32 reference's outputs (slot 0) and of the candidate's.
    Expected<std::vector<std::vector<double>>> referenceSample(std::int64_t maxSamples);
    Expected<std::vector<std::vector<double>>> outputSample(std::int64_t maxSamples) const;
    /// The same elements of eager's outputs with TF32 allowed (the reference run again on the pristine inputs).
    Expected<std::vector<std::vector<double>>> tf32EagerSample(std::int64_t maxSamples);
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
    /// Against the reference kept in `slot`.
    Expected<OutputCheck> checkOutputs(double atol, double rtol, int slot = 0);
    /// The candidate's outputs and eager's, each against a float64 run of the reference on the pristine inputs
    /// (an error where the reference cannot run in float64). Eager is the fp32 reference (slot 0), or with
    /// baselineInTf32 the reference run again with TF32 allowed, as eager runs under a policy that allows it.
    struct ExactCheck
    {
        OutputCheck candidate;
        OutputCheck baseline;
    };
    Expected<ExactCheck> checkAgainstExact(double atol, double rtol, bool baselineInTf32);
    /// The largest root mean square of the reference outputs: how large this trial's results are.
    double referenceScale() const { return m_referenceScale; }
    std::int64_t inputBytes() const;  ///< Of one copy of the inputs.
    std::int64_t outputBytes() const; ///< Of one copy of the outputs.
    /// Keeps the candidate's outputs (sealed) as those already checked against reference slot `slot` ...
    void keepVerified(int slot);
    /// ... and tells whether the outputs now are bit-identical to them (false when none were kept).
    Expected<bool> sameAsVerified(int slot);

    void keepFirstRun();                   ///< Copies the outputs aside (determinism check).
    Expected<bool> sameAsFirstRun() const; ///< Bit-exact.
    Expected<OutputCheck> compareWithFirstRun(double atol, double rtol) const;

    /// Input sensitivity: outputs and reference of the last trial on these shapes, to compare the next one with.
    void keepAsPrevious(int trial);
    int previousTrial() const { return m_previousTrial; }
    Expected<bool> outputsSameAsPrevious() const;
    bool referenceSameAsPrevious() const { return m_referenceFingerprint == m_previousReferenceFingerprint; }

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
    /// The outputs of a float64 run of the reference on the pristine inputs; releaseExact() poisons and frees them.
    Expected<std::vector<Tensor>> runExact();
    static void releaseExact(std::vector<Tensor> &exact);
    Expected<bool> allBitEqual(const std::vector<Tensor> &a, const std::vector<Tensor> &b) const;
    static Expected<std::vector<std::vector<double>>> sampleEach(const std::vector<TensorView> &views,
                                                                 std::int64_t maxSamples);
    std::vector<TensorView> views(const std::vector<Tensor> &tensors) const;
    /// Output-shaped buffers sealed with their own key.
    struct Sealed
    {
        std::vector<Tensor> tensors;
        std::uint64_t key = 0;
    };
    Sealed &slot(std::vector<std::optional<Sealed>> &slots, int index);
    void seal(Sealed &sealed);
    /// Copies sealed outputs into the check buffers and unseals them there; poisonCheck() overwrites them.
    void unsealIntoCheck(const Sealed &sealed);
    void poisonCheck();

    int m_device = 0;
    ShapeSet m_shapes;
    std::shared_ptr<OpReference> m_opReference;
    std::vector<Tensor> m_pristine;
    std::vector<Tensor> m_inputs;                    // the candidate's copies
    std::vector<std::optional<Sealed>> m_references; // per slot
    std::vector<std::optional<Sealed>> m_verified;   // per slot: outputs that passed the check against it
    std::vector<Tensor> m_check;                     // unsealed reference or outputs, only while a check runs
    double m_referenceScale = 0;
    bool m_referenceFinite = true;
    std::uint64_t m_referenceFingerprint = 0;
    std::uint64_t m_previousReferenceFingerprint = 1;
    std::vector<Tensor> m_outputs;
    std::vector<Tensor> m_firstRun;
    std::vector<Tensor> m_previousOutputs;
    std::vector<Scratch> m_scratch;
    int m_previousTrial = -1;
};

} // namespace kx
