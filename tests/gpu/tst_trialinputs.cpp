// The inputs of the correctness trials, without a GPU: seeded fills from every distribution, the structure the
// structured ones promise, bool masks, and the absolute tolerance each trial's inputs get.
#include "core/gpu/tensorops.h"
#include "core/gpu/tensorview.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <vector>

using namespace kx;

namespace {

TensorView hostView(std::vector<float> &values)
{
    return TensorView{values.data(), {std::int64_t(values.size())}, DType::Float32, -1};
}

} // namespace

// Bool inputs (a mask): one byte an element, filled with 0s and 1s from the seed, compared exactly.
TEST_CASE("bool tensors: masks of random 0s and 1s, reproducible, compared element by element")
{
    const auto dtype = dtypeFromString("bool");
    REQUIRE(dtype);
    CHECK(*dtype == DType::Bool);
    CHECK(dtypeSize(DType::Bool) == 1);
    CHECK_FALSE(isFloatingPoint(DType::Bool));
    CHECK(std::string(toString(DType::Bool)) == "bool");
    const auto layout = resolveLayout({"mask", {"N", "3"}, "bool"}, {{"N", 5}});
    REQUIRE(layout);
    CHECK(layout->byteCount() == 15);
    if (!TensorOps::haveTorch())
        return;
    std::vector<unsigned char> mask(4096, 7), again(4096, 7), other(4096, 7);
    const auto view = [](std::vector<unsigned char> &bytes) {
        return TensorView{bytes.data(), {64, 64}, DType::Bool, -1};
    };
    for (const auto distribution : {Distribution::Normal, Distribution::Wide}) {
        REQUIRE(TensorOps::fillRandom(view(mask), 9, distribution, 0.5).isOk());
        REQUIRE(TensorOps::fillRandom(view(again), 9, distribution).isOk());
        CHECK(mask == again);
    }
    REQUIRE(TensorOps::fillRandom(view(other), 10, Distribution::Normal).isOk());
    CHECK(mask != other);
    CHECK(std::all_of(mask.begin(), mask.end(), [](unsigned char byte) { return byte <= 1; }));
    const auto ones = std::count(mask.begin(), mask.end(), 1);
    CHECK(ones > 1800);
    CHECK(ones < 2300);

    CHECK(TensorOps::compare(view(again), view(mask), 0, 0)->mismatches == 0);
    again[100] = 1 - again[100];
    again[7] = 1 - again[7];
    const auto comparison = TensorOps::compare(view(again), view(mask), 0, 0);
    REQUIRE(comparison.hasValue());
    CHECK(comparison->mismatches == 2);
    CHECK(comparison->firstMismatch == 7);
    CHECK(*TensorOps::allFinite(view(mask)));
}

// Class indices (cross entropy's targets): an int64 input whose spec gives a value range gets values in it, whatever
// the distribution; a range that cannot be drawn from is an error, never a silent fill with other values.
TEST_CASE("int64 inputs with a value range: drawn from [low, high), bounds from the shape set, bad ranges refused")
{
    TensorSpec targets{"targets", {"N"}, "int64"};
    targets.valueRange = {"0", "C"};
    const auto layout = resolveLayout(targets, {{"N", 4096}, {"C", 7}});
    REQUIRE(layout);
    REQUIRE(layout->valueRange);
    CHECK(*layout->valueRange == IntegerRange{0, 7});
    CHECK_FALSE(resolveLayout({"targets", {"N"}, "int64"}, {{"N", 3}})->valueRange);

    const auto refused = [](std::vector<std::string> range, const std::string &dtype) {
        TensorSpec spec{"t", {"N"}, dtype};
        spec.valueRange = std::move(range);
        const auto resolved = resolveLayout(spec, {{"N", 3}, {"C", 5}});
        return resolved ? std::string() : resolved.error().message;
    };
    CHECK(refused({"0", "C"}, "float32") == "tensor 't': value range on a float32 tensor: only integer tensors take one");
    CHECK(refused({"5", "C"}, "int64") == "tensor 't': value range [5, 5) is empty");
    CHECK(refused({"0", "K"}, "int64")
          == "tensor 't': value range [0, K): a bound is neither an integer nor a shape symbol");
    CHECK(refused({"0"}, "int64") == "tensor 't': value range needs two bounds, [low, high)");
    CHECK(refused({"-3", "C"}, "int64").empty());

    // A view of the layout carries the range: whoever fills the op's inputs draws class indices.
    std::vector<std::int64_t> values(4096, -1), again(4096, -1), unranged(4096, -1);
    const TensorView targetsView = layout->view(values.data(), -1);
    REQUIRE(targetsView.valueRange);
    CHECK(*targetsView.valueRange == IntegerRange{0, 7});
    if (!TensorOps::haveTorch())
        return;
    const auto view = [](std::vector<std::int64_t> &v, std::optional<IntegerRange> range) {
        return TensorView{v.data(), {std::int64_t(v.size())}, DType::Int64, -1, range};
    };
    for (const auto distribution : {Distribution::Normal, Distribution::Sorted, Distribution::Constant}) {
        REQUIRE(TensorOps::fillRandom(targetsView, 5, distribution).isOk());
        CHECK(std::all_of(values.begin(), values.end(), [](std::int64_t v) { return v >= 0 && v < 7; }));
        CHECK(std::set<std::int64_t>(values.begin(), values.end()).size() == 7); // every class drawn
    }
    REQUIRE(TensorOps::fillRandom(view(again, IntegerRange{0, 7}), 5, Distribution::Normal).isOk());
    CHECK(values == again);
    // Without a range int64 inputs span [-1000, 1000): the targets' range is what keeps them class indices.
    REQUIRE(TensorOps::fillRandom(view(unranged, std::nullopt), 5, Distribution::Normal).isOk());
    CHECK(*std::min_element(unranged.begin(), unranged.end()) < 0);
    std::vector<float> floats(16);
    TensorView rangedFloats = hostView(floats);
    rangedFloats.valueRange = IntegerRange{0, 7};
    CHECK_FALSE(TensorOps::fillRandom(rangedFloats, 5, Distribution::Normal).isOk());
    CHECK_FALSE(TensorOps::fillRandom(view(values, IntegerRange{3, 3}), 5, Distribution::Normal).isOk());
}

