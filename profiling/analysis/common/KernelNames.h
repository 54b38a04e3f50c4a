// Kernel names for people: what messages, tables and the compare print.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fuselab {

// A kernel name short enough for a message: no leading "void ", no argument
// list, at most `max_chars` characters.
std::string shortKernelName(std::string_view name, size_t max_chars = 80);

}  // namespace fuselab
