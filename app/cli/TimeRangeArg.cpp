#include "app/cli/TimeRangeArg.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace fuselab {

std::optional<double> parseTimeNs(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  std::string_view unit(ptr, static_cast<size_t>(text.data() + text.size() - ptr));
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.remove_prefix(1);
  double factor = 0;
  if (unit.empty() || unit == "us")
    factor = 1e3;
  else if (unit == "ns")
    factor = 1;
  else if (unit == "ms")
    factor = 1e6;
  else if (unit == "s")
    factor = 1e9;
  else
    return std::nullopt;
  return value * factor;
}

std::optional<TimeRange> parseTimeRange(std::string_view text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<TimeRange> {
    if (error) *error = "invalid range '" + std::string(text) + "': " + why;
    return std::nullopt;
  };
  size_t colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
    return fail("expected START:END, e.g. 1.2ms:2.5ms (times since the trace start; units ns, us, ms, s; default us)");
  auto begin = parseTimeNs(text.substr(0, colon));
  auto end = parseTimeNs(text.substr(colon + 1));
  if (!begin) return fail("START is not a time (a number with an optional unit ns, us, ms or s)");
  if (!end) return fail("END is not a time (a number with an optional unit ns, us, ms or s)");
  if (*begin < 0) return fail("START is negative");
  if (*end <= *begin) return fail("END must be after START");
  return TimeRange{*begin, *end};
}

}  // namespace fuselab
