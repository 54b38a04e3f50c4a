// File > Export trace: writes the open trace as Chrome/Kineto JSON (what
// Perfetto, chrome://tracing and HTA read), optionally gzipped.
#pragma once

#include <optional>
#include <string>

#include "profiling/trace/Trace.h"

namespace fuselab {

class ExportDialog {
 public:
  void open(const std::string& default_path);
  // Draws while open; writes the file on Save. Returns a message for the
  // status bar when something was written.
  std::optional<std::string> draw(const Trace* trace);

 private:
  bool open_requested_ = false;
  std::string path_;
  bool gzip_ = true;
  std::string error_;
};

}  // namespace fuselab
