// The conv-epilogue template: parameter checks, the library step, real NVRTC compiles and plan resolution.
#include "core/codegen/convepiloguetemplate.h"
#include "core/eval/launchplan.h"

#include "templatetestsupport.h"

#include <QtTest>

using namespace kx;
using namespace kx::test;

namespace {

Op convOp(const std::string &name, std::vector<ShapeSet> shapeSets, const std::string &recipe)
{
    Op op;
    op.name = name;
    op.inputs = {tensor("x", {"B", "CIN", "H", "W"}), tensor("weight", {"COUT", "CIN", "KH", "KW"}),
                 tensor("bias", {"COUT"})};
    op.outputs = {tensor("y", {"B", "COUT", "OH", "OW"})};
    op.shapeSets = std::move(shapeSets);
    op.policy.allowLibrarySteps = true;
    op.policy.allowedLibraryOps = {"aten::conv2d"};
    op.recipe = recipe;
    return op;
}

ShapeSet convShapes(long long b, long long cin, long long h, long long w, long long cout, long long kh, long long kw)
{
    return {{"B", b}, {"CIN", cin}, {"H", h}, {"W", w}, {"COUT", cout}, {"KH", kh}, {"KW", kw},
            {"OH", h - kh + 1}, {"OW", w - kw + 1}};
}

// conv2d + bias + relu twice (the second with output planes that are not multiples of 4 or of any block),
// and a variant with a differently named bias and a tanh epilogue.
std::vector<Op> convOps()
{
    const std::string relu = R"j({"family": "conv-epilogue", "bias": "bias", "expression": "fmaxf(acc + bias[c], 0.0f)"})j";
    std::vector<Op> ops;
    ops.push_back(convOp("conv2d_bias_relu", {convShapes(8, 64, 56, 56, 128, 3, 3), convShapes(2, 16, 32, 32, 32, 5, 5)}, relu));
    ops.push_back(convOp("conv2d_bias_relu_odd", {convShapes(8, 64, 56, 56, 128, 3, 3), convShapes(3, 3, 31, 33, 17, 3, 3)}, relu));
    Op tanh = convOp("conv2d_bias_tanh", {convShapes(4, 32, 28, 28, 64, 1, 1), convShapes(1, 8, 20, 12, 16, 3, 5)},
                     R"j({"family": "conv-epilogue", "bias": "b", "expression": "tanhf(acc + b[c])"})j");
    tanh.inputs[2].name = "b";
    ops.push_back(tanh);
    return ops;
}

} // namespace

class TestConvEpilogueTemplate : public QObject
{
    Q_OBJECT

private:
    const ConvEpilogueTemplate m_template;

private slots:
    void isRegistered()
    {
        const Op op = convOps().front();
        const KernelTemplate *found = findKernelTemplate("conv-epilogue");
        QVERIFY(found);
        QVERIFY(found->supports(op, recipeFor(op)));
    }

