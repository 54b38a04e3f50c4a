// What must hold for any input bytes given to the trace importer (the fuzz
// target's oracle, also run on every kept fuzz finding by the unit tests):
// malformed input ends in TraceImportError; an accepted trace goes through
// the analysis, and fuselab's export of it imports again as the same trace.
#pragma once

#include <optional>
#include <string>

namespace fuselab::test {

// nullopt when the input was handled as it must be, else what went wrong.
// Crashes and sanitizer reports are not caught: they are findings too.
std::optional<std::string> checkTraceImport(std::string bytes);

}  // namespace fuselab::test
