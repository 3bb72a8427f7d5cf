// Parentheses around a declarator's name change nothing: this is main.
int (main)() { return 0; }
extern "C" __global__ void k(int *y) { *y = 1; }
