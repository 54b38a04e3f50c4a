// How much memory opening a trace may use, so that a trace too large for the
// machine is refused with a message before it is read, not ended by the
// kernel's OOM killer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fuselab {

struct AvailableMemory {
  uint64_t bytes = 0;
  std::string source;  // "MemAvailable", "the cgroup limit", "FUSELAB_AVAILABLE_MEMORY"
};

// Memory this process may still take: MemAvailable (/proc/meminfo), lowered
// to what the cgroup's limit leaves (v2 memory.max - memory.current, v1
// limit_in_bytes - usage_in_bytes). The environment variable
// FUSELAB_AVAILABLE_MEMORY (bytes, or with a K/M/G suffix) overrides both: it
// simulates a smaller machine (tests) or lifts a wrong guess. nullopt when
// nothing can be read (the check is then skipped).
std::optional<AvailableMemory> availableMemory();

// "12", "512M", "1.5G" -> bytes; nullopt when malformed.
std::optional<uint64_t> parseByteSize(std::string_view text);

// The peak memory the importer needs for `json_bytes` of (decompressed) JSON:
// the columns and the args text it keeps, plus its read-ahead buffers.
// every_args false: an import that keeps few events' args
// (ChromeImportOptions::keep_args).
uint64_t importPeakEstimate(uint64_t json_bytes, bool every_args = true);

// "1.2 GB", "340 MB", "12 kB"
std::string formatBytes(uint64_t bytes);

}  // namespace fuselab
