// ReLU over N floats: one thread per element.
extern "C" __global__ void __launch_bounds__(256)
relu_kernel(const float* __restrict__ x, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = fmaxf(x[i], 0.0f);
}
