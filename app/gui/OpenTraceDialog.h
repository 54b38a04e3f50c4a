// File > Open trace: a path field, the recent files, and a plain listing of
// the folder (sub-folders and .json / .json.gz files) to click through.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fuselab {

class OpenTraceDialog {
 public:
  // Shows the dialog at the next draw, listing `folder`.
  void open(const std::string& folder);
  // Draws it while open; returns the path the user chose to open.
  std::optional<std::string> draw(const std::vector<std::string>& recent_files);

 private:
  struct Entry {
    std::string name;
    bool is_dir = false;
  };
  void list(const std::string& folder);

  bool open_requested_ = false;
  std::string path_;
  std::string folder_;
  std::vector<Entry> entries_;
  std::string list_error_;
};

// True for names fuselab can open: *.json, *.json.gz (case-insensitive).
bool looksLikeTraceFile(const std::string& name);

}  // namespace fuselab
