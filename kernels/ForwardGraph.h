// Capturing one forward into a CUDA graph (CUDA builds): warm-ups on a side
// stream of the current device, then one forward captured, instantiated and
// ready to replay. Used by CUDA-graph mode (CudaGraphWorkload.h) and by
// tp_mlp's overlap variant on NCCL (TpMlpWorkload.h).
#pragma once

#ifdef FUSELAB_HAVE_CUDA
#include <ATen/cuda/CUDAGraph.h>

#include <functional>
#include <memory>

namespace fuselab {

// Runs `forward` `warmups` times (cuBLAS handles, workspaces and allocator
// blocks must exist before capture: nothing may come from the default pool
// inside it), then captures one more call. The capture always ends, also when
// `forward` throws (rethrown). The capture is thread-local: other threads of
// the process (c10d's NCCL watchdog, which queries events of earlier work)
// may call CUDA meanwhile; this thread's calls are checked as strictly.
std::unique_ptr<at::cuda::CUDAGraph> captureForwardGraph(const std::function<void()>& forward, int warmups);

}  // namespace fuselab
#endif
