// Large-token GeGLU MLP, kernel 1 of 2, Hopper path (compiled for sm_90a only; see
// kernels/CMakeLists.txt): act = gelu_tanh(x wg^T) * (x wu^T) as one GEMM over the
// interleaved [gate|up] weights with the GeGLU in the epilogue.
//
// Persistent: each block walks tiles of 64 C tokens x N wgu rows (N / 2 hidden
// units), K step 64, 4 to 6 stages. Warpgroup 0 is the producer: one thread
// issues bulk tensor copies (TMA, 128-byte swizzle) that complete on the stage's "full"
// mbarrier, and runs ahead into the next tile while the consumers are in their
// epilogue. Consumer warpgroups 1..C each run wgmma m64nNk16 on their 64 rows,
// operands straight from shared memory, and free a stage through its "empty"
// mbarrier once the wgmma that read it has retired.
// The epilogue writes act into shared memory and one thread of the warpgroup
// hands it to bulk tensor stores, which go on while the next tile's products
// run. Storing from registers held the warps until the stores left: at 8192
// tokens 141.1 us against 117.5-118.0 this way (H200, GEMM alone, same run);
// the bulk stores also write whole lines.
// Four tile shapes: Wide 128 x 256, Mid 128 x 192 and Slim 128 x 96 (C = 2,
// one block per multiprocessor), and Narrow 64 x 96 (C = 1, two blocks per
// multiprocessor), so that mid-size token counts still fill the
// multiprocessors: at 512 tokens Wide has 96 tiles for 132 multiprocessors,
// Mid 128; at 256 tokens Slim has 128; up to 128 tokens Narrow has 128. Gate
// and up rows are interleaved by 8 in wgu, so accumulator column groups 2p and
// 2p+1 of a thread are the gate and up values of the same hidden units.
#include <algorithm>
#include <cstring>

#include "kernels/sm90a/HopperDevice.cuh"

