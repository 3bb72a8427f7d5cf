#include "core/eval/evalcompletion.h"

#include <exception>
#include <iostream>

namespace kx {

void runCompletion(const std::function<void()> &call)
{
    try {
        call();
    } catch (const std::exception &error) {
        std::cerr << "kx: an evaluation completion threw: " << error.what() << '\n';
    } catch (...) {
        std::cerr << "kx: an evaluation completion threw\n";
    }
}

} // namespace kx
