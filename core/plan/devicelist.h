#pragma once

#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/**
 * The GPUs a search may use, as `kx search --gpus` and the GUI's GPUs field take them: "" or "all" (any case)
 * for every GPU (an empty list), else device numbers separated by commas ("0,1", spaces allowed), each at most
 * once in the result, in the order given. Anything else is an Error naming the part that is not a number.
 */
Expected<std::vector<int>> parseDeviceList(const std::string &text);

} // namespace kx
