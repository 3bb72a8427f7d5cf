#define M M M M M M M M M M M M M M M M M M
M __device__ int v;
