// A fixed sequence of kernel launches recorded once as a CUDA graph and then
// replayed with one cudaGraphLaunch: the fused MLP's large path (GeGLU GEMM +
// cuBLASLt down GEMM) cost about 13 us of host time per forward launched one
// by one, a graph replay about 2.5 us. The recording is kept for one key (the
// operands' addresses and the token count) and redone when the key changes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

namespace fuselab {

class LaunchReplay {
 public:
  struct Key {
    const void* x = nullptr;
    void* y = nullptr;
    int64_t tokens = 0;
    int variant = 0;
    bool operator==(const Key&) const = default;
  };

  LaunchReplay() = default;
  ~LaunchReplay();
  LaunchReplay(const LaunchReplay&) = delete;
  LaunchReplay& operator=(const LaunchReplay&) = delete;

  // Enqueues what `launches(s)` enqueues on s, on `stream`: by replaying the
  // recording for `key`, made first (on a private stream, so `stream` may be
  // the legacy default stream) if there is none. While `stream` is itself
  // being captured into a graph, calls launches(stream) directly.
  void run(const Key& key, cudaStream_t stream, const std::function<void(cudaStream_t)>& launches);

 private:
  void reset();

  Key key_{};
  cudaGraphExec_t exec_ = nullptr;
  cudaStream_t recording_stream_ = nullptr;
  int device_ = -1;
};

}  // namespace fuselab
