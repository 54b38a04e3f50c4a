#include "kernels/ForwardGraph.h"

#ifdef FUSELAB_HAVE_CUDA
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

namespace fuselab {

std::unique_ptr<at::cuda::CUDAGraph> captureForwardGraph(const std::function<void()>& forward, int warmups) {
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  // The side stream belongs to the current device: a rank's process runs on
  // its own GPU, and a stream of another device would capture nothing.
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, c10::cuda::current_device());
  c10::cuda::device_synchronize();
  {
    c10::cuda::CUDAStreamGuard on_side(side);
    for (int i = 0; i < warmups; ++i) forward();
    c10::cuda::device_synchronize();
    graph->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
    try {
      forward();
    } catch (...) {
      try {
        graph->capture_end();
      } catch (...) {  // the capture is already invalid; the first error says why
      }
      throw;
    }
    graph->capture_end();
  }
  c10::cuda::device_synchronize();
  return graph;
}

}  // namespace fuselab
#endif
