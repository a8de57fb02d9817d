// Kernels the tuner and the tests need around a GEMM: random operands, poisoned
// outputs, the float -> double copy for the float64 reference, and the error metric.
// Self-contained (NVRTC carries nothing else). Matrices are row-major with a leading
// dimension; elements between `cols` and `ld` in a row are padding.

typedef unsigned long long u64;

// A 64-bit mix (splitmix64 finalizer): element i of stream `seed` -> 64 random bits.
__device__ __forceinline__ u64 mix64(u64 x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) with 24 random bits (exactly representable in float).
__device__ __forceinline__ float uniform01(u64 bits) { return (float)(bits >> 40) * (1.0f / 16777216.0f); }

// Value kinds (RandomKind in tune/random_fill.hpp):
//   0 uniform [0,1)  1 signed normal (Box-Muller)  2 uniform [-1,1) scaled by 2^(+-30) per element
//   3 uniform [0,1) with about one element in 2048 replaced by +Inf, -Inf, the canonical NaN or
//     the NaN 0x7f800001 (a payload only in the low bits, which a careless TF32 split turns into Inf)
__device__ float random_value(u64 seed, u64 index, int kind) {
  const u64 bits = mix64(seed ^ mix64(index));
  if (kind == 0) return uniform01(bits);
  if (kind == 3) {
    if (((bits >> 5) & 2047) != 0) return uniform01(bits);
    const unsigned special[4] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u};
    return __uint_as_float(special[(bits >> 2) & 3]);
  }
  if (kind == 1) {
    const float u1 = fmaxf(uniform01(bits), 1e-7f);
    const float u2 = uniform01(mix64(bits));
    return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
  }
  const float v = 2.0f * uniform01(bits) - 1.0f;
  const int exponent = (int)((bits >> 8) % 61) - 30;  // 2^-30 .. 2^30
  return ldexpf(v, exponent);
}

// Fills a rows x cols matrix; padding columns [cols, ld) get `pad_value` (NaN in tests,
// so a kernel that reads padding is caught). With symmetric != 0 element (i, j) equals
// (j, i) (the value is drawn from the unordered pair), as the symmetric reference inputs are.
extern "C" __global__ void fill_random(float* out, long long rows, long long cols, long long ld,
                                       unsigned long long seed, int kind, int symmetric, float pad_value) {
  const long long total = rows * ld;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / ld, c = i % ld;
    if (c >= cols) { out[i] = pad_value; continue; }
    const long long lo = symmetric ? min(r, c) : r, hi = symmetric ? max(r, c) : c;
    out[i] = random_value(seed, (u64)lo * 0x100000001ull + (u64)hi, kind);
  }
}

// out[i] = value for i < count (poisoning an output before a candidate runs).
extern "C" __global__ void fill_value(float* out, long long count, float value) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = value;
}

// One thread spins until `ns` nanoseconds of the global timer have passed since it started:
// launched between an L2 flush and a timing's start event, it holds the stream while the host
// enqueues the timed launches, so that the time between the events is the GPU's and not the
// host's (nvbench's blocking kernel, with a deadline instead of a host-set flag).
extern "C" __global__ void hold_stream(u64 ns) {
  u64 start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// ---- structured operands and fills ----------------------------------------------------
// Element (r, c) of a stored operand that a structure does not read: outside the stored
// triangle (triangle 1: lower, r >= c; 2: upper, r <= c), or on the diagonal when it is a
// unit one (taken as 1, never read).
__device__ __forceinline__ bool unread(long long r, long long c, int triangle, int unit) {
  return (triangle == 1 && c > r) || (triangle == 2 && c < r) || (unit && r == c);
}

// In place on a rows x cols matrix (padding untouched), for one structure:
//   mode 0 (poison):   every unread element = value (NaN in tests: a kernel reading it fails)
//   mode 1 (triangle): the dense matrix a triangular operand stands for: unread elements 0,
//                      a unit diagonal 1
//   mode 2 (mirror):   the dense matrix a symmetric operand stands for: unread (r, c) = (c, r)
template <typename T>
__device__ void structure_pass(T* x, long long rows, long long cols, long long ld, int triangle, int unit, int mode,
                               T value) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < rows * cols;
       i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / cols, c = i % cols;
    if (!unread(r, c, triangle, unit)) continue;
    if (mode == 0) x[r * ld + c] = value;
    else if (mode == 1) x[r * ld + c] = r == c ? T(1) : T(0);
    else x[r * ld + c] = x[c * ld + r];  // (c, r) is in the stored triangle: read, never written
  }
}
extern "C" __global__ void structure_pass_f32(float* x, long long rows, long long cols, long long ld, int triangle,
                                              int unit, int mode, float value) {
  structure_pass<float>(x, rows, cols, ld, triangle, unit, mode, value);
}
extern "C" __global__ void structure_pass_f64(double* x, long long rows, long long cols, long long ld, int triangle,
                                              int unit, int mode, double value) {
  structure_pass<double>(x, rows, cols, ld, triangle, unit, mode, value);
}

