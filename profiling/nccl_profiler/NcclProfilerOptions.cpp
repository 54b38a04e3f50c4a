#include "profiling/nccl_profiler/NcclProfilerOptions.h"

#include <charconv>
#include <string_view>

#include "profiling/nccl_profiler/NcclProfilerApi.h"

namespace fuselab::nccl_profiler {

namespace {

constexpr int kProxyEvents = ncclProfileProxyOp | ncclProfileProxyStep;
constexpr uint32_t kMaxCollCapacity = 1u << 24;  // the channel pool (x8) stays within 32 bits

struct EventWord {
  std::string_view word;
  int mask;
};
constexpr EventWord kEventWords[] = {
    {"coll", ncclProfileColl}, {"p2p", ncclProfileP2p}, {"kernel", ncclProfileKernelCh}, {"proxy", kProxyEvents}};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> number(std::string_view s) {
  int64_t v = 0;
  s = trimmed(s);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

int parseEvents(std::string_view text, std::vector<std::string>& warnings) {
  int mask = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view word = trimmed(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (word.empty()) continue;
    if (word == "all") {
      for (const EventWord& w : kEventWords) mask |= w.mask;
      continue;
    }
    bool known = false;
    for (const EventWord& w : kEventWords)
      if (word == w.word) mask |= w.mask, known = true;
    if (!known)
      warnings.push_back("FUSELAB_NCCL_PROFILER_EVENTS: unknown event \"" + std::string(word) +
                         "\" ignored (known: coll, p2p, kernel, proxy, all)");
  }
  return mask;
}

}  // namespace

PluginOptions pluginOptionsFrom(const std::function<const char*(const char*)>& env) {
  PluginOptions o;
  const char* events = env("FUSELAB_NCCL_PROFILER_EVENTS");
  o.event_mask = events ? parseEvents(events, o.warnings) : (ncclProfileColl | ncclProfileKernelCh);
  // KernelCh events hang under their Coll or P2p event: without a parent
  // recorded, a channel has nothing to belong to.
  if ((o.event_mask & (ncclProfileKernelCh | kProxyEvents)) && !(o.event_mask & (ncclProfileColl | ncclProfileP2p)))
    o.event_mask |= ncclProfileColl;
  if (const char* dir = env("FUSELAB_NCCL_PROFILER_DIR"); dir && *dir) o.dir = dir;
  if (const char* pool = env("FUSELAB_NCCL_PROFILER_POOL"); pool && *pool) {
    const std::optional<int64_t> n = number(pool);
    if (n && *n >= 1 && *n <= int64_t(kMaxCollCapacity))
      o.coll_capacity = uint32_t(*n);
    else
      o.warnings.push_back("FUSELAB_NCCL_PROFILER_POOL: \"" + std::string(pool) + "\" is not a count from 1 to " +
                           std::to_string(kMaxCollCapacity) + "; using " + std::to_string(o.coll_capacity));
  }
  if (const char* rank = env("RANK"); rank && *rank) {
    const std::optional<int64_t> r = number(rank);
    if (r && *r >= 0 && *r <= INT32_MAX) o.process_rank = int(*r);
  }
  return o;
}

std::string eventWords(int event_mask) {
  std::string out;
  for (const EventWord& w : kEventWords)
    if ((event_mask & w.mask) == w.mask) out += (out.empty() ? "" : ",") + std::string(w.word);
  return out;
}

}  // namespace fuselab::nccl_profiler
