// kx-nvrtc's side of NVRTC compiles: one job after another from stdin, each answered on stdout.
#include "core/plan/nvrtcjob.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if KX_HAVE_CUDA
#include <nvrtc.h>
#endif

namespace kx {
namespace {

#if KX_HAVE_CUDA

// Destroys the program on every return path.
class Program
{
public:
    ~Program()
    {
        if (m_program)
            nvrtcDestroyProgram(&m_program);
    }
    nvrtcProgram *address() { return &m_program; }
    nvrtcProgram get() const { return m_program; }

private:
    nvrtcProgram m_program = nullptr;
};

std::string programLog(nvrtcProgram program)
{
    std::size_t size = 0;
    if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1)
        return {};
    std::string log(size, '\0');
    nvrtcGetProgramLog(program, log.data());
    log.resize(log.find_last_not_of(std::string("\0\n", 2)) + 1);
    return log;
}

std::string cubinOf(nvrtcProgram program)
{
    std::size_t size = 0;
    if (nvrtcGetCUBINSize(program, &size) != NVRTC_SUCCESS || size == 0)
        return {};
    std::string cubin(size, '\0');
    if (nvrtcGetCUBIN(program, cubin.data()) != NVRTC_SUCCESS)
        return {};
    return cubin;
}

std::string ptxOf(nvrtcProgram program)
{
    std::size_t size = 0;
    if (nvrtcGetPTXSize(program, &size) != NVRTC_SUCCESS || size <= 1)
        return {};
    std::string ptx(size, '\0');
    if (nvrtcGetPTX(program, ptx.data()) != NVRTC_SUCCESS)
        return {};
    ptx.resize(size - 1); // The size counts the terminating NUL.
    return ptx;
}

NvrtcOutput compile(const NvrtcJob &job)
{
    NvrtcOutput output;
    std::vector<const char *> headerTexts;
    std::vector<const char *> headerNames;
    for (const auto &[name, text] : job.headers) {
        headerNames.push_back(name.c_str());
        headerTexts.push_back(text.c_str());
    }
    Program program;
    nvrtcResult status = nvrtcCreateProgram(program.address(), job.source.c_str(), "candidate.cu",
                                            int(headerTexts.size()), headerTexts.data(), headerNames.data());
    if (status != NVRTC_SUCCESS) {
        output.statusText = nvrtcGetErrorString(status);
        return output;
    }
    std::vector<const char *> argv;
    for (const std::string &argument : job.arguments)
        argv.push_back(argument.c_str());
    const auto start = std::chrono::steady_clock::now();
    status = nvrtcCompileProgram(program.get(), int(argv.size()), argv.data());
    output.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    output.status = int(status);
    output.statusText = nvrtcGetErrorString(status);
    output.log = programLog(program.get());
    if (status == NVRTC_SUCCESS) {
        output.cubin = cubinOf(program.get());
        if (job.wantPtx)
            output.ptx = ptxOf(program.get());
    }
    return output;
}

#else

NvrtcOutput compile(const NvrtcJob &)
{
    NvrtcOutput output;
    output.statusText = "this build has no NVRTC";
    return output;
}

#endif // KX_HAVE_CUDA

std::size_t addressSpaceBytes()
{
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0;
    statm >> pages;
    return pages * std::size_t(::sysconf(_SC_PAGESIZE));
}

// The parent enforces the limits; these hold when it cannot (it died, or memory grew between two looks).
void setBackstops(const NvrtcJob &job)
{
    if (job.timeoutSeconds > 0)
        ::alarm(unsigned(std::ceil(job.timeoutSeconds)) + 10);
    if (job.memoryLimitMb > 0) {
        rlimit limit{};
        if (::getrlimit(RLIMIT_AS, &limit) == 0) {
            const rlim_t wanted = rlim_t(addressSpaceBytes()) + (rlim_t(job.memoryLimitMb) + 512) * 1024 * 1024;
            limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
            ::setrlimit(RLIMIT_AS, &limit);
        }
    }
}

void clearBackstops()
{
    ::alarm(0);
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) == 0) {
        limit.rlim_cur = limit.rlim_max;
        ::setrlimit(RLIMIT_AS, &limit);
    }
}

} // namespace

int runNvrtcChild()
{
    // Only its socket and stderr: no descriptor of the parent's may live on in here.
#ifdef SYS_close_range
    ::syscall(SYS_close_range, 3u, ~0u, 0u);
#endif
    std::signal(SIGPIPE, SIG_DFL);
    for (;;) {
        std::string message;
        if (!readNvrtcMessage(STDIN_FILENO, message))
            return 0;
        NvrtcJob job;
        if (!decodeNvrtcJob(message, job)) {
            std::fprintf(stderr, "kx-nvrtc: unreadable job\n");
            return 2;
        }
        setBackstops(job);
        const NvrtcOutput output = compile(job);
        clearBackstops();
        if (!writeNvrtcMessage(STDOUT_FILENO, encodeNvrtcOutput(output)))
            return 0;
    }
}

} // namespace kx
