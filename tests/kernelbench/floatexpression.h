#pragma once

#include <map>
#include <string>

namespace kx::test {

/**
 * Evaluates a translated elementwise expression in fp32 on the CPU, as the GPU would: literals ("2.0f",
 * "(-0.5f)", "__int_as_float(0x7fffffff)"), named variables, unary and binary arithmetic, comparisons, ||, &&,
 * ?: and the float math functions the translations use (fmaxf, fminf, expf, erff, tanhf ...). Comparisons with
 * NaN are false and fmaxf drops NaN, as in CUDA. Throws std::invalid_argument for text it cannot read.
 */
float evaluateFloatExpression(const std::string &text, const std::map<std::string, float> &variables);

} // namespace kx::test
