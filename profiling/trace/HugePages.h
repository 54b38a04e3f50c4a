// Transparent huge pages for large buffers (the text of a trace file): fewer
// page faults while it is read. Only advice: harmless where unsupported.
#pragma once

#include <cstddef>

namespace fuselab {

// Call before the memory is first touched; small ranges are left alone.
void adviseHugePages(void* data, size_t bytes);

}  // namespace fuselab
