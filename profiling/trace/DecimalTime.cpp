#include "profiling/trace/DecimalTime.h"

#include <charconv>

namespace fuselab {

namespace {
bool isDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

DecimalParse parseScaledDecimal(std::string_view t, int scale_pow10, int64_t& out, bool allow_negative) {
  // Fast path for Kineto's own form: microseconds with three decimals.
  if (scale_pow10 == 3 && t.size() >= 5 && t.size() <= 19 && t[t.size() - 4] == '.' && (t.size() == 5 || t[0] != '0')) {
    int64_t v = 0;
    bool digits = true;
    for (size_t k = 0; k < t.size(); ++k) {
      if (k == t.size() - 4) continue;
      unsigned d = unsigned(t[k] - '0');
      if (d >= 10) {  // not this form: the general path below decides
        digits = false;
        break;
      }
      v = v * 10 + int64_t(d);  // at most 18 digits: no overflow
    }
    if (digits) {
      out = v;
      return DecimalParse::Ok;
    }
  }
  size_t i = 0;
  bool negative = false;
  if (i < t.size() && t[i] == '-') negative = true, ++i;
  // JSON grammar: int part is 0 or [1-9][0-9]*, then optional .[0-9]+, then optional [eE][+-]?[0-9]+.
  size_t int_begin = i;
  if (i >= t.size() || !isDigit(t[i])) return DecimalParse::NotANumber;
  if (t[i] == '0') {
    ++i;
  } else {
    while (i < t.size() && isDigit(t[i])) ++i;
  }
  size_t int_end = i;
  size_t frac_begin = i, frac_end = i;
  if (i < t.size() && t[i] == '.') {
    ++i;
    frac_begin = i;
    while (i < t.size() && isDigit(t[i])) ++i;
    frac_end = i;
    if (frac_end == frac_begin) return DecimalParse::NotANumber;
  }
  int64_t exponent = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) exp_negative = t[i] == '-', ++i;
    if (i >= t.size() || !isDigit(t[i])) return DecimalParse::NotANumber;
    while (i < t.size() && isDigit(t[i])) {
      if (exponent < 100000) exponent = exponent * 10 + (t[i] - '0');
      ++i;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != t.size()) return DecimalParse::NotANumber;

  // The digits d0 d1 ... (integer then fraction part) have value
  // 0.d0d1... * 10^(int_digits); scaled, the first `whole` digits form the
  // integer result and the next one decides rounding.
  auto digitAt = [&](int64_t k) -> int {
    int64_t int_digits = int64_t(int_end - int_begin);
    if (k < int_digits) return t[int_begin + size_t(k)] - '0';
    k -= int_digits;
    if (k < int64_t(frac_end - frac_begin)) return t[frac_begin + size_t(k)] - '0';
    return 0;
  };
  int64_t total_digits = int64_t(int_end - int_begin) + int64_t(frac_end - frac_begin);
  int64_t whole = int64_t(int_end - int_begin) + exponent + scale_pow10;
  uint64_t value = 0;
  bool nonzero_seen = false;
  for (int64_t k = 0; k < whole; ++k) {
    int d = digitAt(k);
    if (k >= total_digits && !nonzero_seen) break;  // all zeros: stays 0
    if (d != 0) nonzero_seen = true;
    if (value > (uint64_t(kMaxTimeNs) - d) / 10) return DecimalParse::OutOfRange;
    value = value * 10 + uint64_t(d);
  }
  if (whole >= 0 && whole < total_digits && digitAt(whole) >= 5) ++value;
  if (value > uint64_t(kMaxTimeNs)) return DecimalParse::OutOfRange;
  if (negative && value != 0) {
    if (!allow_negative) return DecimalParse::Negative;
    out = -int64_t(value);
  } else {
    out = int64_t(value);
  }
  return DecimalParse::Ok;
}

void appendMicroseconds(std::string& out, int64_t ns) {
  if (ns < 0) {
    out.push_back('-');
    ns = -ns;  // |ns| <= kMaxTimeNs in practice; INT64_MIN is not a time we produce
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), ns / 1000);
  out.append(buf, end);
  int64_t frac = ns % 1000;
  char f[4] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10), char('0' + frac % 10)};
  out.append(f, 4);
}

}  // namespace fuselab
