#include "app/tutorial/TutorialResults.h"

#include <iostream>
#include <string>

namespace fuselab {
namespace {

constexpr size_t kEvidenceLines = 3;
const std::string kIndent = "               ";

std::string indent(const std::string& text) {
  std::string out = kIndent;
  for (char c : text) {
    out += c;
    if (c == '\n') out += kIndent;
  }
  return out;
}

}  // namespace

void printTutorialResults(const TutorialPreset& p, const std::vector<ExpectationResult>& results, const Trace* trace) {
  size_t met = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const Expectation& e = p.expectations[i];
    const ExpectationResult& r = results[i];
    met += r.met();
    const std::string tag = r.status == ExpectationStatus::Met      ? "[met]         "
                            : r.status == ExpectationStatus::NotMet ? "[NOT MET]     "
                                                                    : "[cannot check]";
    std::cout << tag << " " << e.text << "\n" << kIndent << "measured: " << r.measured << "\n"
              << indent(r.explanation) << "\n";
    if (!r.met() && !e.hint.empty()) std::cout << indent("hint: " + e.hint) << "\n";
    if (trace) {
      for (size_t k = 0; k < r.evidence.size() && k < kEvidenceLines; ++k)
        std::cout << kIndent << "evidence: " << describeEvidence(*trace, r.evidence[k]) << "\n";
      if (r.evidence.size() > kEvidenceLines)
        std::cout << kIndent << "(and " << r.evidence.size() - kEvidenceLines << " more events)\n";
    }
    std::cout << "\n";
  }
  std::cout << "Step " << p.step << ": " << met << " of " << results.size() << " expectations met\n";
}

void addTutorialResultsJson(nlohmann::ordered_json& j, const TutorialPreset& p,
                            const std::vector<ExpectationResult>& results, const Trace* trace) {
  size_t met = 0;
  auto& list = j["expectations"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    const ExpectationResult& r = results[i];
    met += r.met();
    nlohmann::ordered_json e;
    e["kind"] = std::string(expectationKindName(p.expectations[i].kind));
    e["text"] = p.expectations[i].text;
    e["status"] = std::string(expectationStatusName(r.status));
    e["measured"] = r.measured;
    e["value"] = r.value ? nlohmann::ordered_json(*r.value) : nlohmann::ordered_json();
    e["explanation"] = r.explanation;
    e["hint"] = p.expectations[i].hint;
    if (trace) {
      auto& ev = e["evidence"] = nlohmann::ordered_json::array();
      for (EventRef x : r.evidence) ev.push_back(describeEvidence(*trace, x));
    }
    list.push_back(std::move(e));
  }
  j["met"] = met;
  j["total"] = results.size();
}

}  // namespace fuselab
