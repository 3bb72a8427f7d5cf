#include "core/eval/evaluationservice.h"

#include "core/eval/evalcompletion.h"
#include "core/eval/workerpool.h"
#include "core/util/clock.h"

#include <algorithm>
#include <iostream>

namespace kx {
EvaluationService::EvaluationService(std::unique_ptr<WorkerPool> pool, EvaluationServiceOptions options,
                                     EvaluationObserver *observer)
    : m_pool(std::move(pool))
    , m_options(std::move(options))
    , m_observer(observer)
{}

EvaluationService::~EvaluationService()
{
    stop();
}

Status EvaluationService::start()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return Error{"the evaluation service is stopped"};
        if (m_started)
            return Error{"the evaluation service is already started"};
    }

    const auto fail = [this](const Error &error) -> Status {
        std::deque<Job> jobs;
        {
            std::lock_guard lock(m_mutex);
            m_startError = error;
            jobs.swap(m_queue);
        }
        for (const Job &job : jobs)
            finish(job, error);
        return error;
    };

    if (!NvrtcCompiler::available())
        return fail(Error::noGpu("this build of Kernel Explorer has no NVRTC, so candidates cannot be compiled"));
    if (m_pool->workers().empty()) {
        // Without a worker that came up there is no GPU to evaluate on, whatever kept each one down.
        if (Status started = m_pool->start(); !started)
            return fail(started.error().kind == ErrorKind::Failed ? Error::noGpu(started.error().message)
                                                                  : started.error());
    }

    std::string arch = m_options.arch;
    if (arch.empty()) {
        const std::vector<std::string> archs = m_pool->archs();
        if (archs.empty())
            return fail(Error::noGpu("no running worker reported a compute capability to compile for"));
        arch = archs.front();
    }
    GpuInfo target;
    for (const WorkerStatus &worker : m_pool->workers()) {
        if (worker.arch == arch) {
            target = worker.gpu;
            break;
        }
    }

    std::lock_guard lock(m_mutex);
    if (m_stopping)
        return Error{"the evaluation service was stopped while starting"};
    m_arch = arch;
    m_targetGpu = target;
    m_started = true;
    for (int i = 0; i < std::max(1, m_options.compileThreads); ++i)
        m_threads.emplace_back([this](std::stop_token stop) { runCompiler(stop); });
    return Status::ok();
}

void EvaluationService::submit(Op op, Candidate candidate, EvalSettings settings, Completion done, int device)
{
    Job job{std::move(op), std::move(candidate), settings, std::move(done), 0, device};
    std::optional<Error> refusal;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping) {
            refusal = Error{"the evaluation service is stopped"};
        } else if (m_startError) {
            refusal = m_startError;
        } else {
            job.generation = m_generation;
            m_queue.push_back(std::move(job));
        }
    }
    if (refusal) {
        finish(job, *refusal);
        return;
    }
    m_wake.notify_one();
}

std::future<Expected<Evaluation>> EvaluationService::submit(Op op, Candidate candidate, EvalSettings settings)
{
    return futureOf([&](Completion done) { submit(std::move(op), std::move(candidate), settings, std::move(done)); });
}

std::size_t EvaluationService::cancelPending()
{
    std::deque<Job> jobs;
    {
        std::lock_guard lock(m_mutex);
        ++m_generation;
        jobs.swap(m_queue);
        m_cancelCompiles.request_stop();
        m_cancelCompiles = std::stop_source();
    }
    for (const Job &job : jobs)
        finish(job, Error::cancelled("cancelled before it was compiled"));
    m_pool->cancelPending();
    return jobs.size();
}

void EvaluationService::stop()
{
    std::deque<Job> jobs;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        ++m_generation;
        jobs.swap(m_queue);
        m_cancelCompiles.request_stop();
        for (std::jthread &thread : m_threads)
            thread.request_stop();
    }
    for (const Job &job : jobs)
        finish(job, Error::cancelled("cancelled: the evaluation service stopped"));
    m_wake.notify_all();
    for (std::jthread &thread : m_threads) {
        if (thread.joinable() && thread.get_id() != std::this_thread::get_id())
            thread.join();
    }
    m_pool->stop();
}

