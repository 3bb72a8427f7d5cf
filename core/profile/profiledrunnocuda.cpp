// The profiled child of a build without the CUDA toolkit: it says that it cannot run anything.
#include "core/profile/profilelaunch.h"

namespace kx {

ProfileLaunchResult runProfiledLaunch(const ProfileLaunchRequest &, ProfileTarget, int)
{
    ProfileLaunchResult result;
    result.error = Error::noGpu("no GPU: this build has no CUDA support");
    return result;
}

} // namespace kx
