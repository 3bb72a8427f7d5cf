#pragma once

#include "core/kernelbench/opgraph.h"
#include "core/util/expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

/// The ATen calls the graph translator knows, and how an elementwise call reads as CUDA C++.
namespace kx::atencalls {

/// Calls that only change how a value is viewed (no arithmetic).
const std::set<std::string> &viewKinds();
/// Elementwise calls with their FLOPs per output element (what the roofline floor counts).
const std::map<std::string, int> &elementwiseKinds();
/// Reductions over dimensions.
const std::set<std::string> &reduceKinds();
/// Calls that decide the template: GEMMs, softmax, norms, transposes, convolutions.
const std::set<std::string> &anchorKinds();

bool isView(const std::string &kind);
bool isElementwise(const std::string &kind);
/// An elementwise call of any kind: those of elementwiseKinds(), and min and max of two tensors (overload
/// "other"; their other overloads reduce).
bool isElementwiseCall(const GraphNode &node);

/// The absolute tolerance for a result summed from @p terms products or values of size @p termSize (about 1 for
/// the unit-size inputs of the trials): fp32 rounding grows with the number of terms and with their size, and the
/// candidate sums in another order than the reference.
double summationAtol(std::int64_t terms, double termSize = 1);

/// A float literal CUDA C++ reads exactly ("2.0f", "(-0.5f)", infinities as bit patterns).
std::string floatLiteral(double value);
/// A graph constant as a number (booleans count as 0 and 1).
std::optional<double> number(const nlohmann::json &value);
/// A call's argument that is a number, as a float literal; an Error naming the call where it is not a number.
Expected<std::string> numberLiteral(const GraphNode &node, const GraphArgument &argument);
/// A graph constant as an integer (also a one-element list).
std::optional<std::int64_t> integer(const nlohmann::json &value);
std::optional<std::vector<std::int64_t>> integers(const nlohmann::json &value);
/// Whether value is a list of integers that all equal expected.
bool allEqual(const nlohmann::json &value, std::int64_t expected);
/// Parentheses around a subexpression unless it is a name, a literal or already one group.
std::string wrap(const std::string &expression);

/// The translated text of argument i of a call.
using Operand = std::function<Expected<std::string>(std::size_t)>;
/// The text of an elementwise call over its already translated arguments; an Error says why it is not possible.
/// NaN propagates as in PyTorch's CUDA kernels (relu, clamp, hardtanh, minimum ... of NaN are NaN).
Expected<std::string> elementwiseExpression(const GraphNode &node, const Operand &operand);

} // namespace kx::atencalls
