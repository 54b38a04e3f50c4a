// Expectations as JSON objects (the "expectations" array of a tutorial preset):
//   {"kind": "kernels_per_step", "min": 5, "max": 6, "text": "...", "hint": "..."}
// Keys: kind, text (required); hint; and per kind the parameters listed by
// expectationKeys(). Unknown or misplaced keys are errors so typos surface.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "profiling/analysis/expectations/Expectations.h"

namespace fuselab {

// A malformed expectation. The message starts with `where` and names the
// field: "step09.json: expectations[2].min: expected a number, got \"5\"".
class ExpectationParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses and validates one expectation (bounds ordered, regexes compile,
// enum values known). `where` locates the object for error messages.
Expectation parseExpectation(const nlohmann::json& object, const std::string& where);

// The keys `kind` accepts besides kind/text/hint; the first `required` of
// them must be present ("range" stands for min and/or max).
struct ExpectationKeys {
  std::vector<std::string> required;
  std::vector<std::string> optional;
};
ExpectationKeys expectationKeys(ExpectationKind kind);

}  // namespace fuselab
