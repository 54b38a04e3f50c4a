// What the two one-pass small-token kernels share: the mma.sync one
// (FusedMlpSmallMOnePass.cu, sm_80 and sm_90) and the Hopper one
// (sm90a/FusedMlpSmallMWgmma.cu, wgmma and bulk tensor copies). Both take a
// block's slice of the hidden units through both GEMMs, share act in teams and
// add their partial y into fp32 accumulators with atomics; this file holds
// their argument struct, the workspace they use, the atomic additions of an
// accumulator fragment, and the end: the last blocks to arrive convert the
// accumulators into y.
#pragma once

#include <algorithm>

#include "kernels/FusedMlpDevice.cuh"
#include "kernels/FusedMlpSmallMOnePass.h"

namespace fuselab::fusedmlp {

template <ElemType E> struct OnePassArgs : MlpOperands<E> {
  using T = typename Elem<E>::T;
  float* acc;          // [copies, m, dim], zero between launches
  unsigned* counters;  // [0]: blocks arrived, [1]: converters that saw them all; zero between launches
  unsigned long long* timeline;
  int groups;
  int cluster;     // blocks per cluster (sm_90 when > 1): without L2 groups they share act, each taking
                   // 1/cluster of y's columns
  int group;       // blocks that share act through L2 the same way (when > 1)
  int x_multicast; // the blocks of a cluster load x together, each a share of the rows for all (sm_90)
  T* act_g;        // [m, hidden]: act of the L2 groups
  unsigned* group_words;  // a barrier word per L2 group, zero at first
  int converters;  // the last blocks to arrive, which convert the accumulator (1..grid / 2)
  int copies;      // accumulators: team t adds into copy t % copies
};

// The first output 8-column group of y that block `rank` of a team computes
// (rank = team gives the end of the last block's).
__host__ __device__ constexpr int colGroupsFirst(int dim, int team, int rank) { return rank * (dim / 8) / team; }
__host__ __device__ constexpr int colGroupsMax(int dim, int team) { return (dim / 8 + team - 1) / team; }

// The workspace: the accumulators, the arrival counters, then (L2 groups only)
// a barrier word per group and the groups' act.
inline size_t countersOffset(const SmallMlpPlan& plan) {
  return roundUp256(size_t(plan.copies) * plan.m * plan.dim * sizeof(float));
}
inline size_t groupWordsOffset(const SmallMlpPlan& plan) { return countersOffset(plan) + 256; }
inline size_t groupActOffset(const SmallMlpPlan& plan) {
  return groupWordsOffset(plan) + roundUp256(size_t(plan.grid / plan.l2_group) * sizeof(unsigned));
}
inline size_t onePassWorkspaceBytes(const SmallMlpPlan& plan) {
  if (plan.l2_group == 1) return groupWordsOffset(plan);
  return groupActOffset(plan) + roundUp256(size_t(plan.m) * plan.hidden * 2);
}

// Fills a one-pass argument struct from the plan and the launch's pointers.
template <ElemType E>
void fillOnePassArgs(OnePassArgs<E>& args, const SmallMlpPlan& plan, const void* x, const void* wgu, const void* wd,
                     void* y, void* workspace, unsigned long long* timeline) {
  char* ws = static_cast<char*>(workspace);
  args.setOperands(plan, x, wgu, wd, y);
  args.acc = reinterpret_cast<float*>(ws);
  args.counters = reinterpret_cast<unsigned*>(ws + countersOffset(plan));
  args.timeline = timeline;
  args.groups = plan.a_groups;
  args.cluster = plan.cluster;
  args.group = plan.l2_group;
  args.x_multicast = plan.x_multicast ? 1 : 0;
  args.group_words = reinterpret_cast<unsigned*>(ws + groupWordsOffset(plan));
  args.act_g = reinterpret_cast<typename OnePassArgs<E>::T*>(ws + groupActOffset(plan));
  args.converters = plan.converters;
  args.copies = plan.copies;
}

// p[0..3] += v, atomically, without reading back (p 16-byte aligned).
__device__ __forceinline__ void atomicAddQuad(float* p, float4 v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("red.relaxed.gpu.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(v.x), "f"(v.y),
               "f"(v.z), "f"(v.w)
               : "memory");
#else
  atomicAdd(p, v.x);
  atomicAdd(p + 1, v.y);
  atomicAdd(p + 2, v.z);
  atomicAdd(p + 3, v.w);
#endif
}

// Adds one 16 x 8 accumulator fragment (mma.sync's C layout, which is also each
// warp's share of a wgmma accumulator: c[0..1] row lane / 4, c[2..3] row
// lane / 4 + 8, columns (lane % 4) * 2 + 0..1) at rows row0.., columns col0..
// of the [m, dim] accumulator `acc`. Lane pairs swap halves so that each lane
// holds 4 adjacent columns of one row: the even lane row r, the odd lane row
// r + 8; one atomic each. Rows from m on are left out.
__device__ __forceinline__ void addFragment(float* acc, int m, int dim, int row0, int col0, const float* c) {
  const int lane = threadIdx.x % 32;
  const bool odd = lane & 1;
  const float s0 = odd ? c[0] : c[2], s1 = odd ? c[1] : c[3];
  const float r0 = __shfl_xor_sync(0xffffffffu, s0, 1), r1 = __shfl_xor_sync(0xffffffffu, s1, 1);
  const float4 v = odd ? make_float4(r0, r1, c[2], c[3]) : make_float4(c[0], c[1], r0, r1);
  const int row = row0 + lane / 4 + (odd ? 8 : 0), col = col0 + (lane % 4 / 2) * 4;
  if (row < m) atomicAddQuad(acc + int64_t(row) * dim + col, v);
}

// The end of a one-pass block, once its atomics are issued: it arrives, and
// the last `converters` blocks to arrive each convert one share of the
// accumulators into y and zero them (one block alone took 1.5 us at 16 tokens,
// bound by its own bandwidth). A converter waits for the blocks still to
// arrive; they can always be placed, since the blocks that arrived before it
// are done and the next launch in the stream starts no block before every
// block of this one has started. `published` runs once the block has arrived.
template <ElemType E, int Threads, class Published>
__device__ void arriveAndConvert(const OnePassArgs<E>& p, Published published) {
  using T2 = typename Elem<E>::T2;
  __shared__ int conversion_share;  // this block's share of the conversion, -1: none
  __syncthreads();
  if (threadIdx.x == 0) {
    const int from_end = int(gridDim.x) - 1 - int(atomicAddAcqRel(p.counters, 1u));
    const int share = from_end < p.converters ? from_end : -1;
    if (share >= 0) {
      while (loadAcquire(p.counters) < gridDim.x) {
      }
      // Once every converter has seen all arrivals, the last to say so resets
      // both counters for the next launch.
      if (atomicAdd(p.counters + 1, 1u) == unsigned(p.converters) - 1) {
        p.counters[0] = 0;
        p.counters[1] = 0;
      }
    }
    conversion_share = share;
  }
  __syncthreads();
  published();
  if (conversion_share < 0) return;
  // Loads a batch at a time: a few L2 round trips per share rather than one per
  // element it converts.
  constexpr int kQuads = 3;  // per thread and batch, each from every accumulator
  const int quads = p.m * p.dim / 4;
  const int begin = int(int64_t(quads) * conversion_share / p.converters);
  const int end = int(int64_t(quads) * (conversion_share + 1) / p.converters);
  float4* acc4 = reinterpret_cast<float4*>(p.acc);
  for (int base = begin + int(threadIdx.x); base < end; base += Threads * kQuads) {
    float4 v[kQuads][kMaxCopies];
#pragma unroll
    for (int q = 0; q < kQuads; ++q) {
#pragma unroll
      for (int c = 0; c < kMaxCopies; ++c) {
        if (c < p.copies && base + q * Threads < end) v[q][c] = __ldcg(acc4 + int64_t(c) * quads + base + q * Threads);
      }
    }
#pragma unroll
    for (int q = 0; q < kQuads; ++q) {
      const int i = base + q * Threads;
      if (i >= end) continue;
      float4 sum = v[q][0];
#pragma unroll
      for (int c = 1; c < kMaxCopies; ++c) {
        if (c < p.copies) sum = make_float4(sum.x + v[q][c].x, sum.y + v[q][c].y, sum.z + v[q][c].z, sum.w + v[q][c].w);
      }
      T2 o[2] = {Elem<E>::pack(sum.x, sum.y), Elem<E>::pack(sum.z, sum.w)};
      *reinterpret_cast<uint2*>(p.y + int64_t(i) * 4) = *reinterpret_cast<const uint2*>(o);
#pragma unroll
      for (int c = 0; c < kMaxCopies; ++c) {
        if (c < p.copies) __stcg(acc4 + int64_t(c) * quads + i, make_float4(0.f, 0.f, 0.f, 0.f));
      }
    }
  }
}

}  // namespace fuselab::fusedmlp
