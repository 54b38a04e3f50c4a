#include "profiling/trace/Gzip.h"
#include "profiling/trace/HugePages.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <new>

namespace fuselab {

bool looksGzipped(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

// ISIZE (the last 4 bytes) is the uncompressed size mod 2^32 of the last
// member: a good first guess for single-member files, never trusted beyond
// that (the output still grows as needed).
size_t sizeHint(std::string_view compressed) {
  if (compressed.size() < 18) return compressed.size() * 4;
  const auto* p = reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
  uint32_t isize = uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
  size_t hint = isize;
  // Bound the guess: deflate cannot do better than about 1032:1.
  return std::min<size_t>(hint, compressed.size() * 1032 + 64);
}

class Inflater {
 public:
  Inflater() {
    std::memset(&z_, 0, sizeof(z_));
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw GzipError("gzip: cannot initialise zlib");
  }
  ~Inflater() { inflateEnd(&z_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  z_stream& z() { return z_; }

 private:
  z_stream z_;
};

}  // namespace

std::string gunzip(std::string_view compressed, size_t extra_capacity) {
  if (!looksGzipped(compressed)) throw GzipError("gzip: no gzip header at byte 0");
  std::string out;
  try {
    out.reserve(sizeHint(compressed) + extra_capacity);
    adviseHugePages(out.data(), out.capacity());
  } catch (const std::bad_alloc&) {
    throw GzipError("gzip: not enough memory for the decompressed data");
  }
  Inflater inflater;
  z_stream& z = inflater.z();
  const auto* in = reinterpret_cast<const Bytef*>(compressed.data());
  size_t in_pos = 0;
  size_t used = 0;
  while (true) {
    // Feed input in chunks that fit zlib's 32-bit counters.
    if (z.avail_in == 0 && in_pos < compressed.size()) {
      size_t chunk = std::min<size_t>(compressed.size() - in_pos, UINT_MAX / 2);
      z.next_in = const_cast<Bytef*>(in + in_pos);
      z.avail_in = static_cast<uInt>(chunk);
      in_pos += chunk;
    }
    if (out.size() - used < 64 * 1024) {
      size_t grown = std::max(out.capacity(), out.size() + std::max<size_t>(out.size() / 2, 1 << 20));
      try {
        out.resize(grown);
      } catch (const std::bad_alloc&) {
        throw GzipError("gzip: not enough memory for the decompressed data (" + std::to_string(used) + " bytes so far)");
      }
    }
    size_t room = std::min<size_t>(out.size() - used, UINT_MAX / 2);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    z.avail_out = static_cast<uInt>(room);
    uInt in_before = z.avail_in;
    int rc = inflate(&z, Z_NO_FLUSH);
    bool progressed = z.avail_in != in_before || z.avail_out != room;
    used += room - z.avail_out;
    size_t consumed = in_pos - z.avail_in;
    if (rc == Z_STREAM_END) {
      // Another member may follow (gzip files may be concatenated).
      size_t rest = compressed.size() - consumed;
      if (rest == 0) break;
      if (!looksGzipped(compressed.substr(consumed)))
        throw GzipError("gzip: unexpected bytes after the compressed data at compressed byte " +
                        std::to_string(consumed));
      if (inflateReset(&z) != Z_OK) throw GzipError("gzip: cannot reset zlib");
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && in_pos >= compressed.size())
      throw GzipError("gzip: data truncated at compressed byte " + std::to_string(consumed) + " (" +
                      std::to_string(used) + " bytes decompressed)");
    if (rc == Z_BUF_ERROR && progressed) continue;
    std::string why = z.msg ? z.msg : "error " + std::to_string(rc);
    if (rc == Z_MEM_ERROR) why = "out of memory";
    throw GzipError("gzip: corrupt data at compressed byte " + std::to_string(consumed) + ": " + why);
  }
  out.resize(used);
  if (extra_capacity > 0 && out.capacity() < used + extra_capacity) out.reserve(used + extra_capacity);
  return out;
}

std::string gzipCompress(std::string_view data, int level) {
  z_stream z;
  std::memset(&z, 0, sizeof(z));
  if (deflateInit2(&z, std::clamp(level, 1, 9), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw GzipError("gzip: cannot initialise zlib");
  std::string out;
  out.resize(deflateBound(&z, static_cast<uLong>(std::min<size_t>(data.size(), ULONG_MAX))) + 64);
  size_t in_pos = 0, used = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0 && in_pos < data.size()) {
      size_t chunk = std::min<size_t>(data.size() - in_pos, UINT_MAX / 2);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + in_pos));
      z.avail_in = static_cast<uInt>(chunk);
      in_pos += chunk;
    }
    if (out.size() - used < 1024) out.resize(out.size() + std::max<size_t>(out.size() / 4, 1 << 16));
    size_t room = std::min<size_t>(out.size() - used, UINT_MAX / 2);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    z.avail_out = static_cast<uInt>(room);
    rc = deflate(&z, in_pos >= data.size() && z.avail_in == 0 ? Z_FINISH : Z_NO_FLUSH);
    used += room - z.avail_out;
    if (rc == Z_STREAM_ERROR) {
      deflateEnd(&z);
      throw GzipError("gzip: compression failed");
    }
  }
  deflateEnd(&z);
  out.resize(used);
  return out;
}

}  // namespace fuselab
