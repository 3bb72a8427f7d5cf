// Pasting builds the name main out of two pieces.
#define CAT(a, b) a##b
int CAT(ma, in)() { return 0; }
extern "C" __global__ void k(int *y) { *y = 1; }
