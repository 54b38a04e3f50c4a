#include "app/OpenPaths.h"

#include <algorithm>
#include <iostream>
#include <system_error>

#include "app/Commands.h"

namespace fuselab {

namespace fs = std::filesystem;

bool looksLikeTrace(const fs::path& path) {
  const std::string name = path.filename().string();
  auto endsWith = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return endsWith(".json") || endsWith(".json.gz");
}

namespace {

std::vector<fs::path> tracesInFolder(const fs::path& folder) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && looksLikeTrace(it->path())) out.push_back(it->path());
  if (ec) throw OpenPathsError("cannot read folder " + folder.string() + ": " + ec.message());
  if (out.empty())
    throw OpenPathsError("no traces in folder " + folder.string() + " (looked for *.json and *.json.gz)");
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<fs::path> tracesToOpen(const std::vector<std::string>& paths) {
  std::vector<fs::path> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    if (!fs::exists(st)) throw OpenPathsError("no such file or folder: " + p);
    if (fs::is_directory(st)) {
      for (fs::path& t : tracesInFolder(p)) out.push_back(std::move(t));
    } else if (fs::is_regular_file(st)) {
      out.emplace_back(p);
    } else {
      throw OpenPathsError("not a file or a folder: " + p);
    }
  }
  return out;
}

int openPathsInWindow(const std::vector<std::string>& paths) {
  std::vector<fs::path> traces;
  try {
    traces = tracesToOpen(paths);
  } catch (const OpenPathsError& e) {
    std::cerr << "fuselab: " << e.what() << "\n";
    return 2;
  }
  // One file is one trace; a folder or several files are one run.
  if (paths.size() == 1 && traces.size() == 1 && !fs::is_directory(paths.front()))
    return openWindow(traces.front().string());
  return openWindowWith(paths);
}

}  // namespace fuselab
