// Helpers for the GUI tests (run under Xvfb): run the fuselab executable,
// decode PNG files with libpng, compare pixel colours.
#pragma once

#include <png.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <imgui.h>

#include "tests/support/BuildPaths.h"

namespace fuselab::test {

inline std::filesystem::path fuselabExe() { return std::filesystem::path(fuselab::build_paths::binaryDir()) / "app" / "fuselab"; }

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `env_prefix fuselab args...` through the shell; output is captured in
// `scratch`/command.log.
inline CommandResult runFuselab(const std::vector<std::string>& args, const std::filesystem::path& scratch,
                                const std::string& env_prefix = "") {
  std::string cmd = env_prefix + " " + shellQuote(fuselabExe().string());
  for (const auto& a : args) cmd += " " + shellQuote(a);
  auto log = scratch / "command.log";
  cmd += " > " + shellQuote(log.string()) + " 2>&1";
  int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  r.output = ss.str();
  return r;
}

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
  const uint8_t* at(int x, int y) const { return &rgba[(static_cast<size_t>(y) * width + x) * 4]; }
};

// Decodes with libpng; width 0 when the file is not a readable PNG.
inline Image readPng(const std::filesystem::path& path, std::string* error = nullptr) {
  Image img;
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) {
    if (error) *error = png.message;
    return img;
  }
  png.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> buf(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, buf.data(), 0, nullptr)) {
    if (error) *error = png.message;
    png_image_free(&png);
    return img;
  }
  img.width = static_cast<int>(png.width);
  img.height = static_cast<int>(png.height);
  img.rgba = std::move(buf);
  return img;
}

struct Rgb {
  int r = 0, g = 0, b = 0;
};

inline Rgb rgbOf(ImU32 c) {
  return {static_cast<int>((c >> IM_COL32_R_SHIFT) & 0xFF), static_cast<int>((c >> IM_COL32_G_SHIFT) & 0xFF),
          static_cast<int>((c >> IM_COL32_B_SHIFT) & 0xFF)};
}

inline bool near(const uint8_t* px, Rgb c, int tol) {
  return std::abs(px[0] - c.r) <= tol && std::abs(px[1] - c.g) <= tol && std::abs(px[2] - c.b) <= tol;
}

// `px` is `base` scaled by one brightness factor in [lo, hi] (events are
// shaded by name that way), within a small tolerance.
inline bool shadeOf(const uint8_t* px, Rgb base, float lo = 0.86f, float hi = 1.14f, int tol = 3) {
  for (float f = lo; f <= hi + 1e-6f; f += 0.01f) {
    Rgb s{std::min(255, static_cast<int>(base.r * f)), std::min(255, static_cast<int>(base.g * f)),
          std::min(255, static_cast<int>(base.b * f))};
    if (near(px, s, tol)) return true;
  }
  return false;
}

// `over` with alpha blended onto `under`, as the renderer does.
inline Rgb blend(ImU32 over, ImU32 under) {
  float a = static_cast<float>((over >> IM_COL32_A_SHIFT) & 0xFF) / 255.0f;
  Rgb o = rgbOf(over), u = rgbOf(under);
  auto mix = [&](int x, int y) { return static_cast<int>(x * a + y * (1 - a) + 0.5f); };
  return {mix(o.r, u.r), mix(o.g, u.g), mix(o.b, u.b)};
}

}  // namespace fuselab::test
