// kx-nvrtc: runs NVRTC for kx in a process of its own, so that a compile can be stopped at a time or memory
// limit (see core/plan/nvrtcprocess.h). Reads jobs on stdin, answers on stdout; not for use by hand.
#include "core/plan/nvrtcjob.h"

int main()
{
    return kx::runNvrtcChild();
}