namespace fuselab::fusedmlp {
namespace {

using namespace hopper;

constexpr int kBK = kTileK;
constexpr int kSmemPerSm = 228 * 1024, kSmemReservedPerBlock = 1024;
constexpr int kMaxStages = 6;

// A tile shape: C consumer warpgroups of 64 rows each, N wgu rows; act staged
// for its stores in boxes of kBoxUnits; as many stages (up to kMaxStages) as fit.
template <int C, int N> struct Tile {
  static constexpr int kConsumers = C;
  static constexpr int kBM = 64 * kConsumers, kBN = N, kUnits = N / 2;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kBlocksPerSm = kConsumers == 1 ? 2 : 1;
  static constexpr int kABytes = kBM * kBK * 2;
  static constexpr int kBBytes = kBN * kBK * 2;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kBoxUnits = kUnits % 32 == 0 ? 32 : 16;
  static constexpr int kOutBytes = 64 * kUnits * 2;  // one consumer's rows of act
  static constexpr int kFixedBytes =
      1024 /* alignment slack */ + kConsumers * kOutBytes + 2 * kMaxStages * 8 /* full and empty mbarriers */;
  static constexpr int kStages =
      std::min(kMaxStages, (kSmemPerSm / kBlocksPerSm - kSmemReservedPerBlock - kFixedBytes) / kStageBytes);
  static constexpr size_t kSmemBytes = kFixedBytes + size_t(kStages) * kStageBytes;
  static_assert(kUnits % kBoxUnits == 0 && kOutBytes % 1024 == 0 && kStageBytes % 1024 == 0);
};
using WideTile = Tile<2, 256>;   // 4 stages
using MidTile = Tile<2, 192>;    // 5 stages
using NarrowTile = Tile<1, 96>;  // 5 stages
using SlimTile = Tile<2, 96>;     // 6 stages

static_assert(sizeof(CUtensorMap) == sizeof(GegluGemmMaps::x), "GegluGemmMaps holds one CUtensorMap per matrix");

template <ElemType E, class T>
__global__ void __launch_bounds__(T::kThreads, T::kBlocksPerSm)
    gegluGemmWgmmaKernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_w,
                         const __grid_constant__ CUtensorMap map_act, int m, int dim, int hidden) {
#ifdef FUSELAB_HAS_WGMMA
  constexpr int kStages = T::kStages;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (smemAddr(smem_raw) & 1023)) & 1023);
  unsigned char* staged = smem + kStages * T::kStageBytes;  // act on its way out, kOutBytes per consumer
  uint64_t* full = reinterpret_cast<uint64_t*>(staged + T::kConsumers * T::kOutBytes);
  uint64_t* empty = full + kStages;
  const int wg = threadIdx.x / 128;
  const int chunks = (dim + kBK - 1) / kBK;
  const int tiles_n = (2 * hidden + T::kBN - 1) / T::kBN;
  const int tiles = tiles_n * ((m + T::kBM - 1) / T::kBM);

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarInit(&full[s], 1);
      mbarInit(&empty[s], 4 * T::kConsumers);  // one arrival per consumer warp
    }
    mbarInitFence();
  }
  __syncthreads();

  if (wg == 0) {
    if constexpr (T::kConsumers > 1) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      int it = 0;  // chunks loaded so far, over all tiles: picks the stage and its phase
      for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int m0 = (tile / tiles_n) * T::kBM, n0 = (tile % tiles_n) * T::kBN;
        for (int c = 0; c < chunks; ++c, ++it) {
          const int s = it % kStages;
          if (it >= kStages) mbarWait(&empty[s], ((it / kStages) - 1) & 1);
          mbarExpectTx(&full[s], T::kStageBytes);
          tmaLoad2d(smem + s * T::kStageBytes, &map_x, c * kBK, m0, &full[s]);
          tmaLoad2d(smem + s * T::kStageBytes + T::kABytes, &map_w, c * kBK, n0, &full[s]);
        }
      }
    }
  } else {
    if constexpr (T::kConsumers > 1) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int half = wg - 1;  // which 64 rows of the block tile
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    int it = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const int m0 = (tile / tiles_n) * T::kBM, n0 = (tile % tiles_n) * T::kBN;
      float d[T::kBN / 2];

      for (int c = 0; c < chunks; ++c, ++it) {
        const int s = it % kStages;
        mbarWait(&full[s], (it / kStages) & 1);
        const unsigned char* a = smem + s * T::kStageBytes + half * (64 * 128);
        const unsigned char* b = smem + s * T::kStageBytes + T::kABytes;
        wgmmaFence();
#pragma unroll
        for (int k = 0; k < kBK / 16; ++k) {
          Wgmma<T::kBN>::template run<E>(d, smemDesc(a + k * 32), smemDesc(b + k * 32), c > 0 || k > 0);
        }
        wgmmaCommit();
        // Keep this chunk's wgmma in flight; the previous one has retired, so its stage is free.
        wgmmaWait<1>();
        if (c > 0 && lane == 0) mbarArrive(&empty[(it - 1) % kStages]);
      }
      wgmmaWait<0>();
      if (lane == 0) mbarArrive(&empty[(it - 1) % kStages]);  // the producer may refill it during the epilogue

      unsigned char* out = staged + half * T::kOutBytes;
      const bool storer = threadIdx.x % 128 == 0;
      if (storer) bulkWaitRead();  // the previous tile's stores have read `out`
      namedBarrierSync(1 + half, 128);
      stageGeglu<E, T::kBN / 16, T::kBoxUnits>(out, lane, warp, d);
      fenceProxyAsyncShared();
      namedBarrierSync(1 + half, 128);
      if (storer) {
        for (int b = 0; b < T::kUnits / T::kBoxUnits; ++b) {
          tmaStore2d(&map_act, n0 / 2 + b * T::kBoxUnits, m0 + half * 64, out + b * (64 * 2 * T::kBoxUnits));
        }
        bulkCommit();
      }
    }
    if (threadIdx.x % 128 == 0) bulkWaitAll();  // shared memory stays until the last stores have read it
  }
#else
  __trap();  // this translation unit is meant for sm_90a only
#endif
}

template <ElemType E, class T>
void launchTiled(const GegluGemmMaps& maps, int64_t m, int64_t hidden, int64_t dim, cudaStream_t stream) {
  auto kernel = gegluGemmWgmmaKernel<E, T>;
  static std::atomic<uint64_t> raised{0};
  raiseSmemLimitOnce(reinterpret_cast<const void*>(kernel), int(T::kSmemBytes), raised,
                     "shared-memory limit of the wgmma GeGLU GEMM");
  int device = 0, sms = 0;
  checkCuda(cudaGetDevice(&device), "current device");
  checkCuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "multiprocessor count");
  const int64_t tiles = ((2 * hidden + T::kBN - 1) / T::kBN) * ((m + T::kBM - 1) / T::kBM);
  const int grid = int(std::min<int64_t>(tiles, int64_t(sms) * T::kBlocksPerSm));
  CUtensorMap map_x, map_w, map_act;
  std::memcpy(&map_x, maps.x, sizeof map_x);
  std::memcpy(&map_w, maps.w, sizeof map_w);
  std::memcpy(&map_act, maps.act, sizeof map_act);
  kernel<<<grid, T::kThreads, T::kSmemBytes, stream>>>(map_x, map_w, map_act, int(m), int(dim), int(hidden));
  checkCuda(cudaGetLastError(), "GeGLU GEMM launch (wgmma)");
}

