#include "core/plan/devicelist.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

namespace kx {
namespace {

std::string trimmed(const std::string &text)
{
    const auto first = std::find_if_not(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); });
    const auto last = std::find_if_not(text.rbegin(), text.rend(), [](unsigned char c) { return std::isspace(c); });
    return first < last.base() ? std::string(first, last.base()) : std::string();
}

} // namespace

Expected<std::vector<int>> parseDeviceList(const std::string &text)
{
    std::string all = trimmed(text);
    std::transform(all.begin(), all.end(), all.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    std::vector<int> devices;
    if (all.empty() || all == "all")
        return devices;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, ',')) {
        const std::string number = trimmed(part);
        int device = -1;
        const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), device);
        if (number.empty() || error != std::errc() || end != number.data() + number.size() || device < 0)
            return Error{"'" + number + "' is not a GPU number (use all, or numbers such as 0,1)"};
        if (std::find(devices.begin(), devices.end(), device) == devices.end())
            devices.push_back(device);
    }
    return devices;
}

} // namespace kx
