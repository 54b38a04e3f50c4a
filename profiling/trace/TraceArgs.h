// Lazy access to an event's "args" object (raw JSON kept in
// Trace::args_text). Each call parses that one object; malformed args give
// empty results (argsForDisplay says they are malformed) rather than errors.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

// (key, value) in source order; strings unquoted, other values as compact
// JSON ("[1024, 1, 1]" -> "[1024,1,1]"). For tooltips.
std::vector<std::pair<std::string, std::string>> argsForDisplay(const Trace& trace, EventRef event);
std::vector<std::pair<std::string, std::string>> argsForDisplay(std::string_view args_json);

// A top-level integer argument ("correlation", "stream", "registers per
// thread", ...). nullopt when absent, not an integer, or the args are malformed.
std::optional<int64_t> argInt(const Trace& trace, EventRef event, std::string_view key);
std::optional<int64_t> argInt(std::string_view args_json, std::string_view key);

// A top-level number (integer or not) as a double. nullopt when absent, not a
// number, or the args are malformed.
std::optional<double> argNumber(const Trace& trace, EventRef event, std::string_view key);
std::optional<double> argNumber(std::string_view args_json, std::string_view key);

// A top-level array of integers ("grid", "block"); empty when absent or not
// such an array.
std::vector<int64_t> argIntArray(const Trace& trace, EventRef event, std::string_view key);
std::vector<int64_t> argIntArray(std::string_view args_json, std::string_view key);

// What a top-level key holds, as ArgIntReader reads it.
struct ArgInt {
  enum class Kind : uint8_t { Absent, Null, Integer, Other };
  Kind kind = Kind::Absent;
  int64_t value = 0;  // when Integer
};

// The same integer args of many events: each event's args parsed once for
// all the keys, with one parser for every event (argInt makes one per call).
// Malformed args read as every key Absent; a repeated key, as argInt, as
// its first value.
class ArgIntReader {
 public:
  explicit ArgIntReader(std::vector<std::string> keys);
  ~ArgIntReader();
  ArgIntReader(const ArgIntReader&) = delete;
  ArgIntReader& operator=(const ArgIntReader&) = delete;
  // One value per key, in the keys' order; valid until the next read.
  const std::vector<ArgInt>& read(const Trace& trace, EventRef event);
  const std::vector<ArgInt>& read(std::string_view args_json);

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
  std::vector<std::string> keys_;
  std::vector<ArgInt> values_;
};

}  // namespace fuselab
