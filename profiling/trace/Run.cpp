#include "profiling/trace/Run.h"

#include <algorithm>

namespace fuselab {

int Run::indexOfRank(int rank) const {
  auto it = std::lower_bound(ranks.begin(), ranks.end(), rank,
                             [](const RankTrace& r, int value) { return r.rank < value; });
  return it != ranks.end() && it->rank == rank ? static_cast<int>(it - ranks.begin()) : -1;
}

}  // namespace fuselab
