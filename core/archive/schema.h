#pragma once

struct sqlite3;

namespace kx::schema {

/// PRAGMA application_id of every archive ("KXDB"), so other SQLite files are recognised as such.
inline constexpr int kApplicationId = 0x4b584442;

/// The schema version this program writes.
int currentVersion();

/// The version stored in the file: 0 for an empty database; -1 when the file is an SQLite database of
/// another application. Throws ArchiveError when the stored version is not a positive whole number. Reads only.
int storedVersion(sqlite3 *db);

/// Applies the migrations from the stored version up to target, each step in its own write transaction that
/// reads the version first, so that processes creating or migrating one file at once apply every step once.
void migrate(sqlite3 *db, int targetVersion);

} // namespace kx::schema
