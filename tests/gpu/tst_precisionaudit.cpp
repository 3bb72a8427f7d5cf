// The reduced-precision flag under a policy that allows TF32: the candidate is held to eager as the policy runs
// it (the reference with TF32 allowed), whose own products may exceed the arithmetic bound; and the audit's JSON.
#include "core/domain/domainjson.h"
#include "core/gpu/precisionaudit.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace kx;

namespace {

constexpr double kTf32Unit = kTf32UnitRoundoff;

ErrorProfile profileWithP99(double p99)
{
    return ErrorProfile{100000, 4 * p99, p99, p99 / 8};
}

// A TF32 convolution followed by a norm: the fp32 reference is close to the float64 answer, eager with TF32
// is 40 TF32 units off at the 99th percentile (outputs near zero, magnified by the norm).
PrecisionAudit convolutionThenNorm(double candidateP99)
{
    PrecisionAudit audit;
    audit.candidate = profileWithP99(candidateP99);
    audit.fp32Reference = profileWithP99(2e-7);
    audit.policyReference = profileWithP99(40 * kTf32Unit);
    return audit;
}

} // namespace

TEST_CASE("under tf32 a candidate as far from the float64 answer as eager with TF32 is not flagged")
{
    const auto audit = convolutionThenNorm(60 * kTf32Unit);
    CHECK(audit.candidate.p99RelError > 32 * kTf32Unit); // beyond what the arithmetic alone explains
    CHECK_FALSE(reducedPrecisionFlag(audit, Precision::Tf32));

    // Without eager's profile the same candidate is flagged: the policy reference is what lifts the limit.
    auto withoutEager = audit;
    withoutEager.policyReference = {};
    CHECK(reducedPrecisionFlag(withoutEager, Precision::Tf32));
}

TEST_CASE("under tf32 a candidate far beyond eager with TF32 is flagged, with eager's numbers as evidence")
{
    const auto audit = convolutionThenNorm(400 * kTf32Unit);
    const auto flag = reducedPrecisionFlag(audit, Precision::Tf32);
    REQUIRE(flag);
    CHECK(flag->kind == "reduced-precision");
    const auto evidence = nlohmann::json::parse(flag->evidence);
    CHECK(evidence.at("policyReferenceP99RelError").get<double>() == audit.policyReference.p99RelError);
    CHECK(evidence.at("policyReferenceMaxRelError").get<double>() == audit.policyReference.maxRelError);
    CHECK(evidence.at("limit").get<double>() == doctest::Approx(8 * audit.policyReference.p99RelError));
    CHECK(evidence.at("candidateP99RelError").get<double>() == audit.candidate.p99RelError);
}

TEST_CASE("under fp32 the policy reference is ignored")
{
    PrecisionAudit audit;
    audit.candidate = profileWithP99(1e-5); // above 8 x fp32's and 64 fp32 units
    audit.fp32Reference = profileWithP99(1e-7);
    audit.policyReference = profileWithP99(1e-4); // would admit the candidate if it counted
    const auto flag = reducedPrecisionFlag(audit, Precision::Fp32);
    REQUIRE(flag);
    const auto evidence = nlohmann::json::parse(flag->evidence);
    CHECK(evidence.at("policyReferenceP99RelError").get<double>() == 0);
    CHECK(evidence.at("limit").get<double>() == doctest::Approx(8 * audit.fp32Reference.p99RelError));
    // Under tf32 the same candidate is within TF32's own arithmetic.
    CHECK_FALSE(reducedPrecisionFlag(audit, Precision::Tf32));
}

TEST_CASE("a precision audit keeps eager's TF32 profile through JSON, and older audits read without one")
{
    const auto audit = convolutionThenNorm(60 * kTf32Unit);
    const nlohmann::json j = audit;
    CHECK(j.at("policyReference").at("p99RelError").get<double>() == audit.policyReference.p99RelError);
    CHECK(j.get<PrecisionAudit>() == audit);

    CorrectnessReport report;
    report.trials = 3;
    report.precisionAudit = audit;
    const nlohmann::json reportJson = report;
    CHECK(reportJson.get<CorrectnessReport>() == report);

    auto old = j;
    old.erase("policyReference");
    const auto read = old.get<PrecisionAudit>();
    CHECK(read.policyReference == ErrorProfile{});
    CHECK(read.candidate == audit.candidate);
    CHECK(read.fp32Reference == audit.fp32Reference);
}
