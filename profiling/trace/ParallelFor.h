// f(i) for i in [0, n), on up to as many threads as there are cores: each
// thread takes every k-th i, so long and short items mix. Items must not
// share state they write.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace fuselab {

template <typename F>
void parallelFor(size_t n, F&& f) {
  const size_t workers = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (size_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (size_t i = w; i < n; i += workers) f(i);
    });
  for (std::thread& th : threads) th.join();
}

}  // namespace fuselab
