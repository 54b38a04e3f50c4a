// gzip reading and writing (zlib) for .json.gz traces.
#pragma once

#include <cstddef>
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

// gzip-compresses `data` (one member, zlib level 1-9).
std::string gzipCompress(std::string_view data, int level = 6);

}  // namespace fuselab
