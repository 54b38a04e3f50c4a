#include "profiling/trace/RunNcclProfiles.h"

#include <filesystem>
#include <set>

namespace fuselab {

namespace fs = std::filesystem;

namespace {

// Whether the file's communicators say another rank: in one of the world's
// size, the rank is the process' own.
std::optional<int> worldRankOf(const NcclProfile& p, int world_size) {
  for (const NcclCommunicatorProfile& c : p.communicators)
    if (c.nranks == world_size) return c.rank;
  return std::nullopt;
}

}  // namespace

void attachNcclProfiles(Run& run) {
  std::set<fs::path> folders;
  for (const RankTrace& r : run.ranks)
    if (!r.file.empty()) folders.insert(fs::path(r.file).parent_path());
  for (const fs::path& folder : folders) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder.empty() ? fs::path(".") : folder, ec)) {
      std::error_code entry_ec;
      if (!entry.is_regular_file(entry_ec) || !isNcclProfileFile(entry.path())) continue;
      const std::string name = entry.path().filename().string();
      const std::optional<int> rank = rankFromFileName(name);
      const int pos = rank ? run.indexOfRank(*rank) : -1;
      if (pos < 0) {
        run.warnings.push_back(name + ": NCCL side file of " + (rank ? "rank " + std::to_string(*rank) : "no rank") +
                               ", which this run does not hold; left out");
        continue;
      }
      RankTrace& r = run.ranks[size_t(pos)];
      if (r.nccl || fs::path(r.file).parent_path() != folder) continue;  // the rank's own folder's file
      try {
        NcclProfile p = readNcclProfile(entry.path());
        if (const auto world_rank = worldRankOf(p, run.world_size); world_rank && *world_rank != r.rank) {
          run.warnings.push_back(name + ": its world communicator is rank " + std::to_string(*world_rank) +
                                 "'s, not rank " + std::to_string(r.rank) + "'s; left out");
          continue;
        }
        run.warnings.insert(run.warnings.end(), p.warnings.begin(), p.warnings.end());
        r.nccl = std::move(p);
      } catch (const NcclProfileError& e) {
        run.warnings.push_back(std::string(e.what()) + "; left out");
      }
    }
  }
}

}  // namespace fuselab
