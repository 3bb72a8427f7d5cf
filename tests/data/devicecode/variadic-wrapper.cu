// A variadic macro hands its arguments through: main is at namespace scope after replacement.
#define WRAP(...) __VA_ARGS__
WRAP(int main() { return 0; })
extern "C" __global__ void k(int *y) { *y = 1; }
