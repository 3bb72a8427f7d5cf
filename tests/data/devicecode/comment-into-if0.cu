// A backslash continues this comment onto the next line, so the #if 0 there is comment too \
#if 0
int main() { return 0; }
// and so is this #endif \
#endif
extern "C" __global__ void k(int *y) { *y = 1; }
