#include "core/domain/candidate.h"

#include "core/util/hash.h"

namespace kx {

std::string makeCandidateId(const std::string &source, const std::string &launchPlan)
{
    // A NUL separates the parts so that moving text from one to the other changes the hash.
    std::string bytes;
    bytes.reserve(source.size() + launchPlan.size() + 1);
    bytes.append(source).push_back('\0');
    bytes.append(launchPlan);
    return sha256Hex(bytes);
}

} // namespace kx
