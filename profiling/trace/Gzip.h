// gzip reading (ISA-L igzip) and writing (zlib) for .json.gz traces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fuselab {

class GzipError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// True when the bytes start with the gzip magic (1f 8b).
bool looksGzipped(std::string_view bytes);

// Decompresses every gzip member in `compressed`. The result has at least
// `extra_capacity` bytes of spare capacity after its end (callers that hand
// the text to simdjson ask for its padding, so no second copy is needed).
// Throws GzipError naming the compressed byte offset of corrupt or truncated
// data.
std::string gunzip(std::string_view compressed, size_t extra_capacity = 0);

// Incremental gunzip for reading a large .json.gz without holding it whole:
// feed compressed bytes as they are read, take decompressed text in chunks.
// Same messages as gunzip().
class GzipInflater {
 public:
  GzipInflater();
  ~GzipInflater();
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;

  // Decompresses from `in` (advanced past what was used) and appends at most
  // `max_out` bytes to `out`. `last_input`: `in` holds all the compressed data
  // still to come. Returns false once every member has been read.
  bool inflateSome(std::string_view& in, bool last_input, std::string& out, size_t max_out);
  uint64_t compressedConsumed() const { return consumed_; }
  uint64_t decompressed() const { return produced_; }

 private:
  struct State;
  State* z_;
  uint64_t consumed_ = 0, produced_ = 0;
  bool between_members_ = false;  // a member ended; another may follow
  bool done_ = false;
};

// A lower bound of a .json.gz's decompressed size, for planning memory: its
// ISIZE field (the last member's size mod 2^32), or the compressed size when
// that is larger. Files over 4 GB or of several members may be far larger.
uint64_t gzipSizeHint(uint64_t compressed_size, uint32_t isize);

// gzip-compresses `data` (one member, zlib level 1-9).
std::string gzipCompress(std::string_view data, int level = 6);

}  // namespace fuselab
