// Members that are host code, and declarators after a type's body.
struct Launcher {
    __host__ void launch(float *data);
    static int calls;
};
struct Result { int value; } make() { return {1}; }
struct State { int step; } state;
extern "C" __global__ void k(int *y) { *y = 1; }
