// Which hardware metrics `capture --counters` asks CUPTI's range profiler for,
// and the configuration image for them (the host half of the profiler API:
// works from a chip name alone, no GPU needed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fuselab::cupti {

// The metrics chosen for one chip: DRAM bytes read and written, and the
// tensor pipe's active share. Empty name = none of the candidates exists.
struct CounterMetrics {
  std::string dram_read;
  std::string dram_write;
  std::string tensor_active;

  std::vector<std::string> names() const;  // the non-empty ones, in the order above
};

// Candidates per quantity, best first. On GH100 the first of each exists;
// the others cover chips whose metric names differ.
const std::vector<std::string>& dramReadCandidates();
const std::vector<std::string>& dramWriteCandidates();
const std::vector<std::string>& tensorActiveCandidates();

// The first candidate of each quantity that CUPTI's host API knows for
// `chip` ("GH100"). `availability`: the device's counter availability image,
// or empty (offline). nullopt with `why` when the chip is unsupported or no
// DRAM metric exists.
std::optional<CounterMetrics> chooseCounterMetrics(const std::string& chip, const std::vector<uint8_t>& availability,
                                                   std::string* why);

// The range profiler's configuration image for `metrics` on `chip`; empty
// with `why` on failure.
std::vector<uint8_t> counterConfigImage(const std::string& chip, const std::vector<uint8_t>& availability,
                                        const std::vector<std::string>& metrics, std::string* why);

// Each range's metric values (in `metrics` order) from a decoded counter
// data image; empty with `why` on failure.
std::vector<std::vector<double>> evaluateCounterData(const std::string& chip, const std::vector<uint8_t>& availability,
                                                     const std::vector<std::string>& metrics,
                                                     const std::vector<uint8_t>& counter_data, size_t ranges,
                                                     std::string* why);

}  // namespace fuselab::cupti
