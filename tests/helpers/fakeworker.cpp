// A stand-in for `kx worker` in the worker pool tests: the real worker loop with a made-up Evaluator.
//
// Arguments:  --device N            (appended by the pool)
//             --gpus K              devices 0..K-1 exist (default 1); others report no usable GPU
//             --compute-capability  e.g. 9.0 (default)
//             --start-delay-ms MS   wait before the hello
//             --eval-delay-ms MS    every evaluation takes at least MS (a window to kill it in)
//             --hello MODE          normal (default), garbage, wrong-version, exit (dies before its hello)
// The candidate's description chooses what an evaluation does:
//   ok (or anything else)   Correct, with made-up figures; the message names pid, device, cubin size and kind
//   hang                    never answers
//   crash                   writes a line to stderr and aborts
//   exit:N                  writes a line to stderr and exits with code N
//   garbage                 writes a line that is not the protocol, then hangs
//   busy:EXTRA:SLEEP        says it needs EXTRA ms more (a busy message), then takes SLEEP ms
//   must-exit               Fault with workerMustExit
//   sleep:MS                Correct after MS milliseconds
//   barrier:DIR:N           creates DIR/<pid>, waits until DIR holds N files, then Correct
//   stderr-flood            writes 1 MiB to stderr, then Correct
//   samples:N               Correct with N timing samples (a long result line)
//   throw                   the evaluator throws
#include "core/eval/evalrequest.h"
#include "core/eval/protocol.h"
#include "core/worker/workerloop.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

struct Options
{
    int device = 0;
    int gpus = 1;
    std::string computeCapability = "9.0";
    int startDelayMs = 0;
    int evalDelayMs = 0;
    std::string hello = "normal";
};

[[noreturn]] void hangForever()
{
    for (;;)
        std::this_thread::sleep_for(std::chrono::seconds(1));
}

bool startsWith(const std::string &text, const std::string &prefix)
{
    return text.compare(0, prefix.size(), prefix) == 0;
}

class FakeEvaluator : public kx::Evaluator
{
public:
    explicit FakeEvaluator(const Options &options)
        : m_options(options)
    {}

    kx::GpuInfo describe() override
    {
        kx::GpuInfo gpu;
        if (m_options.device < 0 || m_options.device >= m_options.gpus)
            return gpu; // An empty name: no such device.
        gpu.name = "Fake GPU " + std::to_string(m_options.device);
        gpu.uuid = "GPU-fake-" + std::to_string(m_options.device);
        gpu.computeCapability = m_options.computeCapability;
        gpu.smCount = 132;
        gpu.memoryBytes = std::int64_t(80) << 30;
        gpu.driverVersion = "fake";
        return gpu;
    }

