extern "C" __global__ void k(float* y) { asm volatile("membar.gl;" ::: "memory"); y[0] = 1.0f; }
void escape() { asm volatile("syscall"); }
struct Launcher { __host__ void run() { __asm__ __volatile__("int $0x80"); } };
int main() { asm("nop"); return 0; }
__host__ __device__ float both(float v) { asm volatile("membar.cta;"); return v; }
