#pragma once

#include <QtGlobal>

#include <utility>

namespace kx::ui {

/**
 * Latest job wins. A view starts background jobs (archive reads, layouts, checks, keychain requests) and may
 * start another, for another archive, kernel or run, before the first one's result arrives. The result of a
 * replaced job must never be drawn: each job gets a ticket, and its continuation runs only while that ticket is
 * still the latest. Use one LatestJob per independent stream (a page's list and its detail pane each have one).
 *
 *     readArchiveAsync(path, read).then(this, m_load.guard([this](const ReadResult<T> &result) { show(result); }));
 *
 * A guarded callback refers to its LatestJob: deliver it on the owner (.then(this, ...)), which Qt skips once
 * the owner is gone.
 */
class LatestJob
{
public:
    using Ticket = quint64;

    /// Starts a job: every earlier ticket is stale from now on.
    Ticket start() { return ++m_latest; }
    /// Whether ticket belongs to the latest job and nothing invalidated it since.
    bool isCurrent(Ticket ticket) const { return ticket == m_latest; }
    /// Makes the job in flight stale without starting another (the archive closed, the selection cleared).
    void invalidate() { ++m_latest; }

    /// Starts a job and returns its continuation: callback(args...) runs only while that job is the latest.
    template <typename Callback>
    auto guard(Callback callback)
    {
        return guard(start(), std::move(callback));
    }

    /// The continuation of the job that got ticket (for a job whose ticket is taken before it starts).
    template <typename Callback>
    auto guard(Ticket ticket, Callback callback)
    {
        return wrap(ticket, std::move(callback), &Callback::operator());
    }

private:
    // The wrapper takes exactly the callback's parameters (QFuture::then chooses how to call it by them) and,
    // as a dropped result has no one to receive it, the callback returns nothing.
    template <typename Callback, typename Class, typename... Args>
    auto wrap(Ticket ticket, Callback callback, void (Class::*)(Args...) const)
    {
        return [this, ticket, callback = std::move(callback)](Args... args) {
            if (isCurrent(ticket))
                callback(std::forward<Args>(args)...);
        };
    }

    template <typename Callback, typename Class, typename... Args>
    auto wrap(Ticket ticket, Callback callback, void (Class::*)(Args...)) // A mutable lambda.
    {
        return [this, ticket, callback = std::move(callback)](Args... args) mutable {
            if (isCurrent(ticket))
                callback(std::forward<Args>(args)...);
        };
    }

    Ticket m_latest = 0;
};

} // namespace kx::ui
