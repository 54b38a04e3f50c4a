#include "profiling/trace/Gzip.h"

#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <new>

#include "profiling/trace/HugePages.h"

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

}  // namespace

// ISA-L's igzip inflates 2-3x as fast as zlib (bench/profiling_import_layouts
// prints both), and a .json.gz is read as fast as it inflates.
struct GzipInflater::State {
  inflate_state s;
  void startMember() {
    isal_inflate_reset(&s);
    s.crc_flag = ISAL_GZIP;  // parse the header, check the CRC and size in the trailer
  }
};

GzipInflater::GzipInflater() : z_(new State) {
  isal_inflate_init(&z_->s);
  z_->startMember();
}

GzipInflater::~GzipInflater() { delete z_; }

namespace {

std::string inflateError(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block";
    case ISAL_INVALID_SYMBOL: return "invalid symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    default: return "error " + std::to_string(rc);
  }
}

}  // namespace

bool GzipInflater::inflateSome(std::string_view& in, bool last_input, std::string& out, size_t max_out) {
  inflate_state& z = z_->s;
  size_t produced_here = 0;
  while (!done_ && produced_here < max_out) {
    if (between_members_) {
      // Another member may follow (gzip files may be concatenated).
      if (in.empty()) {
        if (last_input) done_ = true;
        break;
      }
      if (!looksGzipped(in) && !(in.size() == 1 && !last_input && static_cast<unsigned char>(in[0]) == 0x1f))
        throw GzipError("gzip: unexpected bytes after the compressed data at compressed byte " + std::to_string(consumed_));
      if (in.size() < 2) break;  // wait for the second magic byte
      z_->startMember();
      between_members_ = false;
    }
    if (in.empty() && !last_input) break;
    const size_t chunk_in = std::min<size_t>(in.size(), UINT32_MAX / 2);
    const size_t room = std::min<size_t>(max_out - produced_here, UINT32_MAX / 2);
    const size_t used = out.size();
    out.resize(used + room);
    z.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uint32_t>(chunk_in);
    z.next_out = reinterpret_cast<uint8_t*>(out.data() + used);
    z.avail_out = static_cast<uint32_t>(room);
    const int rc = isal_inflate(&z);
    const size_t took = chunk_in - z.avail_in, gave = room - z.avail_out;
    out.resize(used + gave);
    in.remove_prefix(took);
    consumed_ += took;
    produced_ += gave;
    produced_here += gave;
    if (rc < 0) throw GzipError("gzip: corrupt data at compressed byte " + std::to_string(consumed_) + ": " + inflateError(rc));
    if (z.block_state == ISAL_BLOCK_FINISH) {
      between_members_ = true;
      continue;
    }
    if (in.empty() && last_input && gave == 0)
      throw GzipError("gzip: data truncated at compressed byte " + std::to_string(consumed_) + " (" +
                      std::to_string(produced_) + " bytes decompressed)");
    if (in.empty() && !last_input && gave < room) break;  // needs more input
  }
  if (!done_ && between_members_ && in.empty() && last_input) done_ = true;
  return !done_;
}

uint64_t gzipSizeHint(uint64_t compressed_size, uint32_t isize) {
  return std::max<uint64_t>(isize, compressed_size);
}

std::string gunzip(std::string_view compressed, size_t extra_capacity) {
  if (!looksGzipped(compressed)) throw GzipError("gzip: no gzip header at byte 0");
  std::string out;
  try {
    out.reserve(sizeHint(compressed) + extra_capacity);
    adviseHugePages(out.data(), out.capacity());
  } catch (const std::bad_alloc&) {
    throw GzipError("gzip: not enough memory for the decompressed data");
  }
  GzipInflater inflater;
  try {
    while (inflater.inflateSome(compressed, true, out, std::max<size_t>(out.capacity() - out.size(), 1 << 20))) {
    }
  } catch (const std::bad_alloc&) {
    throw GzipError("gzip: not enough memory for the decompressed data (" + std::to_string(out.size()) + " bytes so far)");
  }
  if (extra_capacity > 0 && out.capacity() < out.size() + extra_capacity) out.reserve(out.size() + extra_capacity);
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
