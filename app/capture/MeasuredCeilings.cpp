#include "app/capture/MeasuredCeilings.h"

namespace fuselab {

Ceilings measuredCeilingsFrom(const CeilingMeasurement& m) {
  Ceilings c;
  c.source = "measured";
  c.gpu = m.gpu;
  c.bf16_tflops = m.bf16_tflops;
  c.fp16_tflops = m.fp16_tflops;
  c.tf32_tflops = m.tf32_tflops;
  c.fp32_tflops = m.fp32_tflops;
  c.copy_gbps = m.copy_gbps;
  return c;
}

}  // namespace fuselab
