// Stand-ins for builds without LibTorch: the evaluator then reports that it cannot check candidates.
#include "core/gpu/inductorreference.h"
#include "core/gpu/reference.h"
#include "core/gpu/scriptedreference.h"
#include "core/gpu/tensorops.h"

namespace kx {
namespace {
Error noTorch()
{
    return Error{"this build has no LibTorch: candidates cannot be checked against references"};
}
} // namespace

bool TensorOps::haveTorch()
{
    return false;
}
bool TensorOps::haveCuda()
{
    return false;
}
std::string TensorOps::torchVersion()
{
    return {};
}
void TensorOps::releaseCachedMemory() {}
void TensorOps::setTf32Allowed(bool) {}
bool TensorOps::tf32Allowed()
{
    return false;
}
Status TensorOps::fillRandom(const TensorView &, std::uint64_t, Distribution, double)
{
    return noTorch();
}
Expected<bool> TensorOps::allFinite(const TensorView &)
{
    return noTorch();
}
Expected<std::uint64_t> TensorOps::fingerprint(const TensorView &)
{
    return noTorch();
}
Status TensorOps::applyKeystream(const TensorView &, std::uint64_t)
{
    return noTorch();
}
Expected<std::vector<double>> TensorOps::sample(const TensorView &, std::int64_t)
{
    return noTorch();
}
Expected<Comparison> TensorOps::compare(const TensorView &, const TensorView &, double, double, std::int64_t)
{
    return noTorch();
}
Expected<bool> TensorOps::bitEqual(const TensorView &, const TensorView &)
{
    return noTorch();
}
Expected<double> TensorOps::rootMeanSquare(const TensorView &, std::int64_t)
{
    return noTorch();
}
Status TensorOps::runLibraryStep(const std::string &, const std::vector<ResolvedArg> &, const std::vector<TensorView> &,
                                 bool, bool)
{
    return noTorch();
}
bool TensorOps::cudnnBenchmark()
{
    return false;
}

bool Reference::has(const std::string &)
{
    return false;
}
std::vector<std::string> Reference::names()
{
    return {};
}
Status Reference::run(const std::string &, const std::vector<TensorView> &, const std::vector<TensorView> &)
{
    return noTorch();
}
Status Reference::runEager(const std::string &, const std::vector<TensorView> &)
{
    return noTorch();
}
Status Reference::runEagerInto(const std::string &, const std::vector<TensorView> &, const std::vector<TensorView> &)
{
    return noTorch();
}
bool Reference::has(const Op &)
{
    return false;
}
Expected<std::shared_ptr<OpReference>> Reference::forOp(const Op &, int)
{
    return noTorch();
}

class ScriptedReference::Private
{};
ScriptedReference::ScriptedReference(std::unique_ptr<Private> d)
    : d(std::move(d))
{}
ScriptedReference::~ScriptedReference() = default;
Expected<std::shared_ptr<ScriptedReference>> ScriptedReference::load(const Op &, int)
{
    return noTorch();
}
Status ScriptedReference::run(const std::vector<TensorView> &, const std::vector<TensorView> &)
{
    return noTorch();
}
Status ScriptedReference::runEager(const std::vector<TensorView> &)
{
    return noTorch();
}
Status ScriptedReference::runEagerInto(const std::vector<TensorView> &, const std::vector<TensorView> &)
{
    return noTorch();
}
Status ScriptedReference::runInDouble(const std::vector<TensorView> &, const std::vector<TensorView> &)
{
    return noTorch();
}
std::size_t ScriptedReference::loadedModuleCount()
{
    return 0;
}

class InductorReference::Private
{};
InductorReference::InductorReference(std::unique_ptr<Private> d)
    : d(std::move(d))
{}
InductorReference::~InductorReference() = default;
std::string InductorReference::unavailableReason()
{
    return noTorch().message;
}
Expected<std::shared_ptr<InductorReference>> InductorReference::load(const std::string &, const Op &, int)
{
    return noTorch();
}
Status InductorReference::run(const std::vector<TensorView> &, const std::vector<TensorView> &)
{
    return noTorch();
}
Status InductorReference::runEager(const std::vector<TensorView> &)
{
    return noTorch();
}

} // namespace kx