// f(T{}) for the tile shape T of `tile` (Auto is resolved before): the one
// place that maps a form to its shape, for the maps' boxes and the launch.
template <class F> decltype(auto) withTile(GegluTile tile, F&& f) {
  switch (tile) {
    case GegluTile::Narrow: return f(NarrowTile{});
    case GegluTile::Slim: return f(SlimTile{});
    case GegluTile::Mid: return f(MidTile{});
    default: return f(WideTile{});
  }
}

template <ElemType E>
void launchTyped(const GegluGemmMaps& maps, int64_t m, int64_t hidden, int64_t dim, cudaStream_t stream) {
  withTile(maps.tile, [&](auto tile) { launchTiled<E, decltype(tile)>(maps, m, hidden, dim, stream); });
}

// The shapes of a form's boxes: x and wgu tiles, and act's stores.
struct TileBoxes {
  int rows, cols, act_units;
};

}  // namespace

GegluTile gegluTileFor(int64_t m) {
  if (m >= kGegluWideTileFromTokens) return GegluTile::Wide;
  if (m >= kGegluMidTileFromTokens) return GegluTile::Mid;
  return m >= kGegluSlimTileFromTokens ? GegluTile::Slim : GegluTile::Narrow;
}

const char* gegluTileName(GegluTile tile) {
  switch (tile) {
    case GegluTile::Wide: return "128x256";
    case GegluTile::Mid: return "128x192";
    case GegluTile::Narrow: return "64x96, two blocks per SM";
    case GegluTile::Slim: return "128x96";
    case GegluTile::Auto: break;
  }
  return "auto";
}

bool gegluGemmWgmmaAvailable(int device) {
  return sm90aLoadable(device, reinterpret_cast<const void*>(&gegluGemmWgmmaKernel<ElemType::BF16, WideTile>));
}

void encodeGegluGemmMaps(GegluGemmMaps& maps, ElemType type, const void* x, const void* wgu, void* act, int64_t m,
                         int64_t dim, int64_t hidden, GegluTile tile) {
  if (reinterpret_cast<uintptr_t>(x) % 16 != 0 || reinterpret_cast<uintptr_t>(wgu) % 16 != 0 ||
      reinterpret_cast<uintptr_t>(act) % 16 != 0) {
    throw std::invalid_argument("the wgmma GeGLU GEMM needs 16-byte aligned x, weights and act");
  }
  // The boxes are those of the form that will run.
  if (tile == GegluTile::Auto) tile = gegluTileFor(m);
  const TileBoxes boxes = withTile(tile, [](auto shape) {
    using T = decltype(shape);
    return TileBoxes{T::kBM, T::kBN, T::kBoxUnits};
  });
  const CUtensorMap map_x = makeTileMap(type, x, m, dim, boxes.rows);
  const CUtensorMap map_w = makeTileMap(type, wgu, 2 * hidden, dim, boxes.cols);
  const CUtensorMap map_act = makeBoxMap(type, act, m, hidden, 64, boxes.act_units);
  maps.tile = tile;
  std::memcpy(maps.x, &map_x, sizeof map_x);
  std::memcpy(maps.w, &map_w, sizeof map_w);
  std::memcpy(maps.act, &map_act, sizeof map_act);
}

void launchGegluGemmWgmma(const GegluGemmMaps& maps, ElemType type, int64_t m, int64_t dim, int64_t hidden,
                          cudaStream_t stream) {
  if (m <= 0) return;
  if (type == ElemType::BF16) {
    launchTyped<ElemType::BF16>(maps, m, hidden, dim, stream);
  } else {
    launchTyped<ElemType::FP16>(maps, m, hidden, dim, stream);
  }
}

}  // namespace fuselab::fusedmlp
