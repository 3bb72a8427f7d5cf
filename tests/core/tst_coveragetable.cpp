// kx coverage's table: both baselines in every row, fast_1 and the geometric mean against each in the summary,
// and the CSV that --resume reads back (today's and the one written before the Inductor columns).
#include "coveragetable.h"

#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <sstream>

using namespace kx::cli;

namespace {

CoverageRow verifiedRow(const std::string &file, double eagerMs, double inductorMs, double bestMs)
{
    CoverageRow row;
    row.file = file;
    row.op = "kb/" + file.substr(0, file.size() - 3);
    row.imported = row.translated = row.searched = row.verified = true;
    row.family = "gemm";
    row.precision = "fp32";
    row.eagerMs = eagerMs;
    row.inductorMs = inductorMs;
    row.bestMs = bestMs;
    row.speedup = eagerMs / bestMs;
    row.inductorSpeedup = inductorMs > 0 ? inductorMs / bestMs : 0;
    return row;
}

std::vector<CoverageRow> sampleRows()
{
    CoverageRow untranslated;
    untranslated.file = "3_bmm.py";
    untranslated.op = "kb/3_bmm";
    untranslated.imported = true;
    untranslated.note = "unsupported calls: aten::bmm";
    auto noInductor = verifiedRow("4_norm.py", 1.0, 0, 0.8);
    noInductor.note = "no Inductor baseline: torch.export failed, with a comma";
    return {verifiedRow("1_gemm.py", 2.0, 1.0, 1.0),  // beats eager 2x, ties Inductor
            verifiedRow("2_relu.py", 1.0, 0.5, 0.25), // 4x and 2x
            untranslated, noInductor};                // 1.25x, no Inductor time
}

} // namespace

TEST_CASE("the table shows both baselines and summarises fast_1 and the geometric mean against each")
{
    std::ostringstream out;
    writeCoverageMarkdown(out, sampleRows(), true);
    const std::string text = out.str();
    INFO(text);
    CHECK(text.find("| eager ms | Inductor ms | best ms | x eager | x Inductor |") != std::string::npos);
    CHECK(text.find("| 2_relu.py | kb/2_relu | yes | gemm | yes | yes | fp32 | 1.000 ms | 0.5000 ms | 0.2500 ms | "
                    "4.00x | 2.00x |")
          != std::string::npos);
    CHECK(text.find("| 4_norm.py | kb/4_norm | yes | gemm | yes | yes | fp32 | 1.000 ms | - | 0.8000 ms | 1.25x | - |")
          != std::string::npos);
    CHECK(text.find("4 files: 4 imported, 3 translated (75%), 3 verified (75%)") != std::string::npos);
    CHECK(text.find("- fast_1 vs eager = 0.75 (3 of 4 correct and faster than eager PyTorch)") != std::string::npos);
    // 1_gemm only ties torch.compile: one of four is faster.
    CHECK(text.find("- fast_1 vs Inductor = 0.25 (1 of 4 correct and faster than torch.compile; 2 problems have an "
                    "Inductor time)")
          != std::string::npos);
    // (2 * 4 * 1.25)^(1/3) = 10^(1/3) = 2.15; (1 * 2)^(1/2) = 1.41
    CHECK(text.find("- geometric mean speedup vs eager = 2.15x over the 3 verified problems; vs Inductor = 1.41x over "
                    "the 2 verified problems with an Inductor time")
          != std::string::npos);
}

TEST_CASE("the CSV keeps every column, and --resume also reads the one from before the Inductor columns")
{
    kx::test::TemporaryDir dir;
    const auto path = dir.filePath("coverage.csv");
    std::ostringstream out;
    writeCoverageCsv(out, sampleRows());
    REQUIRE(kx::test::writeFile(path, out.str()));
    const auto rows = readCoverageCsv(path);
    REQUIRE(rows.size() == 4);
    const auto &relu = rows.at("2_relu.py");
    CHECK(relu.verified);
    CHECK(relu.precision == "fp32");
    CHECK(relu.eagerMs == doctest::Approx(1.0));
    CHECK(relu.inductorMs == doctest::Approx(0.5));
    CHECK(relu.bestMs == doctest::Approx(0.25));
    CHECK(relu.speedup == doctest::Approx(4.0));
    CHECK(relu.inductorSpeedup == doctest::Approx(2.0));
    CHECK(rows.at("4_norm.py").note == "no Inductor baseline: torch.export failed, with a comma");
    CHECK(rows.at("3_bmm.py").note == "unsupported calls: aten::bmm");
    CHECK_FALSE(rows.at("3_bmm.py").translated);

    REQUIRE(kx::test::writeFile(path, "file,op,imported,recipe,translated,searched,verified,speedup,note\n"
                                      "1_gemm.py,kb/1_gemm,yes,gemm,yes,yes,yes,0.5,\n"));
    const auto old = readCoverageCsv(path);
    REQUIRE(old.size() == 1);
    CHECK(old.at("1_gemm.py").speedup == doctest::Approx(0.5));
    CHECK(old.at("1_gemm.py").inductorMs == 0);

    REQUIRE(kx::test::writeFile(path, "file,something,else\n1,2,3\n"));
    CHECK(readCoverageCsv(path).empty());
}

TEST_CASE("an unverified translation's note names the flags of any of its evaluations, not only the last one's")
{
    using kx::EvalStatus;
    kx::Evaluation flagged;
    flagged.status = EvalStatus::Correct;
    flagged.message = "correct; 0.9x vs PyTorch eager";
    flagged.flags = {{"nondeterministic", "{}"}, {"no-floor", "{}"}};
    kx::Evaluation clean = flagged;
    clean.flags.clear();
    kx::Evaluation again = flagged;
    again.flags = {{"nondeterministic", "{}"}};
    const std::string id = "0123456789abcdef";
    // The flag found on the first run keeps the candidate from counting although the later evaluation is clean.
    CHECK(unverifiedNote({flagged, clean}, id)
          == "correct but flagged nondeterministic, no-floor (kx archive show 0123456789ab)");
    CHECK(unverifiedNote({again, flagged}, id)
          == "correct but flagged nondeterministic, no-floor (kx archive show 0123456789ab)");
    kx::Evaluation wrong;
    wrong.status = EvalStatus::Incorrect;
    wrong.message = "trial 1: output out differs";
    CHECK(unverifiedNote({wrong}, id) == "incorrect: trial 1: output out differs");
    CHECK(unverifiedNote({}, id) == "not evaluated");
}
