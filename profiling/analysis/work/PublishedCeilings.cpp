// publishedCeilings (Roofline.h): datasheet peaks, dense (no structured
// sparsity), the fallback when nothing was measured on a GPU of that name.
// Datasheets quote more than a GPU reaches (a large GEMM gets 60-80% of the
// tensor peak on some parts), which is why measured ceilings come first.
#include <array>

#include "profiling/analysis/work/Roofline.h"

namespace fuselab {

namespace {

struct Published {
  std::string_view contains;      // matched against the CUDA device name, in order
  std::string_view not_contains;  // "" = no exclusion
  double bf16, fp16, tf32, fp32;  // TFLOP/s
  double hbm_gbps;
};

// First match wins: the more specific names come first.
constexpr std::array<Published, 14> kTable = {{
    {"H100 PCIe", "", 756.5, 756.5, 378.0, 51.2, 2000},
    {"H100 NVL", "", 835.5, 835.5, 417.5, 60.0, 3900},
    {"H100", "", 989.4, 989.4, 494.7, 66.9, 3350},  // SXM5 ("NVIDIA H100 80GB HBM3")
    {"H200 NVL", "", 835.5, 835.5, 417.5, 60.0, 4800},
    {"H200", "", 989.4, 989.4, 494.7, 66.9, 4800},
    {"A100 80GB PCIe", "", 312, 312, 156, 19.5, 1935},
    {"A100-PCIE-40GB", "", 312, 312, 156, 19.5, 1555},
    {"A100-SXM4-80GB", "", 312, 312, 156, 19.5, 2039},
    {"A100-SXM4-40GB", "", 312, 312, 156, 19.5, 1555},
    {"L40S", "", 362.05, 362.05, 183.0, 91.6, 864},
    {"L4", "L40", 121, 121, 60, 30.3, 300},
    {"A10", "A100", 125, 125, 62.5, 31.2, 600},
    {"V100", "", 0, 125, 0, 15.7, 900},
    {"T4", "", 0, 65, 0, 8.1, 320},
}};

}  // namespace

std::optional<Ceilings> publishedCeilings(std::string_view gpu_name) {
  for (const Published& p : kTable) {
    if (gpu_name.find(p.contains) == std::string_view::npos) continue;
    if (!p.not_contains.empty() && gpu_name.find(p.not_contains) != std::string_view::npos) continue;
    if (p.contains == "A10" && gpu_name.find("A10G") != std::string_view::npos) continue;  // not the same part
    Ceilings c;
    c.source = "published";
    c.gpu = std::string(gpu_name);
    c.bf16_tflops = p.bf16;
    c.fp16_tflops = p.fp16;
    c.tf32_tflops = p.tf32;
    c.fp32_tflops = p.fp32;
    c.copy_gbps = p.hbm_gbps;
    return c;
  }
  return std::nullopt;
}

}  // namespace fuselab
