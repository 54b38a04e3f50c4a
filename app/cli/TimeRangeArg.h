// The --range START:END argument of `fuselab screenshot`: times since the
// trace start, each with an optional unit (ns, us, ms, s; default us), e.g.
// "1.2ms:2.5ms", "300:900" (microseconds), "0:1s".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fuselab {

struct TimeRange {
  double begin_ns = 0;
  double end_ns = 0;
};

// nullopt and `error` set when the text is not a valid range (END <= START,
// negative, unknown unit, not a number).
std::optional<TimeRange> parseTimeRange(std::string_view text, std::string* error = nullptr);

// One time with an optional unit, in nanoseconds.
std::optional<double> parseTimeNs(std::string_view text);

}  // namespace fuselab
