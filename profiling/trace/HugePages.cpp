#include "profiling/trace/HugePages.h"

#include <sys/mman.h>

#include <cstdint>

namespace fuselab {

void adviseHugePages(void* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  auto begin = reinterpret_cast<uintptr_t>(data);
  uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  uintptr_t last = (begin + bytes) & ~(kHuge - 1);
  if (bytes < 4 * kHuge || last <= first) return;
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace fuselab
