#include "core/domain/domainjson.h"

#include "qtestprinters.h"

#include <QTest>

using namespace kx;

class TestDomain : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void summarizesSamples_data()
    {
        QTest::addColumn<QList<double>>("samples");
        QTest::addColumn<double>("median");
        QTest::addColumn<double>("iqr");
        QTest::addColumn<double>("minimum");
        QTest::newRow("empty") << QList<double>{} << 0.0 << 0.0 << 0.0;
        QTest::newRow("one") << QList<double>{2.0} << 2.0 << 0.0 << 2.0;
        QTest::newRow("odd, unsorted") << QList<double>{5, 1, 3} << 3.0 << 2.0 << 1.0;
        QTest::newRow("even") << QList<double>{1, 2, 3, 4} << 2.5 << 1.5 << 1.0;
    }

    void summarizesSamples()
    {
        QFETCH(QList<double>, samples);
        QFETCH(double, median);
        QFETCH(double, iqr);
        QFETCH(double, minimum);
        const auto summary = summarize(std::vector<double>(samples.begin(), samples.end()));
        QCOMPARE(summary.medianMs, median);
        QCOMPARE(summary.iqrMs, iqr);
        QCOMPARE(summary.minMs, minimum);
        QCOMPARE(summary.runs, int(samples.size()));
    }

    void candidateIdIsContentHash()
    {
        const auto id = makeCandidateId("a", "b");
        QCOMPARE(id.size(), std::size_t(64));
        QCOMPARE(makeCandidateId("a", "b"), id);
        QVERIFY(makeCandidateId("ab", "") != id); // moving text across the boundary changes the id
        QVERIFY(makeCandidateId("a", "c") != id);
    }

    void enumsRoundTrip()
    {
        for (auto status : {EvalStatus::Correct, EvalStatus::Incorrect, EvalStatus::CompileError,
                            EvalStatus::PlanError, EvalStatus::LaunchError, EvalStatus::Fault, EvalStatus::Timeout,
                            EvalStatus::Crashed})
            QCOMPARE(evalStatusFromString(toString(status)), status);
        for (auto origin : {Origin::Translated, Origin::Mutated, Origin::Crossover, Origin::Manual, Origin::Imported})
            QCOMPARE(originFromString(toString(origin)), origin);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, evalStatusFromString("fine"));
    }

    void opJsonRoundTrip()
    {
        Op op;
        op.name = "matmul";
        op.inputs = {TensorSpec{"a", {"M", "K"}}, TensorSpec{"b", {"K", "N"}}};
        op.outputs = {TensorSpec{"c", {"M", "N"}}};
        op.shapeSets = {{{"M", 64}, {"N", 32}, {"K", 16}}, {{"M", 7}, {"N", 5}, {"K", 3}}};
        op.bytesMovedExpr = "4*(M*K+K*N+M*N)";
        op.flopsExpr = "2*M*N*K";
        op.policy.atol = 1e-3;
        const Op back = nlohmann::json(op).get<Op>();
        QVERIFY(back == op);
    }
};

QTEST_GUILESS_MAIN(TestDomain)
#include "tst_domain.moc"
