#pragma once

#include <string>
#include <utility>
#include <variant>

namespace kx {

/// An expected failure, returned as data rather than thrown (the facade style of core's public API).
struct Error
{
    std::string message;
};

/// Holds either a value or an Error. A small stand-in for C++23's std::expected.
template<typename T>
class Expected
{
public:
    Expected(T value) : m_state(std::move(value)) {}
    Expected(Error error) : m_state(std::move(error)) {}

    bool hasValue() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return hasValue(); }

    T &value() { return std::get<T>(m_state); }
    const T &value() const { return std::get<T>(m_state); }
    T &operator*() { return value(); }
    const T &operator*() const { return value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

    const Error &error() const { return std::get<Error>(m_state); }

private:
    std::variant<T, Error> m_state;
};

/// Success or an Error, for operations without a result value.
class Status
{
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)), m_failed(true) {}
    static Status ok() { return {}; }

    bool isOk() const { return !m_failed; }
    explicit operator bool() const { return isOk(); }
    const Error &error() const { return m_error; }

private:
    Error m_error;
    bool m_failed = false;
};

} // namespace kx
