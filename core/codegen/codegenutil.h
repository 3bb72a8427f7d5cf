#pragma once

// Small helpers shared by the code templates: launch-plan JSON, source headers and parameter checks.
#include "core/codegen/kerneltemplate.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kx::codegen {

nlohmann::json inputArg(const std::string &name);
nlohmann::json outputArg(const std::string &name);
nlohmann::json scratchArg(const std::string &name);
nlohmann::json intArg(const std::string &expression);
nlohmann::json floatArg(double value);

/// {"kernel": name, "grid": grid, "block": block, "shared": shared, "args": args}
nlohmann::json kernelStep(const std::string &kernel, const std::vector<std::string> &grid,
                          const std::vector<std::string> &block, const nlohmann::json &args,
                          const std::string &sharedBytes = "0");
/// {"library": op, "args": args}
/// With cudnnBenchmark, cuDNN times its algorithms for the step; with channelsLast (a convolution), the step takes
/// channels-last copies of its operands (see LibraryStep).
nlohmann::json libraryStep(const std::string &op, const nlohmann::json &args, bool cudnnBenchmark = false,
                           bool channelsLast = false);
/// The gene of templates whose library steps run cuDNN convolutions: 1 lets cuDNN time its algorithms.
ParamDef cudnnBenchmarkParameter();
/// The gene of templates whose library steps run cuDNN convolutions: 1 passes them channels-last operands.
ParamDef convChannelsLastParameter();
/// {"scratch": [{"name": n, "bytes": b}...], "steps": steps} pretty-printed (the canonical plan text).
std::string planJson(const nlohmann::json &steps, const std::vector<std::pair<std::string, std::string>> &scratch = {});

/// The comment every generated kernel starts with: op, template and every parameter with its label.
std::string headerComment(const Op &op, const KernelTemplate &kernelTemplate, const Params &params,
                          const std::vector<ParamDef> &definitions);

/// Replaces accurate math calls by fast intrinsics (expf -> __expf ...), for the fast-math parameter.
std::string withFastMath(std::string expression);

/// A float literal of CUDA C with every digit a float keeps, in scientific notation (an eps: "1.000000000e-05f").
std::string epsLiteral(double value);

/// Integer expression text for a value (for plan expressions).
inline std::string text(int value)
{
    return std::to_string(value);
}

/// The value of a parameter, or fallback when absent.
int param(const Params &params, const std::string &name, int fallback = 0);

/// Shape symbol value of every shape set of the op (for divisibility checks); empty when not a symbol.
std::vector<long long> symbolValues(const Op &op, const std::string &symbol);

/// The size of a dimension in one shape set: an integer literal, or the value the set binds to a shape symbol;
/// nullopt when it is neither.
std::optional<long long> dimensionValue(const std::string &dimension, const ShapeSet &shapes);

/// Whether name can stand as a C identifier in generated code (a letter or '_', then letters, digits, '_').
bool isIdentifier(const std::string &name);

/// Empty when every defined parameter is present with one of its allowed values, otherwise why not.
/// Parameters the definitions do not name pass.
std::string checkParamValues(const Params &params, const std::vector<ParamDef> &definitions);

/// checkParamValues(), and also rejects parameters the definitions do not name.
std::string checkParams(const Params &params, const std::vector<ParamDef> &definitions);

/// What generate() gives for parameters check() rejects: code that fails to compile with the reason, and no plan.
GeneratedKernel rejectedKernel(const std::string &templateName, const std::string &problem);

} // namespace kx::codegen