// C = tril (triangle 1) or triu (2) of itself: the other strict triangle zero, as a fill writes it.
template <typename T>
__device__ void keep_triangle(T* x, long long rows, long long cols, long long ld, int triangle) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < rows * cols;
       i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / cols, c = i % cols;
    if ((triangle == 1 && c > r) || (triangle == 2 && c < r)) x[r * ld + c] = T(0);
  }
}
extern "C" __global__ void keep_triangle_f32(float* x, long long rows, long long cols, long long ld, int triangle) {
  keep_triangle<float>(x, rows, cols, ld, triangle);
}
extern "C" __global__ void keep_triangle_f64(double* x, long long rows, long long cols, long long ld, int triangle) {
  keep_triangle<double>(x, rows, cols, ld, triangle);
}

// Widens a float matrix (with its padding) to double for the float64 reference.
extern "C" __global__ void widen_to_double(const float* in, double* out, long long count) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = (double)in[i];
}

// Sums over an M x N output: sums[0] += (c - ref)^2, sums[1] += ref^2 over finite pairs;
// counts[0] += elements where c is NaN/Inf but ref is finite (unwritten or broken),
// counts[1] += elements whose non-finiteness differs between c and ref,
// counts[2] += padding elements of c (columns cols .. ldc) that are not NaN: the callers
// fill C's padding with NaN, and a kernel must never write it.
extern "C" __global__ void error_sums(const float* c, long long ldc, const double* ref, long long ldr,
                                      long long rows, long long cols, double* sums,
                                      unsigned long long* counts) {
  __shared__ double s_diff[32], s_ref[32];
  __shared__ unsigned long long s_bad[32], s_mismatch[32], s_padding[32];
  double diff2 = 0.0, ref2 = 0.0;
  unsigned long long bad = 0, mismatch = 0, padding = 0;
  const long long total = rows * cols;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / cols, col = i % cols;
    const double x = (double)c[r * ldc + col], y = ref[r * ldr + col];
    const bool x_finite = isfinite(x), y_finite = isfinite(y);
    if (x_finite && y_finite) {
      diff2 += (x - y) * (x - y);
      ref2 += y * y;
    } else {
      if (!x_finite && y_finite) ++bad;
      // Both non-finite: they agree when both are NaN or both the same infinity.
      const bool agree = !x_finite && !y_finite && ((isnan(x) && isnan(y)) || x == y);
      if (!agree) ++mismatch;
    }
  }
  const long long pad = ldc - cols;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < rows * pad;
       i += (long long)gridDim.x * blockDim.x)
    padding += !isnan(c[(i / pad) * ldc + cols + i % pad]);
  // Warp then block reduction.
  for (int offset = 16; offset > 0; offset /= 2) {
    diff2 += __shfl_down_sync(0xffffffffu, diff2, offset);
    ref2 += __shfl_down_sync(0xffffffffu, ref2, offset);
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
    mismatch += __shfl_down_sync(0xffffffffu, mismatch, offset);
    padding += __shfl_down_sync(0xffffffffu, padding, offset);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) { s_diff[warp] = diff2; s_ref[warp] = ref2; s_bad[warp] = bad; s_mismatch[warp] = mismatch; s_padding[warp] = padding; }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x / 32); ++w) {
      diff2 += s_diff[w]; ref2 += s_ref[w]; bad += s_bad[w]; mismatch += s_mismatch[w]; padding += s_padding[w];
    }
    atomicAdd(&sums[0], diff2);
    atomicAdd(&sums[1], ref2);
    atomicAdd(&counts[0], bad);
    atomicAdd(&counts[1], mismatch);
    atomicAdd(&counts[2], padding);
  }
}
