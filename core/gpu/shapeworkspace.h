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

/**
 * The device memory for checking and timing a candidate on one shape set. The reference reads the
 * pristine inputs and writes its own outputs; the candidate gets copies of the inputs, NaN-filled outputs
 * and garbage-filled scratch, each followed by a guard zone.
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

    Status generateInputs(std::uint64_t seed, Distribution distribution);
    /// Runs the reference on the pristine inputs into the reference outputs.
    Status runReference();
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
    Expected<OutputCheck> checkOutputs(double atol, double rtol) const;
    /// The largest root mean square of the reference outputs: how large this trial's results are.
    Expected<double> referenceScale() const;

    void keepFirstRun();                                ///< Copies the outputs aside (determinism check).
    Expected<bool> sameAsFirstRun() const;              ///< Bit-exact.
    Expected<OutputCheck> compareWithFirstRun(double atol, double rtol) const;

    /// Input sensitivity: outputs and reference of the last trial on these shapes, to compare the next one with.
    void keepAsPrevious(int trial);
    int previousTrial() const { return m_previousTrial; }
    Expected<bool> outputsSameAsPrevious() const;
    Expected<bool> referenceSameAsPrevious() const;

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

    int m_device = 0;
    ShapeSet m_shapes;
    std::shared_ptr<OpReference> m_opReference;
    std::vector<Tensor> m_pristine;
    std::vector<Tensor> m_inputs;           // the candidate's copies
    std::vector<Tensor> m_reference;
    std::vector<Tensor> m_outputs;
    std::vector<Tensor> m_firstRun;
    std::vector<Tensor> m_previousOutputs;
    std::vector<Tensor> m_previousReference;
    std::vector<Scratch> m_scratch;
    int m_previousTrial = -1;
};

} // namespace kx
