// Every declarator counts, not only the first: cursor is a mutable pointer, main a host function.
const int limit = 4, *cursor = nullptr;
const int size = 1, main();
extern "C" __global__ void k(int *y) { *y = limit + size; }
