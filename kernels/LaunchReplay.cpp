// Built with CUDA only (FusedMlp.cpp uses it on its large path).
#ifdef FUSELAB_HAVE_CUDA
#include "kernels/LaunchReplay.h"

#include <stdexcept>
#include <string>

namespace fuselab {

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("fused_mlp launch replay: ") + what + ": " +
                                                 cudaGetErrorString(e));
}
}  // namespace

LaunchReplay::~LaunchReplay() {
  reset();
  if (recording_stream_) cudaStreamDestroy(recording_stream_);
}

void LaunchReplay::reset() {
  if (exec_) cudaGraphExecDestroy(exec_);
  exec_ = nullptr;
}

void LaunchReplay::run(const Key& key, cudaStream_t stream, const std::function<void(cudaStream_t)>& launches) {
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &capturing), "capture status");
  if (capturing != cudaStreamCaptureStatusNone) {  // part of the caller's graph: no graph of our own inside
    launches(stream);
    return;
  }
  int device = 0;
  check(cudaGetDevice(&device), "current device");
  if (exec_ && key == key_ && device == device_) {
    check(cudaGraphLaunch(exec_, stream), "graph launch");
    return;
  }
  reset();
  if (recording_stream_ && device != device_) {
    cudaStreamDestroy(recording_stream_);
    recording_stream_ = nullptr;
  }
  if (!recording_stream_) check(cudaStreamCreateWithFlags(&recording_stream_, cudaStreamNonBlocking), "stream");
  device_ = device;
  check(cudaStreamBeginCapture(recording_stream_, cudaStreamCaptureModeThreadLocal), "begin capture");
  cudaGraph_t graph = nullptr;
  try {
    launches(recording_stream_);
  } catch (...) {
    cudaStreamEndCapture(recording_stream_, &graph);
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  check(cudaStreamEndCapture(recording_stream_, &graph), "end capture");
  const cudaError_t made = cudaGraphInstantiate(&exec_, graph, 0);
  cudaGraphDestroy(graph);
  if (made != cudaSuccess) exec_ = nullptr;
  check(made, "graph instantiation");
  key_ = key;
  check(cudaGraphLaunch(exec_, stream), "graph launch");
}

}  // namespace fuselab

#endif  // FUSELAB_HAVE_CUDA
