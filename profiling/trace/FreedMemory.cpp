#include "profiling/trace/FreedMemory.h"

#include <cstdlib>  // defines __GLIBC__ on glibc
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Under AddressSanitizer, glibc's allocator is replaced and its arenas may
// never have been set up: trimming them reads a null top chunk.
// GCC says so with __SANITIZE_*__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FUSELAB_ALLOCATOR_REPLACED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define FUSELAB_ALLOCATOR_REPLACED 1
#endif
#endif

namespace fuselab {

void returnFreedMemory() {
#if defined(__GLIBC__) && !defined(FUSELAB_ALLOCATOR_REPLACED)
  malloc_trim(0);
#endif
}

}  // namespace fuselab
