// Does not compile: the expression on line 6 is incomplete.
extern "C" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] > 0.0f ? x[i] :;
}
