#pragma once
// Eight-float vectors (the GCC/Clang vector extension) for the few hot kernels. The build
// targets baseline x86-64 (SSE2, where a vector is two registers); a kernel is compiled a second
// time for AVX2 + FMA (one register, fused multiply-add) and picked at run time when the CPU
// has them. (Not `target_clones`: its ifunc resolver runs before ThreadSanitizer's runtime is
// up, and the instrumented binary crashes at load.)

namespace ontomem::simd {

using V8 = float __attribute__((vector_size(32)));
// The same with the alignment of a float: reading one through a float pointer is an unaligned
// load (vector types may alias their element type). No function returns a V8 by value, so
// the ABI of passing one (which differs with and without AVX) never matters.
using V8u = float __attribute__((vector_size(32), aligned(4)));

inline const V8u& At(const float* p) { return *reinterpret_cast<const V8u*>(p); }

// Whether this CPU runs the AVX2 + FMA build of a kernel.
inline bool HasAvx2Fma() {
#if defined(__x86_64__)
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
#else
  return false;
#endif
}

}  // namespace ontomem::simd

// The attribute of a kernel's AVX2 + FMA build (its body an always-inline template, so each
// build compiles it for its own target).
#if defined(__x86_64__)
#define ONTOMEM_AVX2_FMA __attribute__((target("avx2,fma")))
#else
#define ONTOMEM_AVX2_FMA
#endif
