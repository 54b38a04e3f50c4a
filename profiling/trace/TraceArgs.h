// Lazy access to an event's "args" object (raw JSON kept in
// Trace::args_text). Each call parses that one object; malformed args give
// empty results (argsForDisplay says they are malformed) rather than errors.
#pragma once

#include <cstdint>
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

}  // namespace fuselab