TEST_CASE("seeded random inputs: reproducible, distinct per seed, from several distributions")
{
    if (!TensorOps::haveTorch())
        return;
    std::vector<float> first(4096);
    std::vector<float> again(4096);
    std::vector<float> other(4096);
    REQUIRE(TensorOps::fillRandom(hostView(first), 11, Distribution::Normal).isOk());
    REQUIRE(TensorOps::fillRandom(hostView(again), 11, Distribution::Normal).isOk());
    REQUIRE(TensorOps::fillRandom(hostView(other), 12, Distribution::Normal).isOk());
    CHECK(first == again);
    CHECK(first != other);

    std::vector<float> uniform(4096);
    REQUIRE(TensorOps::fillRandom(hostView(uniform), 11, Distribution::Uniform).isOk());
    CHECK(*std::min_element(uniform.begin(), uniform.end()) >= -1.0f);
    CHECK(*std::max_element(uniform.begin(), uniform.end()) <= 1.0f);
    CHECK(*std::min_element(uniform.begin(), uniform.end()) < 0.0f);

    std::vector<float> wide(4096);
    REQUIRE(TensorOps::fillRandom(hostView(wide), 11, Distribution::Wide).isOk());
    const auto largest =
        std::max_element(wide.begin(), wide.end(), [](float x, float y) { return std::abs(x) < std::abs(y); });
    CHECK(std::abs(*largest) > 100.0f);
}

