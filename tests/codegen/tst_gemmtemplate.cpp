// The gemm template: parameter checks, generated source and plan, real NVRTC compiles and plan resolution.
#include "core/codegen/gemmtemplate.h"
#include "core/eval/launchplan.h"

#include "templatetestsupport.h"

#include <QtTest>

using namespace kx;
using namespace kx::test;

namespace {

// The ops under test; each has a shape set whose sizes are not multiples of any tile.
std::vector<Op> gemmOps()
{
    std::vector<Op> ops;

    Op square;
    square.name = "matmul_square";
    square.inputs = {tensor("a", {"M", "K"}), tensor("b", {"K", "N"})};
    square.outputs = {tensor("out", {"M", "N"})};
    square.shapeSets = {{{"M", 1024}, {"N", 1024}, {"K", 1024}}, {{"M", 1000}, {"N", 1000}, {"K", 1000}}};
    square.recipe = R"j({"family": "gemm"})j";
    ops.push_back(square);

    Op tall;
    tall.name = "matmul_tall_skinny";
    tall.inputs = {tensor("a", {"M", "K"}), tensor("b", {"K", "N"})};
    tall.outputs = {tensor("out", {"M", "N"})};
    tall.shapeSets = {{{"M", 16384}, {"N", 64}, {"K", 256}}, {{"M", 10007}, {"N", 33}, {"K", 100}}};
    tall.recipe = R"j({"family": "gemm"})j";
    ops.push_back(tall);

    Op linear;
    linear.name = "linear_bias_relu";
    linear.inputs = {tensor("x", {"B", "IN"}), tensor("weight", {"OUT", "IN"}), tensor("bias", {"OUT"})};
    linear.outputs = {tensor("y", {"B", "OUT"})};
    linear.shapeSets = {{{"B", 512}, {"IN", 1024}, {"OUT", 4096}}, {{"B", 37}, {"IN", 300}, {"OUT", 130}}};
    linear.recipe = R"j({"family": "gemm", "m": "B", "n": "OUT", "k": "IN", "transposeB": true, "bias": "bias",
                        "expression": "fmaxf(acc, 0.0f)"})j";
    ops.push_back(linear);

    Op residual;
    residual.name = "matmul_scale_residual_clamp";
    residual.inputs = {tensor("a", {"M", "K"}), tensor("b", {"K", "N"}), tensor("res", {"M", "N"})};
    residual.outputs = {tensor("out", {"M", "N"})};
    residual.shapeSets = {{{"M", 2048}, {"N", 2048}, {"K", 512}}, {{"M", 999}, {"N", 500}, {"K", 77}}};
    residual.recipe = R"j({"family": "gemm", "expression": "fminf(fmaxf(acc * 2.0f + res, -1.0f), 1.0f)",
                          "epilogueInputs": ["res"]})j";
    ops.push_back(residual);
    return ops;
}

const Op &opNamed(const std::string &name)
{
    static const std::vector<Op> ops = gemmOps();
    for (const auto &op : ops)
        if (op.name == name)
            return op;
    qFatal("no test op %s", name.c_str());
}

} // namespace

class TestGemmTemplate : public QObject
{
    Q_OBJECT

private:
    const GemmTemplate m_template;

    static void addOpRows()
    {
        QTest::addColumn<QString>("op");
        for (const auto &op : gemmOps())
            QTest::newRow(op.name.c_str()) << QString::fromStdString(op.name);
    }

private slots:
    void isRegistered()
    {
        const KernelTemplate *found = findKernelTemplate("gemm");
        QVERIFY(found);
        QVERIFY(found->supports(opNamed("matmul_square"), recipeFor(opNamed("matmul_square"))));
    }

    void defaultsAreValid_data() { addOpRows(); }
    void defaultsAreValid()
    {
        QFETCH(QString, op);
        const Op &gemm = opNamed(op.toStdString());
        const OpRecipe recipe = recipeFor(gemm);
        const Params defaults = m_template.defaults(gemm, recipe);
        QCOMPARE(m_template.check(gemm, recipe, defaults), std::string());
        // A plain tiled kernel: no split-K, no double buffering, scalar loads.
        QCOMPARE(defaults.at("splitK"), 1);
        QCOMPARE(defaults.at("doubleBuffer"), 0);
        QCOMPARE(defaults.at("vec"), 1);
    }

