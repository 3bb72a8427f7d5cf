// kx worker: one GPU's evaluation process, driven by the worker pool over stdin/stdout.
#include "commands.h"

#include "core/gpu/baselinerunner.h"
#include "core/gpu/gpuevaluator.h"
#include "core/worker/workerloop.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>
#include <streambuf>

namespace kx::cli {
namespace {

// An output stream buffer over a file descriptor: the protocol channel.
class FdOutputBuffer : public std::streambuf
{
public:
    explicit FdOutputBuffer(int fd)
        : m_fd(fd)
    {
        setp(m_buffer, m_buffer + sizeof m_buffer);
    }
    ~FdOutputBuffer() override { sync(); }

protected:
    int_type overflow(int_type c) override
    {
        if (!flush())
            return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return flush() ? 0 : -1; }

private:
    bool flush()
    {
        const char *data = pbase();
        std::size_t size = static_cast<std::size_t>(pptr() - pbase());
        while (size > 0) {
            const ssize_t n = ::write(m_fd, data, size);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            data += n;
            size -= static_cast<std::size_t>(n);
        }
        setp(m_buffer, m_buffer + sizeof m_buffer);
        return true;
    }

    int m_fd;
    char m_buffer[65536];
};

int runWorkerCommand(int device)
{
    // A worker whose host died must not keep a hung kernel on the GPU: die with the process that started us.
    const pid_t parent = ::getppid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
        return Failure;

    // CUDA or LibTorch may print to stdout, which would corrupt the protocol: protocol lines get the real
    // stdout to themselves, and whatever else is written to file descriptor 1 goes to stderr.
    const int protocolFd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (protocolFd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        std::cerr << "kx worker: cannot set up the protocol channel: " << std::strerror(errno) << '\n';
        return Failure;
    }
    FdOutputBuffer buffer(protocolFd);
    std::ostream protocol(&buffer);

    const std::unique_ptr<Evaluator> evaluator = makeGpuEvaluator(device);
    switch (runWorker(std::cin, protocol, *evaluator, device)) {
    case WorkerExit::NoGpu: return NoGpu;
    case WorkerExit::Shutdown:
    case WorkerExit::EndOfInput:
    case WorkerExit::MustExit: break;
    }
    return Ok;
}

} // namespace

void addWorkerCommand(CLI::App &app, Action &action)
{
    auto *command = app.add_subcommand(
        "worker", "Evaluate candidates on one GPU, speaking the worker protocol (JSON lines) on stdin and stdout. "
                  "Started by the worker pool; exits with code 4 after its hello when the GPU cannot be used.");
    auto device = std::make_shared<int>(0);
    command->add_option("--device", *device, "CUDA device ordinal")->check(CLI::Range(0, 1023));
    command->callback([&action, device] { action = [device] { return runWorkerCommand(*device); }; });

    // Started by a worker for each Inductor baseline; not for people (no group: hidden from --help).
    auto *runner = app.add_subcommand("baseline-runner", "Time an AOTInductor package as an op's Inductor baseline");
    runner->group("");
    auto package = std::make_shared<std::string>();
    runner->add_option("--package", *package, "The AOTInductor package (.pt2)")->required();
    auto runnerDevice = std::make_shared<int>(0);
    runner->add_option("--device", *runnerDevice, "CUDA device ordinal")->check(CLI::Range(0, 1023));
    runner->callback([&action, package, runnerDevice] {
        action = [package, runnerDevice] {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlive the worker that waits for it
            return runInductorPackageBaseline(*package, *runnerDevice, std::cin, std::cout) == 0 ? Ok : Failure;
        };
    });
}

} // namespace kx::cli
