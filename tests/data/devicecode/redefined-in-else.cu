// NVRTC compiles the #if group, where Q is nothing: helper is a host function. The #else group is left out.
#if 1
#define Q
#else
#define Q __device__
#endif
Q int helper() { return 1; }
extern "C" __global__ void k(int *y) { *y = 1; }
