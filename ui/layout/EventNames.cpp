#include "ui/layout/EventNames.h"

#include <array>

namespace fuselab::ui {

namespace {

// Drops the parameter list at the end: the last top-level "(...)".
std::string_view withoutParameters(std::string_view s) {
  if (s.empty() || s.back() != ')') return s;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    char c = s[i];
    if (c == ')' || c == '>' || c == ']') ++depth;
    if (c == '(' || c == '<' || c == '[') --depth;
    if (depth == 0) {
      if (c == '(' && i > 0) return s.substr(0, i);
      return s;
    }
  }
  return s;
}

void eraseAll(std::string& s, std::string_view what) {
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p)) s.erase(p, what.size());
}

}  // namespace

std::string shortEventName(std::string_view name) {
  // Only C++ signatures ("void f<...>(...)") carry a parameter list; other
  // names may end in a meaningful "(...)", e.g. "Memcpy HtoD (Pageable -> Device)".
  if (name.substr(0, 5) == "void ") name = withoutParameters(name.substr(5));
  std::string s(name);
  constexpr std::array<std::string_view, 6> kNoise = {"(anonymous namespace)::", "at::native::", "at::cuda::",
                                                      "c10::", "cutlass::", "std::"};
  for (auto n : kNoise) eraseAll(s, n);
  return s;
}

}  // namespace fuselab::ui
