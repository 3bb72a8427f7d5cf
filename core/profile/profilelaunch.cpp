#include "core/profile/profilelaunch.h"

#include "core/domain/domainjson.h"

#include <nlohmann/json.hpp>

namespace kx {

void to_json(nlohmann::json &j, const ProfileLaunchRequest &v)
{
    j = {{"op", v.op},
         {"candidate", v.candidate},
         {"precision", toString(v.precision)},
         {"seed", v.seed},
         {"warmupRuns", v.warmupRuns}};
}

void from_json(const nlohmann::json &j, ProfileLaunchRequest &v)
{
    j.at("op").get_to(v.op);
    j.at("candidate").get_to(v.candidate);
    v.precision = precisionFromString(j.value("precision", std::string("fp32")));
    v.seed = j.value("seed", std::uint64_t(0));
    v.warmupRuns = j.value("warmupRuns", 3);
}

void to_json(nlohmann::json &j, const ProfileLaunchResult &v)
{
    j = {{"gpu", v.gpu}, {"error", v.error.message}, {"errorKind", toString(v.error.kind)}, {"check", v.check}};
}

void from_json(const nlohmann::json &j, ProfileLaunchResult &v)
{
    if (j.contains("gpu"))
        j.at("gpu").get_to(v.gpu);
    v.error.message = j.value("error", std::string());
    v.error.kind = errorKindFromString(j.value("errorKind", std::string())).value_or(ErrorKind::Failed);
    v.check = j.value("check", std::string());
}

} // namespace kx
