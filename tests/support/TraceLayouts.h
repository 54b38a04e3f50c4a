// One trace written in the JSON layouts traces reach users in, for import
// tests and benchmarks: from a file in Kineto's layout (a few lines per
// event, the events between "traceEvents": [ and its "]"), the same events
// - one_line: the whole file on one line (what json.dump writes);
// - pretty: every event printed with an indent, nested args over many lines;
// - array: a top-level array of the events instead of an object;
// - crlf: Kineto's layout with CRLF line ends;
// - shuffled: Kineto's layout, the events in random order.
#pragma once

#include <algorithm>
#include <ostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fuselab::test {

enum class TraceLayout { OneLine, Pretty, Array, Crlf, Shuffled };
inline constexpr TraceLayout kTraceLayouts[] = {TraceLayout::OneLine, TraceLayout::Pretty, TraceLayout::Array,
                                                TraceLayout::Crlf, TraceLayout::Shuffled};

inline const char* layoutName(TraceLayout l) {
  switch (l) {
    case TraceLayout::OneLine: return "one_line";
    case TraceLayout::Pretty: return "pretty";
    case TraceLayout::Array: return "array";
    case TraceLayout::Crlf: return "crlf";
    case TraceLayout::Shuffled: return "shuffled";
  }
  return "?";
}

// The file's text before the events, each event's text, and the text after them.
struct KinetoParts {
  std::string head, tail;
  std::vector<std::string> events;
};

inline KinetoParts splitKinetoText(const std::string& text) {
  std::istringstream in(text);
  KinetoParts parts;
  std::string line, event;
  enum { Head, Events, Tail } where = Head;
  while (std::getline(in, line)) {
    if (where == Head) {
      parts.head += line + "\n";
      if (line == "  \"traceEvents\": [") where = Events;
    } else if (where == Events && line == "  ],") {
      where = Tail;
      parts.tail += line + "\n";
    } else if (where == Events) {
      // An event ends on a line that closes it ("  }" or "  }," or a one-line event).
      event += (event.empty() ? "" : "\n") + line;
      std::string_view l(line);
      if (l.ends_with(",")) l.remove_suffix(1);
      if (l.starts_with("  }") || (l.starts_with("  {") && l.ends_with("}"))) {
        if (event.ends_with(",")) event.pop_back();
        parts.events.push_back(std::move(event));
        event.clear();
      }
    } else {
      parts.tail += line + "\n";
    }
  }
  if (parts.events.empty()) throw std::runtime_error("no events in Kineto's layout");
  return parts;
}

inline void writeLayout(const KinetoParts& parts, TraceLayout layout, std::ostream& out) {
  auto oneLine = [](std::string_view text) {
    std::string s;
    s.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '\n') {
        s += text[i];
        continue;
      }
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;  // the next line's indent
    }
    return s;
  };
  auto crlf = [](std::string_view text) {
    std::string s;
    s.reserve(text.size() + text.size() / 16);
    for (char c : text) s += c == '\n' ? std::string_view("\r\n") : std::string_view(&c, 1);
    return s;
  };
  switch (layout) {
    case TraceLayout::OneLine: {
      out << oneLine(parts.head);
      for (size_t i = 0; i < parts.events.size(); ++i) out << (i ? ", " : "") << oneLine(parts.events[i]);
      out << oneLine(parts.tail);
      break;
    }
    case TraceLayout::Pretty: {
      out << parts.head;
      for (size_t i = 0; i < parts.events.size(); ++i) {
        std::string e = nlohmann::ordered_json::parse(parts.events[i]).dump(2);
        std::string indented = "    ";
        for (char c : e) indented += c == '\n' ? std::string("\n    ") : std::string(1, c);
        out << (i ? ",\n" : "") << indented;
      }
      out << "\n" << parts.tail;
      break;
    }
    case TraceLayout::Array: {
      out << "[\n";
      for (size_t i = 0; i < parts.events.size(); ++i) out << (i ? ",\n" : "") << parts.events[i];
      out << "\n]\n";
      break;
    }
    case TraceLayout::Crlf: {
      out << crlf(parts.head);
      for (size_t i = 0; i < parts.events.size(); ++i) out << (i ? ",\r\n" : "") << crlf(parts.events[i]);
      out << "\r\n" << crlf(parts.tail);
      break;
    }
    case TraceLayout::Shuffled: {
      std::vector<size_t> order(parts.events.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
      out << parts.head;
      for (size_t i = 0; i < order.size(); ++i) out << (i ? ",\n" : "") << parts.events[order[i]];
      out << "\n" << parts.tail;
      break;
    }
  }
}

}  // namespace fuselab::test
