#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace kx {

/// What kind of failure an Error is: callers choose an exit code or a dialog by it, never by the message's words.
enum class ErrorKind {
    Failed,      ///< The operation failed (the default: nothing more is known).
    BadInput,    ///< A file, an archive or another input is unreadable or not what was expected.
    NoGpu,       ///< A GPU, CUDA or NVRTC is needed and there is none to use.
    Unavailable, ///< A tool or service it needs is missing or unreachable (ncu, Python, bubblewrap, a model server).
    Cancelled,   ///< Stopped on request (Ctrl-C, a Cancel button).
};

/// The kind's name in logs and JSON: "failed", "bad-input", "no-gpu", "unavailable" or "cancelled".
constexpr const char *toString(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::Failed: return "failed";
    case ErrorKind::BadInput: return "bad-input";
    case ErrorKind::NoGpu: return "no-gpu";
    case ErrorKind::Unavailable: return "unavailable";
    case ErrorKind::Cancelled: return "cancelled";
    }
    return "failed";
}

/// The kind a name of toString() stands for; nullopt for any other text.
inline std::optional<ErrorKind> errorKindFromString(std::string_view name)
{
    for (const ErrorKind kind :
         {ErrorKind::Failed, ErrorKind::BadInput, ErrorKind::NoGpu, ErrorKind::Unavailable, ErrorKind::Cancelled})
        if (name == toString(kind))
            return kind;
    return std::nullopt;
}

/// An expected failure, returned as data rather than thrown (the facade style of core's public API). Error{"why"}
/// is a plain failure; the named constructors say what kind of failure it is where that is known.
struct Error
{
    std::string message;
    ErrorKind kind = ErrorKind::Failed;

    static Error badInput(std::string message) { return {std::move(message), ErrorKind::BadInput}; }
    static Error noGpu(std::string message) { return {std::move(message), ErrorKind::NoGpu}; }
    static Error unavailable(std::string message) { return {std::move(message), ErrorKind::Unavailable}; }
    static Error cancelled(std::string message) { return {std::move(message), ErrorKind::Cancelled}; }
};

/// Holds either a value or an Error. A small stand-in for C++23's std::expected.
template <typename T>
class Expected
{
public:
    Expected(T value)
        : m_state(std::move(value))
    {}
    Expected(Error error)
        : m_state(std::move(error))
    {}

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
    Status(Error error)
        : m_error(std::move(error))
        , m_failed(true)
    {}
    static Status ok() { return {}; }

    bool isOk() const { return !m_failed; }
    explicit operator bool() const { return isOk(); }
    const Error &error() const { return m_error; }

private:
    Error m_error;
    bool m_failed = false;
};

} // namespace kx
