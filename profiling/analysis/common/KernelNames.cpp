#include "profiling/analysis/common/KernelNames.h"

#include <cctype>

namespace fuselab {

std::string shortKernelName(std::string_view name, size_t max_chars) {
  if (name.starts_with("void ")) name.remove_prefix(5);
  // Cut the argument list: the first '(' outside template brackets.
  int angle = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '<') ++angle;
    else if (c == '>' && angle > 0) --angle;
    else if (c == '(' && name.substr(i).starts_with("(anonymous namespace)")) i += 20;
    else if (c == '(' && angle == 0 && i > 0) {
      name = name.substr(0, i);
      break;
    }
  }
  // Namespaces say little and hide the part that tells kernels apart
  // ("at::native::" in front of GeluCUDAKernelImpl and MulFunctor alike).
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    if (name.substr(i).starts_with("(anonymous namespace)::")) {
      i += 23;
      continue;
    }
    const bool word_start = (std::isalpha(static_cast<unsigned char>(name[i])) || name[i] == '_') &&
                            (i == 0 || !(std::isalnum(static_cast<unsigned char>(name[i - 1])) || name[i - 1] == '_'));
    if (word_start) {
      size_t j = i;
      while (j < name.size() && (std::isalnum(static_cast<unsigned char>(name[j])) || name[j] == '_')) ++j;
      if (name.substr(j).starts_with("::")) {
        i = j + 2;
        continue;
      }
      out.append(name.substr(i, j - i));
      i = j;
      continue;
    }
    out += name[i++];
  }
  if (max_chars >= 4 && out.size() > max_chars) out = out.substr(0, max_chars - 3) + "...";
  return out;
}

}  // namespace fuselab
