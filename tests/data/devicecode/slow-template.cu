// Each level doubles a parameter pack: NVRTC works on this for minutes and its memory keeps growing.
template <class... T> struct List {};
template <int N, class... T> struct Double { using type = typename Double<N - 1, T..., T...>::type; };
template <class... T> struct Double<0, T...> { using type = List<T...>; };
extern "C" __global__ void k(int *y) { *y = sizeof(typename Double<40, int>::type); }