    void defaultsCompileAndResolve_data()
    {
        addOpAndArchRows(convOps());
    }
    void defaultsCompileAndResolve()
    {
        REQUIRE_NVRTC();
        QFETCH(int, op);
        QFETCH(QString, arch);
        const Op conv = convOps()[std::size_t(op)];
        const QString problem = verifyCandidate(m_template, conv, m_template.defaults(conv, recipeFor(conv)), arch.toStdString());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The space is small: every valid combination of the three ops (seeded order).
    void everyValidCombinationCompilesAndResolves()
    {
        REQUIRE_NVRTC();
        const SpaceVerification space = verifyWholeSpace(m_template, convOps(), 41);
        QVERIFY2(space.problem.isEmpty(), qPrintable(space.problem));
        // 24 combinations per op; the odd op cannot take float4 (12 rejected).
        QCOMPARE(space.compiled, 24 + 12 + 24);
        QCOMPARE(space.rejected, 12);
    }

    // The library step's contract: aten::conv2d(x, weight) written into scratch "conv" of 4 * B*C_out*OH*OW bytes.
    void planRunsTheConvolutionIntoScratch()
    {
        const Op op = convOps()[1];
        const Params params{{"block", 128}, {"vec", 1}, {"items", 2}};
        const GeneratedKernel kernel = m_template.generate(op, recipeFor(op), params);
        const auto plan = parseLaunchPlan(kernel.launchPlan);
        QVERIFY(plan);
        QCOMPARE(plan->steps.size(), std::size_t(2));
        const auto *library = std::get_if<LibraryStep>(&plan->steps[0]);
        QVERIFY(library);
        QCOMPARE(library->op, std::string("aten::conv2d"));
        QCOMPARE(library->args.size(), std::size_t(3));
        QCOMPARE(library->args[0].kind, PlanArg::Kind::Input);
        QCOMPARE(library->args[0].name, std::string("x"));
        QCOMPARE(library->args[1].kind, PlanArg::Kind::Input);
        QCOMPARE(library->args[1].name, std::string("weight"));
        QCOMPARE(library->args[2].kind, PlanArg::Kind::Scratch);
        QCOMPARE(library->args[2].name, std::string("conv"));

        const ShapeSet &odd = op.shapeSets[1];
        const auto resolved = resolveLaunchPlan(*plan, op, odd, parseKernelSignatures(kernel.source));
        QVERIFY2(resolved, qPrintable(QString::fromStdString(resolved ? "" : resolved.error().message)));
        const std::int64_t elements = 3 * 17 * 29 * 31;
        QCOMPARE(resolved->scratchBytes.front(), (std::pair<std::string, std::int64_t>("conv", 4 * elements)));
        const auto &epilogue = std::get<ResolvedKernelStep>(resolved->steps[1]);
        QCOMPARE(epilogue.kernel, std::string("conv_epilogue_kernel"));
        QCOMPARE(epilogue.args[0].name, std::string("conv"));
        QCOMPARE(epilogue.args[1].name, std::string("bias"));
        QCOMPARE(epilogue.args[2].name, std::string("y"));
        QCOMPARE(epilogue.args[3].intValue, elements);
        QCOMPARE(epilogue.args[4].intValue, std::int64_t(17));
        QCOMPARE(epilogue.args[5].intValue, std::int64_t(29 * 31));
        QCOMPARE(epilogue.grid[0], (elements + 255) / 256);
        QCOMPARE(epilogue.block[0], std::int64_t(128));
    }

    void sourceStatesEveryParameter()
    {
        const Op op = convOps()[2];
        const Params params{{"block", 512}, {"vec", 4}, {"items", 4}};
        const std::string source = m_template.generate(op, recipeFor(op), params).source;
        for (const auto &definition : m_template.parameters(op, recipeFor(op))) {
            const std::string line = definition.label + " (" + definition.name + ") = " + std::to_string(params.at(definition.name));
            QVERIFY2(source.find(line) != std::string::npos, line.c_str());
        }
        QVERIFY(source.find("return tanhf(acc + b[c]);") != std::string::npos);
        QVERIFY(source.find("reinterpret_cast<const float4 *>(conv)") != std::string::npos);
    }

    void rejectsInvalidCombinations_data()
    {
        QTest::addColumn<int>("op");
        QTest::addColumn<QString>("changes");
        QTest::addColumn<QString>("reason");
        QTest::newRow("odd plane") << 1 << "vec=4" << "vector width 4 needs OH * OW divisible by it (shape set 2 has 899)";
        QTest::newRow("value") << 0 << "block=64" << "epilogue block size 64 is not one of the allowed values";
        QTest::newRow("missing") << 0 << "-items" << "missing parameter items";
        QTest::newRow("unknown") << 0 << "unroll=2" << "unknown parameter unroll";
    }
    void rejectsInvalidCombinations()
    {
        QFETCH(int, op);
        QFETCH(QString, changes);
        QFETCH(QString, reason);
        const Op conv = convOps()[std::size_t(op)];
        const Params params = withChanges(m_template.defaults(conv, recipeFor(conv)), changes);
        QCOMPARE(QString::fromStdString(m_template.check(conv, recipeFor(conv), params)), reason);
    }

    void rejectsOpsItCannotHandle_data()
    {
        QTest::addColumn<int>("variant");
        QTest::addColumn<QString>("reason");
        QTest::newRow("policy") << 0 << "the conv-epilogue template runs the convolution as a library step: the op's policy must allow aten::conv2d";
        QTest::newRow("padding") << 1 << "shape set 1: the conv-epilogue template supports stride 1 without padding only, so the output must be 54 x 54, not 56 x 56";
        QTest::newRow("channels") << 2 << "shape set 2: x has 16 channels, the weight expects 8";
        QTest::newRow("rank") << 3 << "x, weight and the output must be 4-D: [B, C_in, H, W], [C_out, C_in, KH, KW], [B, C_out, OH, OW]";
        QTest::newRow("bias name") << 4 << "the recipe's bias 'beta' is not an input of the op";
        QTest::newRow("statement") << 5 << "the epilogue must be a single expression (no ';', braces or preprocessor lines)";
    }
    void rejectsOpsItCannotHandle()
    {
        QFETCH(int, variant);
        QFETCH(QString, reason);
        Op op = convOps().front();
        switch (variant) {
        case 0: op.policy.allowLibrarySteps = false; break;
        case 1:
            for (auto &shapes : op.shapeSets) {
                shapes["OH"] = shapes["H"];
                shapes["OW"] = shapes["W"];
            }
            break;
        case 2: // the weight's input channels get their own symbol, which disagrees with x in the second set
            op.inputs[1].shape[1] = "WCIN";
            op.shapeSets[0]["WCIN"] = 64;
            op.shapeSets[1]["WCIN"] = 8;
            break;
        case 3: op.inputs[0].shape = {"B", "CIN", "H"}; break;
        case 4: op.recipe = R"j({"family": "conv-epilogue", "bias": "beta"})j"; break;
        case 5: op.recipe = R"j({"family": "conv-epilogue", "expression": "acc; return 0.0f"})j"; break;
        }
        QCOMPARE(QString::fromStdString(m_template.check(op, recipeFor(op), m_template.defaults(op, recipeFor(op)))), reason);
    }

    void generateRefusesInvalidParameters()
    {
        Op op = convOps().front();
        op.outputs.clear();
        const GeneratedKernel kernel = m_template.generate(op, recipeFor(op), m_template.defaults(op, recipeFor(op)));
        QCOMPARE(kernel.source, std::string("#error \"conv-epilogue template: the conv-epilogue template needs inputs x, "
                                            "weight (and a bias) and one output\"\n"));
        QVERIFY(!parseLaunchPlan(kernel.launchPlan));
    }

    void generateIsDeterministic()
    {
        for (const auto &op : convOps()) {
            for (const auto &params : validSpace(m_template, op, 3)) {
                const GeneratedKernel first = m_template.generate(op, recipeFor(op), params);
                const GeneratedKernel second = m_template.generate(op, recipeFor(op), params);
                QCOMPARE(first.source, second.source);
                QCOMPARE(first.launchPlan, second.launchPlan);
            }
        }
    }
};

QTEST_MAIN(TestConvEpilogueTemplate)
#include "tst_convepiloguetemplate.moc"
