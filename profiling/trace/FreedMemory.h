// Gives memory the allocator keeps after frees back to the system. After a
// large import, glibc holds hundreds of MB of freed windows, sort buffers and
// map nodes in its heaps (above its adaptive mmap threshold, blocks up to
// 32 MB come from the heap); the analysis then runs on top of them.
#pragma once

namespace fuselab {

// A no-op where the C library has no such call or a sanitizer replaces the
// allocator.
void returnFreedMemory();

}  // namespace fuselab
