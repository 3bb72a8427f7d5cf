#pragma once

#include "core/domain/profile.h"

#include <ostream>

namespace kx::cli {

/// A stored profile as `kx profile` and `kx archive show` print it: the metrics beside the model's numbers
/// (bytes the op must move against the DRAM bytes measured, achieved bandwidth against the card's), the top
/// stall reasons, the findings, what ncu did not print, and one line per kernel.
void printProfile(std::ostream &out, const Profile &profile);

} // namespace kx::cli
