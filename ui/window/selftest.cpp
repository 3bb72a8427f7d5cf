#include "ui/window/selftest.h"

#include "ui/common/archivereader.h"
#include "ui/common/eventwait.h"
#include "ui/kernels/candidateview.h"
#include "ui/kernels/evaluationspanel.h"
#include "ui/kernels/kernelsmodel.h"
#include "ui/kernels/kernelsourceview.h"
#include "ui/kernels/kernelspage.h"
#include "ui/search/searchbridge.h"
#include "ui/window/mainwindow.h"
#include "ui/window/scratchsettings.h"

#include "core/baseline/inductorpackager.h"
#include "core/kernelbench/problemimporter.h"
#include "core/propose/promptbuilder.h"
#include "core/util/clock.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include <cstdio>

namespace kx::ui {

namespace {

constexpr int kTimeoutMs = 60000;

const char kSource[] =
    R"cuda(extern "C" __global__ void relu_kernel(const float *__restrict__ x, float *__restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.0f);
}
)cuda";

const char kPlan[] = R"json({"steps": [{"kernel": "relu_kernel", "grid": ["ceil_div(N, 256)"], "block": ["256"],
 "args": [{"input": "x"}, {"output": "y"}, {"int": "N"}]}]})json";

/// Writes one op, one candidate and one evaluation; returns the candidate id or an error.
Expected<std::string> writeSample(const QString &path)
{
    auto opened = Archive::open(archivePathToStd(path), ArchiveMode::ReadWrite);
    if (!opened)
        return opened.error();
    Archive &archive = **opened;

    Op op;
    op.name = "relu";
    op.description = "Elementwise ReLU";
    op.referenceSource = "torch.relu(x)";
    op.inputs = {{"x", {"N"}, "float32"}};
    op.outputs = {{"y", {"N"}, "float32"}};
    op.shapeSets = {{{"N", 1 << 20}}};

    Candidate candidate;
    candidate.opName = op.name;
    candidate.source = kSource;
    candidate.launchPlan = kPlan;
    candidate.origin = Origin::Translated;
    candidate.operatorName = "translate";
    candidate.description = "Self-test kernel";
    candidate.createdAtMs = nowMs();
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);

    Evaluation evaluation;
    evaluation.candidateId = candidate.id;
    evaluation.gpu.name = "Self-test GPU";
    evaluation.status = EvalStatus::Correct;
    evaluation.message = "ok";
    evaluation.samplesMs = {0.010, 0.011, 0.012};
    evaluation.timing = summarize(evaluation.samplesMs);
    evaluation.baselineSamplesMs = {0.020, 0.021, 0.022};
    evaluation.baseline = summarize(evaluation.baselineSamplesMs);
    evaluation.speedup = evaluation.baseline.medianMs / evaluation.timing.medianMs;
    evaluation.createdAtMs = nowMs();

    Transaction tx = archive.begin();
    archive.putOp(tx, op);
    archive.addCandidate(tx, candidate);
    archive.addEvaluation(tx, evaluation);
    tx.commit();
    return candidate.id;
}

int fail(const QString &message)
{
    std::fprintf(stderr, "kernel-explorer self-test failed: %s\n", qPrintable(message));
    return 1;
}

/// What the application finds beside itself (the worker, prompt templates, Python helpers) and has compiled in
/// (the translation), printed so that a test of an installed copy can see where each came from.
QString checkInstallation()
{
    const QStringList worker = SearchBridge::defaultWorkerCommand();
    if (!QFileInfo(worker.first()).isExecutable())
        return QStringLiteral("the worker program %1 is missing").arg(worker.first());
    std::printf("worker: %s\n", qPrintable(worker.join(QLatin1Char(' '))));

    const struct
    {
        const char *what;
        Expected<std::string> path;
    } found[] = {{"prompt templates", PromptTemplates::findDir()},
                 {"problem import helper", ProblemImporter::locateHelper()},
                 {"Inductor baseline helper", InductorPackager::locateHelper()}};
    for (const auto &[what, path] : found) {
        if (!path)
            return QString::fromStdString(path.error().message);
        std::printf("%s: %s\n", what, path->c_str());
    }

    const QString translation = QStringLiteral(":/i18n/kernel-explorer_de.qm");
    if (!QFile::exists(translation))
        return QStringLiteral("the translation %1 is not compiled in").arg(translation);
    std::printf("translation: %s\n", qPrintable(translation));
    return {};
}

} // namespace

int runSelfTest()
{
    if (const QString missing = checkInstallation(); !missing.isEmpty())
        return fail(missing);

    ScratchSettings settings;
    QTemporaryDir dir;
    if (!settings.isValid() || !dir.isValid())
        return fail(QStringLiteral("no temporary folder"));
    const QString path = dir.filePath(QStringLiteral("self-test.kxdb"));

    Expected<std::string> written = [&]() -> Expected<std::string> {
        try {
            return writeSample(path);
        } catch (const std::exception &error) {
            return Error{error.what()};
        }
    }();
    if (!written)
        return fail(
            QStringLiteral("writing the sample archive: %1").arg(QString::fromStdString(written.error().message)));
    const QString candidateId = QString::fromStdString(*written);

    QStringList errors;
    MainWindow window;
    window.setErrorHandler(
        [&errors](const QString &title, const QString &message) { errors << title + QStringLiteral(": ") + message; });
    if (!window.openArchive(path))
        return fail(errors.join(QLatin1Char('\n')));

    KernelsPage *page = window.kernelsPage();
    if (!waitUntil([page] { return !page->isLoading(); }, kTimeoutMs))
        return fail(QStringLiteral("the kernels did not load"));
    if (page->model()->rowCount() != 1)
        return fail(QStringLiteral("expected 1 kernel, got %1").arg(page->model()->rowCount()));

    if (!page->selectCandidate(candidateId))
        return fail(QStringLiteral("the sample kernel cannot be selected"));
    if (!waitUntil([&] { return window.candidateView()->candidateId() == candidateId; }, kTimeoutMs))
        return fail(QStringLiteral("the kernel's details did not load"));
    if (window.candidateView()->sourceView()->text() != QString::fromLatin1(kSource))
        return fail(QStringLiteral("the source view does not show the kernel's source"));
    if (window.evaluationsPanel()->evaluationCount() != 1)
        return fail(QStringLiteral("the evaluations panel does not show the evaluation"));
    if (!errors.isEmpty())
        return fail(errors.join(QLatin1Char('\n')));

    std::printf("kernel-explorer self-test passed\n");
    return 0;
}

} // namespace kx::ui
