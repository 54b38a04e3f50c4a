// Screenshot images: RGB(A) pixels read back from OpenGL, encoded as PNG
// with libpng's simplified API in memory and written atomically.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fuselab {

struct RgbaImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // 4 bytes per pixel, top row first

  // The part inside [x, x+w) x [y, y+h), clipped to the image.
  RgbaImage cropped(int x, int y, int w, int h) const;
};

// PNG bytes (RGB, the alpha channel is dropped: screenshots are opaque).
// Throws std::runtime_error with libpng's message.
std::string encodePng(const RgbaImage& image);

// encodePng + writeFileAtomically; throws on failure (what and where).
void writePng(const std::filesystem::path& path, const RgbaImage& image);

}  // namespace fuselab
