#pragma once

#include "core/util/expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kx {

class Archive;

/// Format identifier and version of exported archives.
inline constexpr const char *kExportFormat = "kernel-explorer-archive";
inline constexpr int kExportFormatVersion = 2;

/// Exports the whole archive, or only the named ops with everything that belongs to them.
/// The output is ordered deterministically, so export -> import -> export gives identical text.
nlohmann::json exportArchive(const Archive &archive, const std::vector<std::string> &opNames = {});

struct ImportStats
{
    std::int64_t ops = 0, runs = 0, candidates = 0, evaluations = 0, verdicts = 0, profiles = 0;
    std::int64_t duplicateCandidates = 0;
};

/// Checks that document is an export this program reads ("format" and "version"), without touching an archive.
Status checkExportHeader(const nlohmann::json &document);

/// Imports an export into the archive in one transaction: all or nothing. Malformed input is an Error that
/// says where ("candidates[2].evaluations[0]: ...") and changes nothing.
Expected<ImportStats> importArchive(Archive &archive, const nlohmann::json &document);

} // namespace kx