std::string EvaluationService::targetArch() const
{
    std::lock_guard lock(m_mutex);
    return m_arch;
}

void EvaluationService::runCompiler(std::stop_token stop)
{
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, stop, [this] { return !m_queue.empty(); });
            if (stop.stop_requested())
                return;
            job = std::move(m_queue.front());
            m_queue.pop_front();
        }
        process(std::move(job), stop);
    }
}

void EvaluationService::process(Job job, std::stop_token stop)
{
    std::string arch;
    std::stop_token cancelling;
    {
        std::lock_guard lock(m_mutex);
        arch = m_arch;
        cancelling = m_cancelCompiles.get_token();
    }
    CompileOptions options = m_options.compile;
    options.arch = arch;
    // Stopping the service or cancelling what is pending ends a compile at once: it may run for its whole limit.
    std::stop_source compileStop;
    const std::stop_callback onStop(stop, [&compileStop] { compileStop.request_stop(); });
    const std::stop_callback onCancel(cancelling, [&compileStop] { compileStop.request_stop(); });
    const CompileResult compiled = m_compiler.compile(job.candidate.source, options, compileStop.get_token());
    if (compiled.errorKind == ErrorKind::Cancelled)
        return finish(job, Error::cancelled("cancelled while it was compiled"));
    if (m_observer) {
        try {
            m_observer->compiled(job.candidate, compiled);
        } catch (const std::exception &error) {
            std::cerr << "kx: an evaluation observer threw: " << error.what() << '\n';
        }
    }
    if (!compiled.ok) {
        const std::string reason = compiled.error.empty() ? "NVRTC rejected the source" : compiled.error;
        finish(job, hostEvaluation(job, EvalStatus::CompileError, reason, compiled.stats));
        return;
    }

    const auto planError = [&](const std::string &message) {
        finish(job, hostEvaluation(job, EvalStatus::PlanError, message, compiled.stats));
    };
    const Expected<LaunchPlan> plan = parseLaunchPlan(job.candidate.launchPlan);
    if (!plan)
        return planError("launch plan: " + plan.error().message);
    if (const Status fits = checkLaunchPlanFits(*plan, job.op, compiled.kernels, m_options.limits); !fits)
        return planError(fits.error().message);

    std::string cancelled;
    {
        std::lock_guard lock(m_mutex);
        if (job.generation != m_generation)
            cancelled =
                m_stopping ? "cancelled: the evaluation service stopped" : "cancelled before it reached a worker";
    }
    if (!cancelled.empty())
        return finish(job, Error{cancelled});

    EvaluateRequest request;
    request.op = job.op;
    request.candidate = job.candidate;
    request.arch = arch;
    request.cubin = compiled.cubin;
    request.compile = compiled.stats;
    request.settings = job.settings;
    request.device = job.device;
    auto shared = std::make_shared<Job>(std::move(job));
    m_pool->submit(std::move(request), [this, shared, stats = compiled.stats](Expected<Evaluation> result) {
        if (result && result->compile == CompileStats{})
            result->compile = stats;
        finish(*shared, std::move(result));
    });
}

Evaluation EvaluationService::hostEvaluation(const Job &job, EvalStatus status, std::string message,
                                             const CompileStats &stats) const
{
    Evaluation evaluation;
    evaluation.candidateId = job.candidate.id;
    {
        std::lock_guard lock(m_mutex);
        evaluation.gpu = m_targetGpu;
    }
    evaluation.status = status;
    evaluation.message = std::move(message);
    evaluation.compile = stats;
    evaluation.createdAtMs = nowMs();
    return evaluation;
}

void EvaluationService::finish(const Job &job, Expected<Evaluation> result)
{
    runCompletion([&] {
        if (result && m_observer)
            m_observer->evaluated(job.candidate, *result);
        if (job.done)
            job.done(std::move(result));
    });
}

} // namespace kx
