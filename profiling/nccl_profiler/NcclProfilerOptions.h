// What the NCCL profiler plugin records and where it writes, from the
// environment of the process that loads it:
//   FUSELAB_NCCL_PROFILER_EVENTS  comma-separated: coll, p2p, kernel (the
//                                 channels' GPU times), proxy (ProxyOp and
//                                 ProxyStep), or all; default "coll,kernel"
//   FUSELAB_NCCL_PROFILER_DIR     folder of the side files; default "."
//   FUSELAB_NCCL_PROFILER_POOL    collectives kept per communicator (the
//                                 channel and proxy pools scale with it);
//                                 default 65536, at most 16777216
//   RANK                          the process' rank, for the file name
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fuselab::nccl_profiler {

struct PluginOptions {
  int event_mask = 0;  // NCCL's ncclProfile* bits
  std::filesystem::path dir = ".";
  uint32_t coll_capacity = 65536;
  std::optional<int> process_rank;    // RANK, when it is a number
  std::vector<std::string> warnings;  // unknown words, bad numbers (what was used instead)

  uint32_t channelCapacity() const { return coll_capacity * 8; }
  uint32_t proxyCapacity() const { return coll_capacity * 16; }
};

// `env` returns the variable's value or nullptr (std::getenv in the plugin).
PluginOptions pluginOptionsFrom(const std::function<const char*(const char*)>& env);

// The mask's events as words of FUSELAB_NCCL_PROFILER_EVENTS ("coll,kernel").
std::string eventWords(int event_mask);

}  // namespace fuselab::nccl_profiler
