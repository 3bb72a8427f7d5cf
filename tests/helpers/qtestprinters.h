#pragma once

// How Qt Test prints kx enums when a comparison fails. Without these, QTest finds kx::toString by
// argument-dependent lookup and frees the static text it returns.
#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/run.h"

#include <QTest>

namespace QTest {
template <>
inline char *toString(const kx::EvalStatus &value)
{
    return qstrdup(kx::toString(value));
}
template <>
inline char *toString(const kx::Origin &value)
{
    return qstrdup(kx::toString(value));
}
template <>
inline char *toString(const kx::RunState &value)
{
    return qstrdup(kx::toString(value));
}
} // namespace QTest
