#include "profiling/trace/JsonStructure.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fuselab::chrome_import {

namespace {

struct BlockMasks {
  uint64_t quote = 0, backslash = 0, open = 0, close = 0, comma = 0;
};

#if defined(__SSE2__)
// The 64 bytes' bits equal to `want`, one 16-byte compare at a time.
inline uint64_t maskOf(const __m128i (&v)[4], __m128i want) {
  const uint64_t m0 = uint16_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v[0], want)));
  const uint64_t m1 = uint16_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v[1], want)));
  const uint64_t m2 = uint16_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v[2], want)));
  const uint64_t m3 = uint16_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v[3], want)));
  return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}

BlockMasks masksOf(const char* block) {
  __m128i v[4], folded[4];
  const __m128i case_bit = _mm_set1_epi8(0x20);  // '[' | 0x20 == '{', ']' | 0x20 == '}'
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * i));
    folded[i] = _mm_or_si128(v[i], case_bit);
  }
  return {maskOf(v, _mm_set1_epi8('"')), maskOf(v, _mm_set1_epi8('\\')), maskOf(folded, _mm_set1_epi8('{')),
          maskOf(folded, _mm_set1_epi8('}')), maskOf(v, _mm_set1_epi8(','))};
}
#endif

#if defined(__x86_64__)
// The same 32 bytes at a time, where the CPU has AVX2 (half the compares).
__attribute__((target("avx2"))) inline uint64_t maskOf2(const __m256i (&v)[2], __m256i want) {
  const uint64_t lo = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v[0], want)));
  const uint64_t hi = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v[1], want)));
  return lo | hi << 32;
}

__attribute__((target("avx2"))) BlockMasks masksOfAvx2(const char* block) {
  __m256i v[2], folded[2];
  const __m256i case_bit = _mm256_set1_epi8(0x20);
  for (int i = 0; i < 2; ++i) {
    v[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 32 * i));
    folded[i] = _mm256_or_si256(v[i], case_bit);
  }
  return {maskOf2(v, _mm256_set1_epi8('"')), maskOf2(v, _mm256_set1_epi8('\\')),
          maskOf2(folded, _mm256_set1_epi8('{')), maskOf2(folded, _mm256_set1_epi8('}')),
          maskOf2(v, _mm256_set1_epi8(','))};
}
#endif

#if !defined(__SSE2__)
BlockMasks masksOf(const char* block) {
  BlockMasks m;
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t(1) << i;
    switch (block[i]) {
      case '"': m.quote |= bit; break;
      case '\\': m.backslash |= bit; break;
      case '{': case '[': m.open |= bit; break;
      case '}': case ']': m.close |= bit; break;
      case ',': m.comma |= bit; break;
      default: break;
    }
  }
  return m;
}
#endif

// Bit i set: an odd number of the bits at or below i are set in x.
uint64_t prefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The characters escaped by a backslash. `carry`: the previous block's last
// byte was a backslash that escapes this block's first; updated for the next.
// Backslashes are rare in traces: a loop over them is enough.
uint64_t escapedChars(uint64_t backslash, bool& carry) {
  uint64_t escaped = carry ? 1 : 0;
  carry = false;
  for (uint64_t b = backslash; b; b &= b - 1) {
    const int i = std::countr_zero(b);
    if (escaped >> i & 1) continue;  // an escaped backslash escapes nothing
    if (i == 63) carry = true;
    else escaped |= uint64_t(1) << (i + 1);
  }
  return escaped;
}

// The scan, with the block masks of one instruction set (inlined into each
// caller, so the AVX2 one is compiled for AVX2 throughout).
template <BlockMasks (*Masks)(const char*)>
[[gnu::always_inline]] inline CommaAtDepth scan(std::string_view text, size_t from, ScanState* resume) {
  CommaAtDepth best;
  ScanState st = resume ? *resume : ScanState{};
  bool escape_carry = st.escaped;
  uint64_t in_string_carry = st.in_string;  // all ones: the block starts inside a string
  int64_t depth = st.depth;
  char tail[64];
  for (size_t at = st.offset; at < text.size(); at += 64) {
    const char* block = text.data() + at;
    const size_t len = std::min<size_t>(64, text.size() - at);
    if (len < 64) {
      if (resume) *resume = {at, in_string_carry, escape_carry, depth};
      std::memset(tail, ' ', sizeof(tail));
      std::memcpy(tail, block, len);
      block = tail;
    }
    const BlockMasks m = Masks(block);
    const uint64_t quotes = m.quote & ~escapedChars(m.backslash, escape_carry);
    const uint64_t in_string = prefixXor(quotes) ^ in_string_carry;
    in_string_carry = uint64_t(0) - (in_string >> 63);
    const uint64_t open = m.open & ~in_string, close = m.close & ~in_string;
    uint64_t commas = m.comma & ~in_string;
    if (at + 64 <= from) commas = 0;
    else if (at < from) commas &= ~uint64_t(0) << (from - at);
    if (!commas) {
      depth += std::popcount(open) - std::popcount(close);
      continue;
    }
    // Between two brackets the depth holds: per stretch, its last comma.
    auto stretch = [&](int from_bit, int to_bit, int64_t d) {  // bits [from_bit, to_bit)
      const uint64_t range = (to_bit == 64 ? ~uint64_t(0) : (uint64_t(1) << to_bit) - 1) & (~uint64_t(0) << from_bit);
      const uint64_t in_range = commas & range;
      if (in_range && (best.offset == std::string_view::npos || d <= best.depth))
        best = {at + size_t(63 - std::countl_zero(in_range)), d};
    };
    int from_bit = 0;
    for (uint64_t b = open | close; b; b &= b - 1) {
      const int i = std::countr_zero(b);
      stretch(from_bit, i, depth);
      depth += (open >> i & 1) ? 1 : -1;
      from_bit = i + 1;
    }
    if (from_bit < 64) stretch(from_bit, 64, depth);
  }
  if (resume && text.size() >= st.offset && (text.size() - st.offset) % 64 == 0)
    *resume = {text.size(), in_string_carry, escape_carry, depth};
  return best;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) CommaAtDepth scanAvx2(std::string_view text, size_t from, ScanState* resume) {
  return scan<masksOfAvx2>(text, from, resume);
}
#endif

}  // namespace

CommaAtDepth shallowestComma(std::string_view text, size_t from, ScanState* resume) {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return scanAvx2(text, from, resume);
#endif
  return shallowestCommaBaseline(text, from, resume);
}

CommaAtDepth shallowestCommaBaseline(std::string_view text, size_t from, ScanState* resume) {
  return scan<masksOf>(text, from, resume);
}

}  // namespace fuselab::chrome_import
