// f(i) for i in [0, n) on every core: the calling thread and a pool of
// workers (started once, one fewer than the cores) take the next i in turn,
// so long and short items mix. Loops may nest (an item may run a loop): the
// caller takes items of its own loop too, so each loop finishes even when
// every worker is busy. Items must not share state they write. An exception
// thrown by an item is rethrown to the caller once the loop is done.
#pragma once

#include <cstddef>
#include <functional>

namespace fuselab {

void parallelForEach(size_t n, const std::function<void(size_t)>& f);

template <typename F>
void parallelFor(size_t n, F&& f) {
  if (n == 0) return;
  if (n == 1) {
    f(0);
    return;
  }
  parallelForEach(n, std::function<void(size_t)>(std::ref(f)));
}

}  // namespace fuselab
