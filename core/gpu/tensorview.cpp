#include "core/gpu/tensorview.h"

#include <algorithm>
#include <charconv>

namespace kx {

Expected<DType> dtypeFromString(const std::string &text)
{
    if (text == "float32" || text == "float")
        return DType::Float32;
    if (text == "float16" || text == "half")
        return DType::Float16;
    if (text == "bfloat16")
        return DType::BFloat16;
    if (text == "float64" || text == "double")
        return DType::Float64;
    if (text == "int32" || text == "int")
        return DType::Int32;
    if (text == "int64" || text == "long")
        return DType::Int64;
    if (text == "bool")
        return DType::Bool;
    return Error{"unsupported dtype '" + text + "'"};
}

const char *toString(DType dtype)
{
    switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float64: return "float64";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
    }
    return "?";
}

std::int64_t dtypeSize(DType dtype)
{
    switch (dtype) {
    case DType::Float16:
    case DType::BFloat16: return 2;
    case DType::Float32:
    case DType::Int32: return 4;
    case DType::Float64:
    case DType::Int64: return 8;
    case DType::Bool: return 1;
    }
    return 1;
}

bool isFloatingPoint(DType dtype)
{
    return dtype != DType::Int32 && dtype != DType::Int64 && dtype != DType::Bool;
}

const char *toString(Distribution distribution)
{
    switch (distribution) {
    case Distribution::Normal: return "normal";
    case Distribution::Uniform: return "uniform";
    case Distribution::Wide: return "wide";
    case Distribution::Constant: return "constant";
    case Distribution::IntegerValued: return "integer-valued";
    case Distribution::Sorted: return "sorted";
    case Distribution::Ramp: return "ramp";
    case Distribution::ReverseSorted: return "reverse-sorted";
    case Distribution::Positive: return "positive";
    case Distribution::Negative: return "negative";
    case Distribution::Mixed: return "mixed-magnitude";
    case Distribution::Special: return "special-values";
    }
    return "?";
}

const std::vector<Distribution> &trialDistributions()
{
    // The random ones first, then the structured ones most likely to break a kernel that assumes random data.
    static const std::vector<Distribution> order{
        Distribution::Normal,        Distribution::Uniform,  Distribution::Wide,  Distribution::Constant,
        Distribution::IntegerValued, Distribution::Sorted,   Distribution::Ramp,  Distribution::ReverseSorted,
        Distribution::Positive,      Distribution::Negative, Distribution::Mixed,
    };
    return order;
}

double inputScale(Distribution distribution)
{
    switch (distribution) {
    case Distribution::Wide: return 100;
    case Distribution::IntegerValued: return 8;
    case Distribution::Mixed: return 4096;
    case Distribution::Constant:
    case Distribution::Ramp: return 2.5;
    default: return 1;
    }
}

double trialAtol(double policyAtol, double rtol, Distribution distribution, double scale, double referenceRms)
{
    const double size = inputScale(distribution) * scale;
    const bool oneSignedRows = distribution == Distribution::Sorted || distribution == Distribution::ReverseSorted
                               || distribution == Distribution::Ramp;
    if (size <= 1 && !oneSignedRows)
        return policyAtol;
    return std::max(std::max(size, 1.0) * policyAtol, rtol * referenceRms);
}

namespace {
std::int64_t product(const std::vector<std::int64_t> &shape)
{
    std::int64_t count = 1;
    for (const auto dim : shape)
        count *= dim;
    return count;
}
} // namespace

std::int64_t TensorView::elementCount() const
{
    return product(shape);
}

std::int64_t TensorView::byteCount() const
{
    return elementCount() * dtypeSize(dtype);
}

std::int64_t TensorLayout::elementCount() const
{
    return product(shape);
}

std::int64_t TensorLayout::byteCount() const
{
    return elementCount() * dtypeSize(dtype);
}

TensorView TensorLayout::view(void *data, int device) const
{
    return TensorView{data, shape, dtype, device, valueRange};
}

Expected<TensorLayout> resolveLayout(const TensorSpec &spec, const ShapeSet &shapes)
{
    TensorLayout layout;
    layout.name = spec.name;
    const auto dtype = dtypeFromString(spec.dtype);
    if (!dtype)
        return Error{"tensor '" + spec.name + "': " + dtype.error().message};
    layout.dtype = *dtype;
    // Keeps the total byte count well inside int64 whatever the dimensions.
    constexpr std::int64_t kMaxElements = std::int64_t(1) << 40;
    std::int64_t count = 1;
    for (const auto &dim : spec.shape) {
        std::int64_t size = 0;
        const auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), size);
        if (ec != std::errc() || end != dim.data() + dim.size()) {
            const auto it = shapes.find(dim);
            if (it == shapes.end())
                return Error{"tensor '" + spec.name + "': unknown shape symbol '" + dim + "'"};
            size = it->second;
        }
        if (size < 1)
            return Error{"tensor '" + spec.name + "': dimension '" + dim + "' is " + std::to_string(size)
                         + ", must be at least 1"};
        if (size > kMaxElements / count)
            return Error{"tensor '" + spec.name + "' is too large"};
        count *= size;
        layout.shape.push_back(size);
    }
    if (spec.valueRange.empty())
        return layout;
    const auto bound = [&](const std::string &text) -> std::optional<std::int64_t> {
        std::int64_t value = 0;
        const bool negative = !text.empty() && text.front() == '-';
        const char *begin = text.data() + (negative ? 1 : 0);
        const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && begin != end)
            return negative ? -value : value;
        const auto it = shapes.find(text);
        return it == shapes.end() ? std::nullopt : std::optional(it->second);
    };
    const std::string what = "tensor '" + spec.name + "': value range";
    if (spec.valueRange.size() != 2)
        return Error{what + " needs two bounds, [low, high)"};
    if (isFloatingPoint(layout.dtype) || layout.dtype == DType::Bool)
        return Error{what + " on a " + spec.dtype + " tensor: only integer tensors take one"};
    const auto low = bound(spec.valueRange[0]), high = bound(spec.valueRange[1]);
    if (!low || !high)
        return Error{what + " [" + spec.valueRange[0] + ", " + spec.valueRange[1]
                     + "): a bound is neither an integer nor a shape symbol"};
    if (*low >= *high)
        return Error{what + " [" + std::to_string(*low) + ", " + std::to_string(*high) + ") is empty"};
    layout.valueRange = IntegerRange{*low, *high};
    return layout;
}

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

} // namespace kx