    void defaultsCompileAndResolve_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("arch");
        for (const auto &op : gemmOps())
            for (const char *arch : {"sm_80", "sm_90"})
                QTest::newRow((op.name + " " + arch).c_str()) << QString::fromStdString(op.name) << QString(arch);
    }
    void defaultsCompileAndResolve()
    {
        REQUIRE_NVRTC();
        QFETCH(QString, op);
        QFETCH(QString, arch);
        const Op &gemm = opNamed(op.toStdString());
        const QString problem = verifyCandidate(m_template, gemm, m_template.defaults(gemm, recipeFor(gemm)), arch.toStdString());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void randomCombinationsCompileAndResolve()
    {
        REQUIRE_NVRTC();
        int compiled = 0, splitK = 0, doubleBuffer = 0, vectorised = 0, padded = 0;
        unsigned seed = 2024;
        for (const auto &op : gemmOps()) {
            const auto samples = sampleValid(m_template, op, seed++, 12);
            QCOMPARE(samples.size(), std::size_t(12));
            for (const auto &params : samples) {
                const std::string arch = compiled % 2 ? "sm_90" : "sm_80";
                const QString problem = verifyCandidate(m_template, op, params, arch);
                QVERIFY2(problem.isEmpty(), qPrintable(problem));
                ++compiled;
                splitK += params.at("splitK") > 1;
                doubleBuffer += params.at("doubleBuffer");
                vectorised += params.at("vec") == 4;
                padded += params.at("pad");
            }
        }
        QCOMPARE(compiled, 48);
        // The sample reaches every optional feature of the template.
        QVERIFY(splitK > 0 && doubleBuffer > 0 && vectorised > 0 && padded > 0);
    }

    void largeSharedTilesUseDynamicSharedMemory()
    {
        REQUIRE_NVRTC();
        const Op &op = opNamed("matmul_square");
        const Params params = with(m_template.defaults(op, recipeFor(op)),
                                   {{"bm", 128}, {"bn", 128}, {"bk", 32}, {"tm", 8}, {"tn", 8}, {"pad", 1}, {"doubleBuffer", 1}});
        QCOMPARE(m_template.check(op, recipeFor(op), params), std::string());
        const GeneratedKernel kernel = m_template.generate(op, recipeFor(op), params);
        QVERIFY(kernel.source.find("extern __shared__ float shared[];") != std::string::npos);
        const auto plan = parseLaunchPlan(kernel.launchPlan);
        QVERIFY(plan);
        const auto resolved = resolveLaunchPlan(*plan, op, op.shapeSets.front(), parseKernelSignatures(kernel.source));
        QVERIFY2(resolved, qPrintable(QString::fromStdString(resolved ? "" : resolved.error().message)));
        const auto &step = std::get<ResolvedKernelStep>(resolved->steps.front());
        // Two stages of BK x (BM + PAD) + BK x (BN + PAD) floats: more than the 48 KiB of static shared memory.
        QCOMPARE(step.sharedBytes, std::int64_t(2 * 4 * 32 * (129 + 129)));
        QVERIFY(step.sharedBytes > 48 * 1024);
        QCOMPARE(step.block[0], std::int64_t(256));
        QCOMPARE(step.grid[0], std::int64_t(8));
        QCOMPARE(step.grid[1], std::int64_t(8));
        QVERIFY2(verifyCandidate(m_template, op, params, "sm_80").isEmpty(), "the largest tile compiles");
    }

    void splitKPlanUsesScratchAndTwoKernels()
    {
        const Op &op = opNamed("matmul_scale_residual_clamp");
        const Params params = with(m_template.defaults(op, recipeFor(op)), {{"splitK", 4}});
        QCOMPARE(m_template.check(op, recipeFor(op), params), std::string());
        const GeneratedKernel kernel = m_template.generate(op, recipeFor(op), params);
        const auto plan = parseLaunchPlan(kernel.launchPlan);
        QVERIFY(plan);
        const ShapeSet &odd = op.shapeSets[1];
        const auto resolved = resolveLaunchPlan(*plan, op, odd, parseKernelSignatures(kernel.source));
        QVERIFY2(resolved, qPrintable(QString::fromStdString(resolved ? "" : resolved.error().message)));
        QCOMPARE(resolved->scratchBytes.size(), std::size_t(1));
        QCOMPARE(resolved->scratchBytes.front().first, std::string("partial"));
        QCOMPARE(resolved->scratchBytes.front().second, std::int64_t(4 * 4 * 999 * 500));
        QCOMPARE(resolved->steps.size(), std::size_t(2));
        const auto &partial = std::get<ResolvedKernelStep>(resolved->steps[0]);
        QCOMPARE(partial.kernel, std::string("gemm_partial_kernel"));
        QCOMPARE(partial.grid[2], std::int64_t(4));
        QCOMPARE(partial.grid[1], std::int64_t((999 + 63) / 64));
        const auto &reduce = std::get<ResolvedKernelStep>(resolved->steps[1]);
        QCOMPARE(reduce.kernel, std::string("splitk_epilogue_kernel"));
        QCOMPARE(reduce.grid[0] * reduce.block[0] >= std::int64_t(999 * 500), true);
        // The epilogue (with its residual input) runs in the second kernel only.
        QCOMPARE(reduce.args[1].name, std::string("res"));
        QCOMPARE(reduce.args[2].name, std::string("out"));
        QVERIFY(kernel.source.find("SPLIT_K = 4") != std::string::npos);
    }

    void sourceStatesEveryParameter()
    {
        const Op &op = opNamed("linear_bias_relu");
        const OpRecipe recipe = recipeFor(op);
        const Params params = m_template.defaults(op, recipe);
        const std::string source = m_template.generate(op, recipe, params).source;
        for (const auto &definition : m_template.parameters(op, recipe)) {
            const std::string line = definition.label + " (" + definition.name + ") = " + std::to_string(params.at(definition.name));
            QVERIFY2(source.find(line) != std::string::npos, line.c_str());
        }
        QVERIFY(source.find("fmaxf(acc, 0.0f)") != std::string::npos);
        QVERIFY(source.find("bias[n]") != std::string::npos);
        QVERIFY(source.find("weight[n, k]") != std::string::npos);
    }

    void rejectsInvalidCombinations_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("changes"); // "name=value,..." applied to the defaults; "-name" removes one
        QTest::addColumn<QString>("reason");
        QTest::newRow("too many threads") << "matmul_square" << "bm=128,bn=128,tm=1,tn=2" << "(128/1) x (128/2) = 8192 threads per block exceed 1024";
        QTest::newRow("less than a warp") << "matmul_square" << "bm=32,bn=32,tm=8,tn=8" << "(32/8) x (32/8) = 16 threads per block are less than a warp (32)";
        QTest::newRow("value not allowed") << "matmul_square" << "bk=12" << "k slice per shared tile 12 is not one of the allowed values";
        QTest::newRow("missing") << "matmul_square" << "-splitK" << "missing parameter splitK";
        QTest::newRow("unknown") << "matmul_square" << "unroll=2" << "unknown parameter unroll";
        QTest::newRow("vec with odd N") << "matmul_tall_skinny" << "vec=4" << "float4 loads of b need N divisible by 4 (shape set 2 has N = 33)";
        QTest::newRow("vec with odd K") << "matmul_scale_residual_clamp" << "vec=4" << "float4 loads need K divisible by 4 (shape set 2 has K = 77)";
    }
    void rejectsInvalidCombinations()
    {
        QFETCH(QString, op);
        QFETCH(QString, changes);
        QFETCH(QString, reason);
        const Op &gemm = opNamed(op.toStdString());
        const Params params = withChanges(m_template.defaults(gemm, recipeFor(gemm)), changes);
        QCOMPARE(QString::fromStdString(m_template.check(gemm, recipeFor(gemm), params)), reason);
    }

    void rejectsOpsItCannotHandle_data()
    {
        QTest::addColumn<int>("variant");
        QTest::addColumn<QString>("reason");
        QTest::newRow("b shape") << 0 << "input b is [N, K], the recipe needs [K, N]";
        QTest::newRow("missing bias") << 1 << "the recipe's bias 'c' is not an input of the op";
        QTest::newRow("half") << 2 << "input a is float16: the gemm template handles float32";
        QTest::newRow("name clash") << 3 << "tensor name 'acc' clashes with a name of the generated code";
        QTest::newRow("statement") << 4 << "the epilogue must be a single expression (no ';', braces or preprocessor lines)";
        QTest::newRow("unbound") << 5 << "shape set 1 does not bind M, N and K";
        QTest::newRow("three operands") << 6 << "the gemm template needs exactly two operand inputs besides bias and epilogue inputs (the op has 3)";
        QTest::newRow("twice") << 7 << "'res' appears twice among the bias and epilogue inputs";
    }
    void rejectsOpsItCannotHandle()
    {
        QFETCH(int, variant);
        QFETCH(QString, reason);
        Op op = opNamed("matmul_square");
        switch (variant) {
        case 0: op.inputs[1].shape = {"N", "K"}; break;
        case 1: op.recipe = R"j({"family": "gemm", "bias": "c"})j"; break;
        case 2: op.inputs[0].dtype = "float16"; break;
        case 3: op.inputs[0].name = "acc"; break;
        case 4: op.recipe = R"j({"family": "gemm", "expression": "acc; return 0.0f"})j"; break;
        case 5: op.shapeSets = {{{"M", 64}, {"N", 64}}}; break;
        case 6: op.inputs.push_back(tensor("extra", {"M", "N"})); break;
        case 7:
            op.inputs.push_back(tensor("res", {"M", "N"}));
            op.recipe = R"j({"family": "gemm", "epilogueInputs": ["res", "res"], "expression": "acc + res"})j";
            break;
        }
        const OpRecipe recipe = recipeFor(op);
        QCOMPARE(QString::fromStdString(m_template.check(op, recipe, m_template.defaults(op, recipe))), reason);
    }

    void generateRefusesInvalidParameters()
    {
        const Op &op = opNamed("matmul_square");
        const Params params = with(m_template.defaults(op, recipeFor(op)), {{"tm", 1}, {"tn", 1}});
        const GeneratedKernel kernel = m_template.generate(op, recipeFor(op), params);
        QCOMPARE(kernel.source, std::string("#error \"gemm template: (64/1) x (64/1) = 4096 threads per block exceed 1024\"\n"));
        QVERIFY(!parseLaunchPlan(kernel.launchPlan));
        Op broken = op;
        broken.inputs.pop_back(); // one operand: nothing to multiply, and no crash either
        QVERIFY(m_template.generate(broken, recipeFor(broken), m_template.defaults(broken, recipeFor(broken)))
                    .source.rfind("#error", 0) == 0);
    }

    void generateIsDeterministic()
    {
        for (const auto &op : gemmOps()) {
            const OpRecipe recipe = recipeFor(op);
            for (const auto &params : sampleValid(m_template, op, 7, 5)) {
                const GeneratedKernel first = m_template.generate(op, recipe, params);
                const GeneratedKernel second = m_template.generate(op, recipe, params);
                QCOMPARE(first.source, second.source);
                QCOMPARE(first.launchPlan, second.launchPlan);
            }
        }
        // Different parameters give different code.
        const Op &op = opNamed("matmul_square");
        const Params defaults = m_template.defaults(op, recipeFor(op));
        QVERIFY(m_template.generate(op, recipeFor(op), defaults).source
                != m_template.generate(op, recipeFor(op), with(defaults, {{"pad", 1}})).source);
    }
};

QTEST_MAIN(TestGemmTemplate)
#include "tst_gemmtemplate.moc"