TEST_CASE("structured input distributions have the structure they promise")
{
    if (!TensorOps::haveTorch())
        return;
    const auto fill = [](Distribution distribution, double scale = 1.0) {
        std::vector<float> values(5000);
        REQUIRE(TensorOps::fillRandom(hostView(values), 21, distribution, scale).isOk());
        return values;
    };
    const auto constant = fill(Distribution::Constant);
    CHECK(std::all_of(constant.begin(), constant.end(), [&](float v) { return v == constant.front(); }));
    CHECK(constant.front() != 0.0f);

    const auto integers = fill(Distribution::IntegerValued);
    CHECK(
        std::all_of(integers.begin(), integers.end(), [](float v) { return v == std::round(v) && std::abs(v) <= 8; }));
    CHECK(std::set<float>(integers.begin(), integers.end()).size() == 17);

    const auto sorted = fill(Distribution::Sorted);
    CHECK(std::is_sorted(sorted.begin(), sorted.end()));
    CHECK(sorted.front() < sorted.back());
    const auto reverse = fill(Distribution::ReverseSorted);
    CHECK(std::is_sorted(reverse.rbegin(), reverse.rend()));
    CHECK(reverse.front() > reverse.back());

    const auto ramp = fill(Distribution::Ramp);
    CHECK(ramp.front() == doctest::Approx(0.5));
    CHECK(ramp.back() == doctest::Approx(2.0));
    CHECK(std::is_sorted(ramp.begin(), ramp.end()));

    // In a matrix each row is sorted, or a ramp, of its own.
    std::vector<float> matrix(40 * 25);
    TensorView view{matrix.data(), {40, 25}, DType::Float32, -1};
    REQUIRE(TensorOps::fillRandom(view, 3, Distribution::Sorted).isOk());
    for (int r = 0; r < 40; ++r)
        CHECK(std::is_sorted(matrix.begin() + r * 25, matrix.begin() + (r + 1) * 25));
    CHECK_FALSE(std::is_sorted(matrix.begin(), matrix.end()));
    REQUIRE(TensorOps::fillRandom(view, 3, Distribution::Ramp).isOk());
    for (int r = 0; r < 40; ++r) {
        CHECK(matrix[std::size_t(r) * 25] == doctest::Approx(0.5));
        CHECK(matrix[std::size_t(r) * 25 + 24] == doctest::Approx(2.0));
    }

    const auto positive = fill(Distribution::Positive);
    CHECK(std::all_of(positive.begin(), positive.end(), [](float v) { return v >= 0; }));
    const auto negative = fill(Distribution::Negative);
    CHECK(std::all_of(negative.begin(), negative.end(), [](float v) { return v <= 0; }));

    const auto mixed = fill(Distribution::Mixed);
    std::vector<float> magnitudes;
    for (const float v : mixed)
        magnitudes.push_back(std::abs(v));
    std::sort(magnitudes.begin(), magnitudes.end());
    CHECK(magnitudes[magnitudes.size() * 99 / 100] / magnitudes[magnitudes.size() / 100] > 1e5);

    const auto special = fill(Distribution::Special);
    const auto count = [&](auto predicate) { return std::count_if(special.begin(), special.end(), predicate); };
    CHECK(count([](float v) { return std::isnan(v); }) > 0);
    CHECK(count([](float v) { return std::isinf(v) && v > 0; }) > 0);
    CHECK(count([](float v) { return std::isinf(v) && v < 0; }) > 0);
    CHECK(count([](float v) { return v != 0 && std::fpclassify(v) == FP_SUBNORMAL; }) > 0);
    CHECK(count([](float v) { return v == std::numeric_limits<float>::max(); }) > 0);
    CHECK(count([](float v) { return std::isfinite(v) && std::abs(v) < 10; }) > 4500); // mostly ordinary values

    // The scale multiplies every value; it is what shrinks inputs on which the reference overflows.
    const auto normal = fill(Distribution::Normal);
    const auto shrunk = fill(Distribution::Normal, 1.0 / 16);
    for (std::size_t i = 0; i < normal.size(); ++i)
        CHECK(shrunk[i] == normal[i] / 16);

    // The trials draw every distribution but special values once, each under its own name.
    std::set<std::string> names;
    for (const auto distribution : trialDistributions())
        names.insert(toString(distribution));
    CHECK(names.size() == trialDistributions().size());
    CHECK(trialDistributions().size() == 11);
    CHECK(names.count(toString(Distribution::Special)) == 0);
}

TEST_CASE("a trial's absolute tolerance follows the partial sums of large inputs and of sorted or ramp rows")
{
    // Unit-scale random inputs: the policy's own.
    CHECK(trialAtol(1e-3, 1e-2, Distribution::Normal, 1.0, 45.0) == 1e-3);
    CHECK(trialAtol(1e-3, 1e-2, Distribution::Uniform, 1.0, 45.0) == 1e-3);
    CHECK(trialAtol(1e-3, 1e-2, Distribution::Positive, 1.0, 45.0) == 1e-3);
    // Sorted rows: rtol of the outputs' RMS (a 2048-long product of sorted rows has outputs of RMS about 45 that
    // cancel down to hundredths), never below the policy's.
    CHECK(trialAtol(1e-3, 1e-2, Distribution::Sorted, 1.0, 45.0) == doctest::Approx(0.45));
    CHECK(trialAtol(1e-3, 1e-2, Distribution::ReverseSorted, 1.0, 45.0) == doctest::Approx(0.45));
    CHECK(trialAtol(1e-3, 1e-2, Distribution::ReverseSorted, 1.0, 0.01) == doctest::Approx(1e-3));
    CHECK(trialAtol(1e-3, 1e-2, Distribution::Ramp, 1.0, 0.01) == doctest::Approx(2.5e-3)); // ramps reach 2.5
    // Large inputs: the policy's times their size, or rtol of the outputs' RMS.
    CHECK(trialAtol(1e-3, 1e-2, Distribution::Wide, 1.0, 1.0) == doctest::Approx(0.1));
    CHECK(trialAtol(1e-3, 1e-2, Distribution::Wide, 1.0, 1000.0) == doctest::Approx(10.0));
    CHECK(trialAtol(1e-3, 1e-2, Distribution::Wide, 1.0 / 16, 0.0) == doctest::Approx(6.25e-3)); // shrunk inputs
}
