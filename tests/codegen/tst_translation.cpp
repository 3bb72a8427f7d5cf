// Every catalog op translates into a first candidate that NVRTC compiles for sm_80 and sm_90 and whose
// launch plan resolves against every shape set; random points of each template's space do too.
#include "core/codegen/kerneltemplate.h"
#include "core/eval/launchplan.h"
#include "core/eval/nvrtccompiler.h"
#include "core/ops/builtinops.h"
#include "core/search/population.h"
#include "core/search/templateproposer.h"

#include "qtestprinters.h"

#include <QTest>

using namespace kx;

namespace {

// Empty when the candidate compiles for arch and its plan resolves for every shape set of op.
QString verify(const Op &op, const std::string &source, const std::string &planText, const std::string &arch)
{
    CompileOptions options;
    options.arch = arch;
    const auto compiled = NvrtcCompiler().compile(source, options);
    if (!compiled.ok)
        return QString::fromStdString("compile (" + arch + "): " + compiled.error + "\n" + compiled.stats.log);
    const auto plan = parseLaunchPlan(planText);
    if (!plan)
        return QString::fromStdString("plan: " + plan.error().message);
    for (const auto &shapes : op.shapeSets) {
        const auto resolved = resolveLaunchPlan(*plan, op, shapes, compiled.kernels);
        if (!resolved)
            return QString::fromStdString("resolve: " + resolved.error().message);
    }
    return {};
}

} // namespace

class TestTranslation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (!NvrtcCompiler::available())
            QSKIP("built without NVRTC (no CUDA toolkit found): nothing to compile");
    }

    void catalogIsComplete()
    {
        QVERIFY(builtInOps().size() >= 24);
        for (const auto &op : builtInOps()) {
            QVERIFY2(recipeOf(op), op.name.c_str());
            QVERIFY2(op.shapeSets.size() >= 2, op.name.c_str());
            QVERIFY2(!op.bytesMovedExpr.empty() && !op.flopsExpr.empty(), op.name.c_str());
            for (const auto &shapes : op.shapeSets) {
                QVERIFY2(evaluateIntExpression(op.bytesMovedExpr, shapes), op.name.c_str());
                QVERIFY2(evaluateIntExpression(op.flopsExpr, shapes), op.name.c_str());
            }
        }
    }

    void translatesEveryOp_data()
    {
        QTest::addColumn<QString>("opName");
        QTest::addColumn<QString>("arch");
        for (const auto &op : builtInOps())
            for (const char *arch : {"sm_80", "sm_90"})
                QTest::newRow((op.name + "/" + arch).c_str()) << QString::fromStdString(op.name) << arch;
    }

    void translatesEveryOp()
    {
        QFETCH(QString, opName);
        QFETCH(QString, arch);
        const Op &op = *findBuiltInOp(opName.toStdString());
        const auto candidate = translateOp(op);
        QVERIFY2(candidate, candidate ? "" : candidate.error().message.c_str());
        QCOMPARE(candidate->origin, Origin::Translated);
        QVERIFY(candidate->source.find("__global__") != std::string::npos);
        QVERIFY(candidate->source.rfind("// " + op.name, 0) == 0); // readable: starts with what it is
        const QString failure = verify(op, candidate->source, candidate->launchPlan, arch.toStdString());
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
    }

    void randomParametersCompile_data()
    {
        QTest::addColumn<QString>("opName");
        for (const char *name : {"gelu_tanh", "scale_bias", "row_argmax", "row_mean", "log_softmax", "layer_norm",
                                 "rms_norm"})
            QTest::newRow(name) << name;
    }

    void randomParametersCompile()
    {
        QFETCH(QString, opName);
        const Op &op = *findBuiltInOp(opName.toStdString());
        const auto recipe = *recipeOf(op);
        const KernelTemplate *kernelTemplate = nullptr;
        for (const auto *candidate : kernelTemplates())
            if (candidate->supports(op, recipe))
                kernelTemplate = candidate;
        QVERIFY(kernelTemplate);
        const auto definitions = kernelTemplate->parameters(op, recipe);
        SplitMix random(qHash(opName));
        int checked = 0;
        for (int attempt = 0; attempt < 200 && checked < 12; ++attempt) {
            Params params;
            for (const auto &definition : definitions)
                params[definition.name] = definition.values[random.below(definition.values.size())];
            if (!kernelTemplate->check(op, recipe, params).empty())
                continue;
            const auto generated = kernelTemplate->generate(op, recipe, params);
            QCOMPARE(kernelTemplate->generate(op, recipe, params).source, generated.source); // deterministic
            const QString failure = verify(op, generated.source, generated.launchPlan, "sm_90");
            QVERIFY2(failure.isEmpty(), qPrintable(failure + "\n" + QString::fromStdString(generated.source)));
            ++checked;
        }
        QVERIFY(checked >= 8);
    }

    void checkRejectsInvalidParameters()
    {
        const Op &softmax = *findBuiltInOp("softmax");
        const auto recipe = *recipeOf(softmax);
        const auto *kernelTemplate = findKernelTemplate("softmax");
        auto params = kernelTemplate->defaults(softmax, recipe);
        QVERIFY(kernelTemplate->check(softmax, recipe, params).empty());
        params["block"] = 100;
        QVERIFY(!kernelTemplate->check(softmax, recipe, params).empty());
        params = kernelTemplate->defaults(softmax, recipe);
        params.erase("vec");
        QVERIFY(QString::fromStdString(kernelTemplate->check(softmax, recipe, params)).contains("missing"));

        Op odd = *findBuiltInOp("scale_bias"); // its second shape set has D = 777
        const auto *elementwise = findKernelTemplate("elementwise");
        auto vectorised = elementwise->defaults(odd, *recipeOf(odd));
        vectorised["vec"] = 4;
        QVERIFY(QString::fromStdString(elementwise->check(odd, *recipeOf(odd), vectorised)).contains("multiple of 4"));
    }
};

QTEST_GUILESS_MAIN(TestTranslation)
#include "tst_translation.moc"
