// Device code written with the same tricks: all of it is allowed.
#if 0
#define Q
#else
#define Q __device__
#endif
Q int helper() { return 1; }
#define CAT(a, b) a##b
CAT(__dev, ice__) int pasted() { return 2; }
%:define DEVICE __device__
DEVICE int digraph() <% return 3; %>
#define WRAP(...) __VA_ARGS__
WRAP(__device__ int wrapped() { return 4; })
#define KERNEL(name) extern "C" __global__ void name
__attribute__((device)) int spelled() { return 5; }
struct Acc { __host__ __device__ float get() const { return v; } float v; static constexpr int kSize = 4; };
__device__ void (*deviceHook)() = nullptr;
const int kLimit = 4, *const kCursor = nullptr;
KERNEL(k)(int *y) { *y = helper() + pasted() + digraph() + wrapped() + spelled() + kLimit; }
