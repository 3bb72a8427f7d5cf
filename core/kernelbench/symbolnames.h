#pragma once

#include "core/domain/op.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kx {

/// Symbolic names of concrete sizes: a size that exactly one symbol of the first shape set has.
class SymbolNames
{
public:
    explicit SymbolNames(const Op &op)
    {
        if (op.shapeSets.empty())
            return;
        std::map<std::int64_t, int> counts;
        for (const auto &[symbol, value] : op.shapeSets.front())
            ++counts[value];
        for (const auto &[symbol, value] : op.shapeSets.front())
            if (counts[value] == 1)
                m_names[value] = symbol;
    }
    std::string operator()(std::int64_t size) const
    {
        const auto it = m_names.find(size);
        return it == m_names.end() ? std::to_string(size) : it->second;
    }
    std::string product(const std::vector<std::int64_t> &shape) const
    {
        std::string text;
        for (const auto size : shape)
            if (size != 1)
                text += (text.empty() ? "" : " * ") + (*this)(size);
        return text.empty() ? "1" : text;
    }

private:
    std::map<std::int64_t, std::string> m_names;
};

} // namespace kx
