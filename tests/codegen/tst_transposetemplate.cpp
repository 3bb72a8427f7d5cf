// The transpose template: parameter checks, generated source and plan, real NVRTC compiles and plan resolution.
#include "core/codegen/transposetemplate.h"
#include "core/eval/launchplan.h"

#include "templatetestsupport.h"

#include <QtTest>

using namespace kx;
using namespace kx::test;

namespace {

// The second shape set of each op has sizes that are not multiples of any tile.
std::vector<Op> transposeOps()
{
    Op square;
    square.name = "transpose_square";
    square.inputs = {tensor("x", {"R", "C"})};
    square.outputs = {tensor("out", {"C", "R"})};
    square.shapeSets = {{{"R", 4096}, {"C", 4096}}, {{"R", 1000}, {"C", 333}}};
    square.recipe = R"j({"family": "transpose"})j";

    Op wide;
    wide.name = "transpose_wide";
    wide.inputs = {tensor("in", {"ROWS", "COLS"})};
    wide.outputs = {tensor("y", {"COLS", "ROWS"})};
    wide.shapeSets = {{{"ROWS", 64}, {"COLS", 65536}}, {{"ROWS", 7}, {"COLS", 100003}}};
    wide.recipe = R"j({"family": "transpose", "rows": "ROWS", "cols": "COLS"})j";
    return {square, wide};
}

} // namespace

class TestTransposeTemplate : public QObject
{
    Q_OBJECT

private:
    const TransposeTemplate m_template;

private slots:
    void isRegistered()
    {
        const Op op = transposeOps().front();
        const KernelTemplate *found = findKernelTemplate("transpose");
        QVERIFY(found);
        QVERIFY(found->supports(op, recipeFor(op)));
    }

    void defaults()
    {
        const Op op = transposeOps().front();
        const Params params = m_template.defaults(op, recipeFor(op));
        QCOMPARE(params, (Params{{"tile", 32}, {"rows", 8}, {"pad", 1}, {"staging", 1}}));
        QCOMPARE(m_template.check(op, recipeFor(op), params), std::string());
        const GeneratedKernel kernel = m_template.generate(op, recipeFor(op), params);
        QVERIFY(kernel.source.find("__shared__ float tile[TILE][TILE + PAD];") != std::string::npos);
        QVERIFY(kernel.source.find("constexpr int PAD = 1;") != std::string::npos);
        for (const auto &definition : m_template.parameters(op, recipeFor(op))) {
            const std::string line = definition.label + " (" + definition.name + ") = " + std::to_string(params.at(definition.name));
            QVERIFY2(kernel.source.find(line) != std::string::npos, line.c_str());
        }
    }

