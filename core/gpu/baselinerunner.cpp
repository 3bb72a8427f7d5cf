#include "core/gpu/baselinerunner.h"

#include "core/domain/domainjson.h"
#include "core/eval/protocol.h"
#include "core/gpu/baselinebenchmark.h"
#include "core/gpu/cudaerror.h"
#include "core/gpu/gpudevice.h"
#include "core/gpu/inductorreference.h"
#include "core/gpu/reference.h"
#include "core/gpu/shaperig.h"
#include "core/gpu/tensorops.h"

#include <iostream>
#include <iterator>

namespace kx {

int runInductorPackageBaseline(const std::string &packagePath, int device, std::istream &in, std::ostream &out)
{
    const auto fail = [&](const std::string &error) {
        out << nlohmann::json{{"ok", false}, {"error", error}}.dump() << std::endl;
        return 1;
    };
    Op op;
    EvalSettings settings;
    try {
        const auto request = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
        request.at("op").get_to(op);
        request.at("settings").get_to(settings);
    } catch (const std::exception &error) {
        return fail(std::string("unreadable baseline request: ") + error.what());
    }
    if (op.shapeSets.empty())
        return fail("op '" + op.name + "' defines no shape sets");
    auto opened = GpuDevice::open(device);
    if (!opened)
        return fail(opened.error().message);
    try {
        RunTimer timer(opened->info().l2Bytes);
        auto reference = Reference::forOp(op, device);
        if (!reference)
            return fail(reference.error().message);
        auto inductor = InductorReference::load(packagePath, op, device);
        if (!inductor)
            return fail(inductor.error().message);
        auto workspace = need(ShapeWorkspace::create(op, op.shapeSets.front(), ResolvedPlan{}, device, *reference));
        auto measurement = BaselineBenchmark(op, settings, timer)
                               .run(*workspace, **inductor, BaselineKind::Inductor, baselinemethod::kAotiPackage);
        measurement.gpu = opened->info();
        out << nlohmann::json(measurement).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
        return 0;
    } catch (const std::exception &error) {
        return fail(std::string("timing the Inductor package failed: ") + error.what());
    }
}

} // namespace kx
