#pragma once
// Eight-float vectors (the GCC/Clang vector extension) for the few hot kernels, and the
// attribute that builds such a kernel twice: the build targets baseline x86-64 (SSE2, where a
// vector is two registers), and on CPUs with AVX2 + FMA the loader picks the clone built for
// them (one register, fused multiply-add).

#if defined(__x86_64__) && defined(__linux__)
#define ONTOMEM_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ONTOMEM_SIMD_CLONES
#endif

namespace ontomem::simd {

using V8 = float __attribute__((vector_size(32)));
// The same with the alignment of a float: reading one through a float pointer is an unaligned
// load (vector types may alias their element type). No function returns a V8 by value, so
// the ABI of passing one (which differs with and without AVX) never matters.
using V8u = float __attribute__((vector_size(32), aligned(4)));

inline const V8u& At(const float* p) { return *reinterpret_cast<const V8u*>(p); }

}  // namespace ontomem::simd
