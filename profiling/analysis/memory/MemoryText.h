// Bytes as people read them, signed (a free is negative): "512 B",
// "32.0 kB", "1.25 MB", "-2.00 GB" (decimal units, as torch's tables).
#pragma once

#include <cstdint>
#include <string>

namespace fuselab {

std::string formatMemoryBytes(int64_t bytes);

}  // namespace fuselab
