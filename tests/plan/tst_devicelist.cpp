// The one parser of GPU lists (kx search --gpus and the GUI's GPUs field).
#include "core/plan/devicelist.h"

#include <doctest/doctest.h>

using namespace kx;

namespace {

std::vector<int> parsed(const std::string &text)
{
    const auto devices = parseDeviceList(text);
    REQUIRE_MESSAGE(devices, (devices ? "" : devices.error().message));
    return *devices;
}

std::string refusal(const std::string &text)
{
    const auto devices = parseDeviceList(text);
    REQUIRE_FALSE(devices);
    return devices.error().message;
}

} // namespace

TEST_CASE("empty or all means every GPU")
{
    CHECK(parsed("").empty());
    CHECK(parsed("  ").empty());
    CHECK(parsed("all").empty());
    CHECK(parsed(" ALL ").empty());
}

TEST_CASE("device numbers keep their order, spaces and repeats are dropped")
{
    CHECK(parsed("0") == std::vector<int>{0});
    CHECK(parsed("1,0") == std::vector<int>{1, 0});
    CHECK(parsed(" 0 , 2 ,0") == std::vector<int>{0, 2});
}

TEST_CASE("anything but device numbers is refused, naming the part")
{
    CHECK(refusal("0,x") == "'x' is not a GPU number (use all, or numbers such as 0,1)");
    CHECK(refusal("1x") == "'1x' is not a GPU number (use all, or numbers such as 0,1)"); // stoi took it as 1
    CHECK(refusal("-1") == "'-1' is not a GPU number (use all, or numbers such as 0,1)");
    CHECK(refusal("0,,1") == "'' is not a GPU number (use all, or numbers such as 0,1)");
    CHECK(refusal("99999999999").find("is not a GPU number") != std::string::npos);
}
