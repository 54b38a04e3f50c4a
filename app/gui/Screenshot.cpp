#include "app/gui/Screenshot.h"

#include <png.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "profiling/trace/AtomicFile.h"

namespace fuselab {

RgbaImage RgbaImage::cropped(int x, int y, int w, int h) const {
  int x0 = std::clamp(x, 0, width), y0 = std::clamp(y, 0, height);
  int x1 = std::clamp(x + w, x0, width), y1 = std::clamp(y + h, y0, height);
  RgbaImage out;
  out.width = x1 - x0;
  out.height = y1 - y0;
  out.pixels.resize(static_cast<size_t>(out.width) * out.height * 4);
  for (int row = 0; row < out.height; ++row)
    std::memcpy(&out.pixels[static_cast<size_t>(row) * out.width * 4],
                &pixels[(static_cast<size_t>(y0 + row) * width + x0) * 4], static_cast<size_t>(out.width) * 4);
  return out;
}

std::string encodePng(const RgbaImage& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != static_cast<size_t>(image.width) * image.height * 4)
    throw std::runtime_error("cannot encode PNG: empty or inconsistent image (" + std::to_string(image.width) + "x" +
                             std::to_string(image.height) + ")");
  std::vector<uint8_t> rgb(static_cast<size_t>(image.width) * image.height * 3);
  for (size_t i = 0, n = static_cast<size_t>(image.width) * image.height; i < n; ++i)
    std::memcpy(&rgb[i * 3], &image.pixels[i * 4], 3);

  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  // First call: how many bytes; second: write them.
  if (!png_image_write_to_memory(&png, nullptr, &size, 0, rgb.data(), 0, nullptr))
    throw std::runtime_error(std::string("cannot encode PNG: ") + png.message);
  std::string out(size, '\0');
  if (!png_image_write_to_memory(&png, out.data(), &size, 0, rgb.data(), 0, nullptr))
    throw std::runtime_error(std::string("cannot encode PNG: ") + png.message);
  out.resize(size);
  png_image_free(&png);
  return out;
}

void writePng(const std::filesystem::path& path, const RgbaImage& image) {
  writeFileAtomically(path, encodePng(image));
}

}  // namespace fuselab