    void defaultsCompileAndResolve_data()
    {
        addOpAndArchRows(transposeOps());
    }
    void defaultsCompileAndResolve()
    {
        REQUIRE_NVRTC();
        QFETCH(int, op);
        QFETCH(QString, arch);
        const Op transpose = transposeOps()[std::size_t(op)];
        const QString problem = verifyCandidate(m_template, transpose, m_template.defaults(transpose, recipeFor(transpose)),
                                                arch.toStdString());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The space is small: every valid combination of both ops (seeded order), 80 compiles in all.
    void everyValidCombinationCompilesAndResolves()
    {
        REQUIRE_NVRTC();
        const SpaceVerification space = verifyWholeSpace(m_template, transposeOps(), 99);
        QVERIFY2(space.problem.isEmpty(), qPrintable(space.problem));
        // Per op: tile 16 takes 4, 8 or 16 rows, tile 32 any of the four, tile 64 up to 16 (1024 threads).
        QCOMPARE(space.compiled, 2 * 10 * 2 * 2);
        QCOMPARE(space.rejected, 2 * 2 * 2 * 2);
    }

    void planCoversTheMatrix()
    {
        const Op op = transposeOps()[1];
        const Params params{{"tile", 64}, {"rows", 16}, {"pad", 0}, {"staging", 0}};
        const GeneratedKernel kernel = m_template.generate(op, recipeFor(op), params);
        const auto plan = parseLaunchPlan(kernel.launchPlan);
        QVERIFY(plan);
        const auto resolved = resolveLaunchPlan(*plan, op, op.shapeSets[1], parseKernelSignatures(kernel.source));
        QVERIFY2(resolved, qPrintable(QString::fromStdString(resolved ? "" : resolved.error().message)));
        const auto &step = std::get<ResolvedKernelStep>(resolved->steps.front());
        QCOMPARE(step.block[0], std::int64_t(64));
        QCOMPARE(step.block[1], std::int64_t(16));
        QCOMPARE(step.grid[0], std::int64_t((100003 + 63) / 64)); // along COLS
        QCOMPARE(step.grid[1], std::int64_t(1));                  // 7 rows fit one tile
        QCOMPARE(step.args[2].intValue, std::int64_t(7));
        QCOMPARE(step.args[3].intValue, std::int64_t(100003));
        QVERIFY(kernel.source.find("__shared__") == std::string::npos);
    }

    void rejectsInvalidCombinations_data()
    {
        QTest::addColumn<QString>("changes");
        QTest::addColumn<QString>("reason");
        QTest::newRow("too many threads") << "tile=64,rows=32" << "64 x 32 = 2048 threads per block exceed 1024";
        QTest::newRow("rows beyond tile") << "tile=16,rows=32" << "32 rows per pass exceed the tile of 16";
        QTest::newRow("value") << "tile=48" << "tile size 48 is not one of the allowed values";
        QTest::newRow("missing") << "-staging" << "missing parameter staging";
        QTest::newRow("unknown") << "vec=4" << "unknown parameter vec";
    }
    void rejectsInvalidCombinations()
    {
        QFETCH(QString, changes);
        QFETCH(QString, reason);
        const Op op = transposeOps().front();
        const Params params = withChanges(m_template.defaults(op, recipeFor(op)), changes);
        QCOMPARE(QString::fromStdString(m_template.check(op, recipeFor(op), params)), reason);
    }

    void rejectsOpsItCannotHandle()
    {
        Op op = transposeOps().front();
        op.outputs.front().shape = {"R", "C"};
        QCOMPARE(m_template.check(op, recipeFor(op), m_template.defaults(op, recipeFor(op))),
                 std::string("the transpose template needs input [R, C] and output [C, R]"));
        op = transposeOps().front();
        op.inputs.front().dtype = "float64";
        QCOMPARE(m_template.check(op, recipeFor(op), m_template.defaults(op, recipeFor(op))),
                 std::string("the transpose template handles float32"));
        op = transposeOps().front();
        op.shapeSets.push_back({{"R", 10}});
        QCOMPARE(m_template.check(op, recipeFor(op), m_template.defaults(op, recipeFor(op))),
                 std::string("shape set 3 does not bind R and C"));
    }

    void generateRefusesInvalidParameters()
    {
        Op op = transposeOps().front();
        op.inputs.clear();
        const GeneratedKernel kernel = m_template.generate(op, recipeFor(op), m_template.defaults(op, recipeFor(op)));
        QCOMPARE(kernel.source, std::string("#error \"transpose template: the transpose template needs one input and one output\"\n"));
        QVERIFY(!parseLaunchPlan(kernel.launchPlan));
    }

    void generateIsDeterministic()
    {
        for (const auto &op : transposeOps()) {
            for (const auto &params : validSpace(m_template, op, 5)) {
                const GeneratedKernel first = m_template.generate(op, recipeFor(op), params);
                const GeneratedKernel second = m_template.generate(op, recipeFor(op), params);
                QCOMPARE(first.source, second.source);
                QCOMPARE(first.launchPlan, second.launchPlan);
            }
        }
    }
};

QTEST_MAIN(TestTransposeTemplate)
#include "tst_transposetemplate.moc"
