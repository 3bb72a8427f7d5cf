// Error, its kind, and the Expected and Status that carry it: a failure's kind travels with it as data.
#include "core/util/expected.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using kx::Error;
using kx::ErrorKind;
using kx::Expected;
using kx::Status;

namespace {

constexpr ErrorKind kAllKinds[] = {ErrorKind::Failed, ErrorKind::BadInput, ErrorKind::NoGpu, ErrorKind::Unavailable,
                                   ErrorKind::Cancelled};

Expected<int> parsePositive(int value)
{
    if (value <= 0)
        return Error::badInput(std::to_string(value) + " is not positive");
    return value;
}

} // namespace

TEST_CASE("an Error made from a message alone is a plain failure")
{
    const Error plain{"it broke"};
    CHECK(plain.message == "it broke");
    CHECK(plain.kind == ErrorKind::Failed);
    CHECK(Error{}.kind == ErrorKind::Failed);
    CHECK(Error{}.message.empty());
}

TEST_CASE("the named constructors set the kind and keep the message")
{
    const struct
    {
        Error error;
        ErrorKind kind;
    } rows[] = {
        {Error::badInput("a"), ErrorKind::BadInput},
        {Error::noGpu("b"), ErrorKind::NoGpu},
        {Error::unavailable("c"), ErrorKind::Unavailable},
        {Error::cancelled("d"), ErrorKind::Cancelled},
        {Error{"e", ErrorKind::Unavailable}, ErrorKind::Unavailable},
    };
    std::string messages;
    for (const auto &row : rows) {
        CHECK(row.error.kind == row.kind);
        messages += row.error.message;
    }
    CHECK(messages == "abcde");
}

TEST_CASE("each kind has its own name, and the name gives the kind back")
{
    std::set<std::string> names;
    for (const ErrorKind kind : kAllKinds) {
        const std::string name = kx::toString(kind);
        CHECK_FALSE(name.empty());
        names.insert(name);
        CHECK(kx::errorKindFromString(name) == kind);
    }
    CHECK(names.size() == std::size(kAllKinds));
    CHECK(std::string(kx::toString(ErrorKind::NoGpu)) == "no-gpu");
    CHECK(std::string(kx::toString(ErrorKind::BadInput)) == "bad-input");
    CHECK_FALSE(kx::errorKindFromString("no GPU"));
    CHECK_FALSE(kx::errorKindFromString(""));
}

TEST_CASE("Expected and Status pass the kind on unchanged")
{
    const auto parsed = parsePositive(-2);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().kind == ErrorKind::BadInput);
    CHECK(parsed.error().message == "-2 is not positive");
    REQUIRE(parsePositive(3));
    CHECK(*parsePositive(3) == 3);

    const Status cancelled = Error::cancelled("stopped");
    CHECK_FALSE(cancelled);
    CHECK(cancelled.error().kind == ErrorKind::Cancelled);
    const Status passedOn = parsed.error();
    CHECK(passedOn.error().kind == ErrorKind::BadInput);
    CHECK(Status::ok().isOk());
}
