// Exact conversion between JSON number text and integer nanoseconds. Kineto
// writes timestamps as microseconds with three decimals (4462643229310.880);
// read as a double such values lose the last digit, so they are converted
// from the token text instead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fuselab {

enum class DecimalParse : uint8_t { Ok, NotANumber, Negative, OutOfRange };

// Largest magnitude accepted (about 146 years in ns): anything larger is
// taken to be a corrupt value rather than a time.
inline constexpr int64_t kMaxTimeNs = int64_t(1) << 62;

// Parses a JSON number token (integer, fraction or exponent form) and scales
// it by 10^scale_pow10 (3 for microseconds -> ns, 0 for ns), rounding half
// away from zero to an integer. Negative values give Negative unless
// allow_negative; |result| > kMaxTimeNs gives OutOfRange.
DecimalParse parseScaledDecimal(std::string_view token, int scale_pow10, int64_t& out, bool allow_negative = false);

// "1234.567" for 1234567 ns: microseconds with exactly three decimals.
void appendMicroseconds(std::string& out, int64_t ns);

}  // namespace fuselab
