#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace kx {

/// A prepared SQLite statement: bind by position (1-based), step, read columns (0-based).
/// Every failure throws ArchiveError with SQLite's message.
class Statement
{
public:
    Statement(sqlite3 *db, std::string_view sql);
    ~Statement();
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    Statement &bind(int index, std::int64_t value);
    Statement &bind(int index, int value) { return bind(index, std::int64_t(value)); }
    Statement &bind(int index, double value);
    Statement &bind(int index, std::string_view text);
    Statement &bind(int index, const char *text) { return bind(index, std::string_view(text)); }
    Statement &bind(int index, const std::string &text) { return bind(index, std::string_view(text)); }
    Statement &bind(int index, std::optional<std::int64_t> value);
    Statement &bindBlob(int index, const void *data, std::size_t bytes);
    Statement &bindNull(int index);

    /// Advances to the next row; false when done.
    bool step();
    /// Runs a statement that returns no rows.
    void run();
    void reset();

    std::int64_t int64(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    std::string blob(int column) const;
    bool isNull(int column) const;
    std::optional<std::int64_t> optionalInt64(int column) const;

private:
    sqlite3 *m_db;                       // Not owned
    sqlite3_stmt *m_statement = nullptr; // Owned
};

/// Runs SQL with no parameters and no result rows (may hold several statements).
void executeSql(sqlite3 *db, const char *sql);

} // namespace kx
