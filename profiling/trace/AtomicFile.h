// Atomic file writes: the bytes go to a temporary file beside the target,
// are flushed to disk, then renamed over it. A failed write leaves the old
// file as it was. Used by export, screenshots and settings.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace fuselab {

class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws FileWriteError naming the path and the system's reason.
void writeFileAtomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace fuselab