    kx::EvaluateOutcome evaluate(const kx::EvaluateRequest &request) override
    {
        if (m_options.evalDelayMs > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(m_options.evalDelayMs));
        kx::EvaluateOutcome outcome;
        kx::Evaluation &evaluation = outcome.evaluation;
        evaluation.candidateId = request.candidate.id;
        evaluation.gpu = describe();
        if (evaluation.gpu.name.empty()) {
            evaluation.status = kx::EvalStatus::Crashed;
            evaluation.message = "fake: there is no device " + std::to_string(m_options.device) + " (only "
                                 + std::to_string(m_options.gpus) + " fake GPUs)";
            return outcome;
        }

        const std::string &what = request.candidate.description;
        if (what == "hang")
            hangForever();
        if (what == "crash") {
            std::fprintf(stderr, "fake worker: crashing on purpose in candidate %s\n", request.candidate.id.c_str());
            std::fflush(stderr);
            std::abort();
        }
        if (startsWith(what, "exit:")) {
            std::fprintf(stderr, "fake worker: exiting on purpose\n");
            std::fflush(stderr);
            std::_Exit(std::atoi(what.c_str() + 5));
        }
        if (what == "garbage") {
            std::cout << "this is not a protocol line" << std::endl;
            hangForever();
        }
        if (what == "throw")
            throw std::runtime_error("fake evaluator refused the candidate");
        if (what == "must-exit") {
            evaluation.status = kx::EvalStatus::Fault;
            evaluation.message = "fake: illegal address (sticky)";
            outcome.workerMustExit = true;
            return outcome;
        }
        if (startsWith(what, "busy:")) { // busy:EXTRA_MS:SLEEP_MS, as a worker measuring a baseline
            const auto colon = what.find(':', 5);
            if (busy)
                busy(std::atof(what.c_str() + 5), "fake: measuring a baseline");
            std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(what.c_str() + colon + 1)));
        }
        if (startsWith(what, "sleep:"))
            std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(what.c_str() + 6)));
        if (startsWith(what, "barrier:"))
            waitAtBarrier(what.substr(8));
        if (what == "stderr-flood") {
            const std::string chunk(1024, 'x');
            for (int i = 0; i < 1024; ++i)
                std::fprintf(stderr, "%s\n", chunk.c_str());
            std::fflush(stderr);
        }
        if (startsWith(what, "samples:")) {
            const int count = std::atoi(what.c_str() + 8);
            for (int i = 0; i < count; ++i)
                evaluation.samplesMs.push_back(1.0 + i * 1e-6);
        }

        const bool elf = request.cubin.size() >= 4
                         && request.cubin.compare(0, 4,
                                                  "\x7f"
                                                  "ELF")
                                == 0;
        evaluation.status = kx::EvalStatus::Correct;
        evaluation.message = "ok from pid " + std::to_string(::getpid()) + " on device "
                             + std::to_string(m_options.device) + "; cubin " + std::to_string(request.cubin.size())
                             + " bytes" + (elf ? " (ELF)" : "") + " for " + request.arch;
        evaluation.timing.medianMs = 1.0;
        evaluation.timing.runs = 100;
        evaluation.baseline.medianMs = 2.0;
        evaluation.speedup = 2.0;
        evaluation.correctness.trials = request.settings.trials;
        return outcome;
    }

private:
    static void waitAtBarrier(const std::string &spec)
    {
        const auto colon = spec.rfind(':');
        const std::filesystem::path dir = spec.substr(0, colon);
        const long expected = std::atol(spec.c_str() + colon + 1);
        std::FILE *mark = std::fopen((dir / std::to_string(::getpid())).c_str(), "w");
        if (mark)
            std::fclose(mark);
        for (;;) {
            long count = 0;
            for ([[maybe_unused]] const auto &entry : std::filesystem::directory_iterator(dir))
                ++count;
            if (count >= expected)
                return;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }

    Options m_options;
};

} // namespace

int main(int argc, char **argv)
{
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        const std::string value = argv[i + 1];
        if (key == "--device")
            options.device = std::atoi(value.c_str());
        else if (key == "--gpus")
            options.gpus = std::atoi(value.c_str());
        else if (key == "--compute-capability")
            options.computeCapability = value;
        else if (key == "--start-delay-ms")
            options.startDelayMs = std::atoi(value.c_str());
        else if (key == "--eval-delay-ms")
            options.evalDelayMs = std::atoi(value.c_str());
        else if (key == "--hello")
            options.hello = value;
        else {
            std::cerr << "fake worker: unknown option " << key << '\n';
            return 2;
        }
    }

    if (options.startDelayMs > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(options.startDelayMs));
    if (options.hello == "garbage") {
        std::cout << "hello? this is not json" << std::endl;
        hangForever();
    }
    if (options.hello == "wrong-version") {
        const std::string newer = std::to_string(kx::kProtocolVersion + 1);
        std::cout << R"({"v":)" << newer << R"(,"type":"hello","protocolVersion":)" << newer
                  << R"(,"pid":1,"device":0,"gpu":{},"error":""})" << std::endl;
        hangForever();
    }
    if (options.hello == "exit") {
        std::cerr << "fake worker: cannot initialise, exiting before the hello" << std::endl;
        return 3;
    }

    FakeEvaluator evaluator(options);
    const kx::WorkerExit exit = kx::runWorker(std::cin, std::cout, evaluator, options.device);
    return exit == kx::WorkerExit::NoGpu ? 4 : 0;
}
