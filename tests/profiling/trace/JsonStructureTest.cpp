// The string-aware comma scan behind the import windows of JSON without
// line ends: against a byte-by-byte reading of the same text.
#include "profiling/trace/JsonStructure.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace fuselab::chrome_import {
namespace {

// The same answer, one byte at a time. A backslash escapes the next byte
// wherever it is (valid JSON has backslashes in strings only).
CommaAtDepth byteByByte(std::string_view text, size_t from) {
  CommaAtDepth best;
  bool in_string = false, escaped = false;
  int64_t depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool quote = c == '"' && !escaped;
    escaped = c == '\\' && !escaped;
    if (quote) in_string = !in_string;
    if (in_string || quote) continue;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ',' && i >= from && (best.offset == std::string_view::npos || depth <= best.depth)) best = {i, depth};
  }
  return best;
}

// Text of the characters that matter, long runs of backslashes and quotes
// included, up to `max_len` bytes.
std::string randomText(std::mt19937& rng, size_t max_len) {
  const std::string alphabet = "\"\\\\\\{}[],,a \n";
  std::string text(size_t(rng() % max_len), ' ');
  for (char& c : text) c = alphabet[rng() % alphabet.size()];
  return text;
}

TEST(JsonStructure, CommasInsideStringsAreNotCandidates) {
  const std::string text = R"([{"name": "void k<int, 4>", "a": 1}, {"name": "x,y"}])";
  const CommaAtDepth c = shallowestComma(text, 0);
  EXPECT_EQ(c.offset, text.find("}, {") + 1);
  EXPECT_EQ(c.depth, 1);
}

TEST(JsonStructure, EscapedQuotesAndBackslashRunsAcrossBlocks) {
  // A string holding \" and \\ with its backslashes straddling the 64-byte
  // blocks: the string ends only at its unescaped quote.
  for (size_t pad = 50; pad < 70; ++pad) {
    const std::string text = "[" + std::string(pad, ' ') + R"("a\"b,\\",1,"c\\\",d",{"e":[2,3]},4])";
    const CommaAtDepth expected = byteByByte(text, 0);
    const CommaAtDepth got = shallowestComma(text, 0);
    EXPECT_EQ(got.offset, expected.offset) << "pad " << pad;
    EXPECT_EQ(got.depth, expected.depth) << "pad " << pad;
    EXPECT_EQ(got.offset, text.rfind(",4]")) << "pad " << pad;
  }
}

TEST(JsonStructure, OnlyCommasFromTheGivenOffsetCount) {
  const std::string text = "[1,[2,3]," + std::string(100, ' ') + "[4,5]]";
  EXPECT_EQ(shallowestComma(text, 0).offset, text.find("],") + 1);
  EXPECT_EQ(shallowestComma(text, text.find("],") + 2).offset, text.find("4,") + 1);
  EXPECT_EQ(shallowestComma(text, text.size()).offset, std::string_view::npos);
}

TEST(JsonStructure, ClosingMoreThanItOpenedGoesBelowZero) {
  const std::string text = R"(,{"a":1}],"traceName":"t"})";
  const CommaAtDepth c = shallowestComma(text, 1);
  EXPECT_EQ(c.offset, text.find("],") + 1);
  EXPECT_EQ(c.depth, -1);
}

TEST(JsonStructure, AgreesWithAByteByByteReadingOnRandomText) {
  // Every length around the block size.
  std::mt19937 rng(11);
  for (int round = 0; round < 3000; ++round) {
    const std::string text = randomText(rng, 300);
    const size_t from = text.empty() ? 0 : rng() % text.size();
    const CommaAtDepth expected = byteByByte(text, from);
    // The default (AVX2 where the CPU has it) and the baseline instruction set.
    for (const CommaAtDepth& got : {shallowestComma(text, from), shallowestCommaBaseline(text, from)}) {
      ASSERT_EQ(got.offset, expected.offset) << "text: " << text << "\nfrom " << from;
      if (got.offset != std::string_view::npos) ASSERT_EQ(got.depth, expected.depth) << "text: " << text;
    }
  }
}

TEST(JsonStructure, AScanGoesOnWhereTheOneOverAShorterTextStopped) {
  // Windows that overlap: the second scan reads only what the first did
  // not, and finds what a scan of the whole text finds from there on.
  std::mt19937 rng(5);
  for (int round = 0; round < 2000; ++round) {
    const std::string text = randomText(rng, 400);
    const size_t first = text.empty() ? 0 : rng() % text.size();
    ScanState state;
    shallowestComma(std::string_view(text).substr(0, first), 0, &state);
    ASSERT_LE(state.offset, first);
    ASSERT_EQ(state.offset % 64, 0u) << "the first scan stops at the start of a block";
    const size_t from = text.empty() ? 0 : rng() % text.size();
    const size_t resumed_at = state.offset;
    const CommaAtDepth got = shallowestComma(text, from, &state);
    const CommaAtDepth expected = byteByByte(text, std::max(from, resumed_at));
    ASSERT_EQ(got.offset, expected.offset) << "text: " << text << "\nfirst " << first << ", from " << from;
    if (got.offset != std::string_view::npos) ASSERT_EQ(got.depth, expected.depth);
  }
}

}  // namespace
}  // namespace fuselab::chrome_import
