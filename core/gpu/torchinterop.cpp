#include "core/gpu/torchinterop.h"

#include <c10/util/Exception.h>

#include <cctype>

namespace kx::torchinterop {

at::ScalarType scalarType(DType dtype)
{
    switch (dtype) {
    case DType::Float32: return at::kFloat;
    case DType::Float16: return at::kHalf;
    case DType::BFloat16: return at::kBFloat16;
    case DType::Float64: return at::kDouble;
    case DType::Int32: return at::kInt;
    case DType::Int64: return at::kLong;
    case DType::Bool: return at::kBool;
    }
    return at::kFloat;
}

at::Device deviceFor(int device)
{
    return device < 0 ? at::Device(at::kCPU) : at::Device(at::kCUDA, at::DeviceIndex(device));
}

at::Tensor wrap(const TensorView &view)
{
    return at::from_blob(view.data, view.shape,
                         at::TensorOptions().dtype(scalarType(view.dtype)).device(deviceFor(view.device)));
}

// LibTorch's backtrace says nothing to whoever reads an evaluation's message, and an exception raised in
// TorchScript comes after two tracebacks: its last line says what went wrong.
std::string errorText(const std::exception &error)
{
    constexpr std::size_t kMaxLength = 2000;
    const auto *torchError = dynamic_cast<const c10::Error *>(&error);
    std::string text = torchError ? torchError->what_without_backtrace() : error.what();
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.pop_back();
    if (text.find("Traceback of TorchScript") != std::string::npos)
        text = text.substr(text.find_last_of('\n') + 1);
    if (text.size() > kMaxLength)
        text = text.substr(0, kMaxLength) + " ...";
    return text;
}

std::vector<at::Tensor> inDouble(const std::vector<at::Tensor> &tensors)
{
    std::vector<at::Tensor> converted;
    for (const auto &tensor : tensors)
        converted.push_back(tensor.is_floating_point() ? tensor.to(at::kDouble) : tensor);
    return converted;
}

Status copyResults(const std::vector<at::Tensor> &results, const std::vector<TensorView> &outputs,
                   const std::string &what)
{
    if (results.size() != outputs.size())
        return Error{what + " returns " + std::to_string(results.size()) + " tensors, the op declares "
                     + std::to_string(outputs.size()) + " outputs"};
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        if (results[i].sizes().vec() != outputs[i].shape)
            return Error{what + ": output " + std::to_string(i) + " has shape " + shapeText(results[i].sizes().vec())
                         + ", the op declares " + shapeText(outputs[i].shape)};
        wrap(outputs[i]).copy_(results[i]);
    }
    return {};
}

} // namespace kx::torchinterop
