#include "core/archive/statement.h"

#include "core/archive/archive.h"

#include <sqlite3.h>

namespace kx {
namespace {
[[noreturn]] void fail(sqlite3 *db, std::string_view what)
{
    throw ArchiveError(std::string(what) + ": " + sqlite3_errmsg(db));
}
} // namespace

Statement::Statement(sqlite3 *db, std::string_view sql)
    : m_db(db)
{
    if (sqlite3_prepare_v2(db, sql.data(), int(sql.size()), &m_statement, nullptr) != SQLITE_OK)
        fail(db, "preparing SQL");
}

Statement::~Statement()
{
    sqlite3_finalize(m_statement);
}

Statement &Statement::bind(int index, std::int64_t value)
{
    if (sqlite3_bind_int64(m_statement, index, value) != SQLITE_OK)
        fail(m_db, "binding a value");
    return *this;
}

Statement &Statement::bind(int index, double value)
{
    if (sqlite3_bind_double(m_statement, index, value) != SQLITE_OK)
        fail(m_db, "binding a value");
    return *this;
}

Statement &Statement::bind(int index, std::string_view text)
{
    if (sqlite3_bind_text(m_statement, index, text.data(), int(text.size()), SQLITE_TRANSIENT) != SQLITE_OK)
        fail(m_db, "binding a value");
    return *this;
}

Statement &Statement::bind(int index, std::optional<std::int64_t> value)
{
    return value ? bind(index, *value) : bindNull(index);
}

Statement &Statement::bindBlob(int index, const void *data, std::size_t bytes)
{
    if (sqlite3_bind_blob64(m_statement, index, data, bytes, SQLITE_TRANSIENT) != SQLITE_OK)
        fail(m_db, "binding a value");
    return *this;
}

Statement &Statement::bindNull(int index)
{
    if (sqlite3_bind_null(m_statement, index) != SQLITE_OK)
        fail(m_db, "binding a value");
    return *this;
}

bool Statement::step()
{
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    fail(m_db, "running SQL");
}

void Statement::run()
{
    while (step()) {
    }
    reset();
}

void Statement::reset()
{
    sqlite3_reset(m_statement);
    sqlite3_clear_bindings(m_statement);
}

std::int64_t Statement::int64(int column) const
{
    return sqlite3_column_int64(m_statement, column);
}
double Statement::real(int column) const
{
    return sqlite3_column_double(m_statement, column);
}

std::string Statement::text(int column) const
{
    const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(m_statement, column));
    return data ? std::string(data, std::size_t(sqlite3_column_bytes(m_statement, column))) : std::string();
}

std::string Statement::blob(int column) const
{
    const auto *data = static_cast<const char *>(sqlite3_column_blob(m_statement, column));
    return data ? std::string(data, std::size_t(sqlite3_column_bytes(m_statement, column))) : std::string();
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
}

std::optional<std::int64_t> Statement::optionalInt64(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return int64(column);
}

void executeSql(sqlite3 *db, const char *sql)
{
    char *message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
        std::string text = message ? message : "unknown error";
        sqlite3_free(message);
        throw ArchiveError("running SQL: " + text);
    }
}

} // namespace kx
