// Pointers to functions are host variables like any other.
void (*hook)() = nullptr;
int (*table[4])(int);
extern "C" __global__ void k(int *y) { *y = 1; }
