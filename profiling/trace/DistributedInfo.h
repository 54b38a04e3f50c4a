// What a rank's trace says about the distributed job it belongs to: Kineto's
// top-level "distributedInfo" (rank, world_size, backend, process groups),
// and the rank spelled in a file name ("rank-3", "rank_3", "_rank3.").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "profiling/trace/Trace.h"

namespace fuselab {

struct DistributedInfo {
  bool present = false;  // the trace has a "distributedInfo" object
  std::optional<int> rank;
  std::optional<int> world_size;
  std::string backend;  // "nccl", "gloo", ... ("" when absent)
  // Process groups (pg_config): name -> members as compact JSON ("[0,1]"),
  // or the group's size when the members are not listed.
  std::map<std::string, std::string> groups;
  // Group name -> size (pg_size, else the number of listed members).
  std::map<std::string, int> group_sizes;
};

// Reads meta.extra_fields["distributedInfo"]; absent or malformed -> present=false.
DistributedInfo distributedInfoOf(const Trace& trace);
DistributedInfo parseDistributedInfo(std::string_view json_object);

// The rank in a file name: "rank-3", "rank_3", "rank3" after a separator or
// at the start ("trace_rank3.json", "rank-12.json.gz"). nullopt when none.
std::optional<int> rankFromFileName(std::string_view file_name);

}  // namespace fuselab
