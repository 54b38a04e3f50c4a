// How many forwards one capture runs, phase by phase, and how long that
// should take from one timed forward: the capture's own plan (Capture.cpp
// runs it), the window's and the command line's warning before a long wait.
#pragma once

#include <string>

#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/WorkloadParams.h"

namespace fuselab {

struct CapturePlan {
  int warmups = 0;            // the user's, unprofiled
  int profiled_warmups = 0;   // with the collectors on, left out of the trace (none without a warm-up)
  int steps = 0;              // recorded
  // For the observer effect: one block before the collectors (after a
  // warm-up), kUnprofiledBlocksAfter after them.
  int unprofiled_blocks_before = 0;
  int unprofiled_blocks_after = 0;
  int forwards_per_block = 0;

  int unprofiledBlocks() const { return unprofiled_blocks_before + unprofiled_blocks_after; }
  int totalForwards() const { return warmups + profiled_warmups + steps + unprofiledBlocks() * forwards_per_block; }
};

// Forwards the profiler runs as its own warm-up, and those timed in each
// unprofiled block (the recorded steps' count, within these bounds).
inline constexpr int kProfiledWarmups = 6;
inline constexpr int kMinUnprofiledPerBlock = 3;
inline constexpr int kMaxUnprofiledPerBlock = 64;
// Unprofiled blocks after the recorded steps (one more before them, after a
// warm-up): their spread is the machine's own noise on the same forwards.
inline constexpr int kUnprofiledBlocksAfter = 2;

CapturePlan planCapture(const CaptureOptions& options);

// Seconds the whole capture should take when one forward takes `forward_s`:
// every forward of the plan, the profiled ones a quarter slower (the
// profiler's callbacks; a guess on the safe side, the observer effect
// measures it). The estimate the window and `capture` warn with.
double estimateCaptureSeconds(const CapturePlan& plan, double forward_s);

// A capture expected to last longer than this is announced with its
// estimate and a smaller size to try.
inline constexpr double kLongCaptureSeconds = 10;
// What the smaller size offered then aims for (smallerForCapture).
inline constexpr double kQuickCaptureSeconds = 2;

// Smaller sizes for a capture estimated at `estimated_s`, to take about
// `target_s`: fewer tokens (batch first, then seq), halved until the time,
// taken as proportional to the tokens, fits; the same when it already fits.
WorkloadParams smallerForCapture(const WorkloadParams& params, double estimated_s, double target_s);

// "--batch 1 --seq 64": the command-line options for params' sizes.
std::string sizeOptions(const WorkloadParams& params);

// "2 min", "40 s", "1.5 s"; aboutSeconds: "about 2 min".
std::string roundedSeconds(double seconds);
std::string aboutSeconds(double seconds);

}  // namespace fuselab
