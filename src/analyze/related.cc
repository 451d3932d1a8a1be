#include "analyze/related.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace errdex::analyze {
namespace {

// A word in more errors than this says little about any of them, and its
// posting list would make the comparison quadratic.
constexpr size_t kMaxPosting = 400;
// Below this cosine, wording is not "similar".
constexpr double kSimilar = 0.3;

struct Candidate {
  double base = 0;
  double cosine = 0;
  const char* reason = "";
  bool touched = false;
};

}  // namespace

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    if (word.size() >= 2) out.push_back(word);
    word.clear();
  };
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '_' || u >= 0x80) {
      word.push_back(static_cast<char>(std::tolower(u)));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

std::vector<std::vector<RelatedError>> FindRelated(const std::vector<RelatedInput>& errors,
                                                   size_t top) {
  const size_t n = errors.size();
  // TF-IDF vectors over each message's distinct words, normalised.
  std::unordered_map<std::string, uint32_t> vocabulary;
  std::vector<std::vector<uint32_t>> terms(n);
  std::vector<size_t> df;
  for (size_t i = 0; i < n; ++i) {
    std::set<std::string> distinct;
    for (std::string& w : Words(errors[i].message)) distinct.insert(std::move(w));
    for (const std::string& w : distinct) {
      auto [it, added] = vocabulary.emplace(w, static_cast<uint32_t>(df.size()));
      if (added) df.push_back(0);
      ++df[it->second];
      terms[i].push_back(it->second);
    }
  }
  std::vector<std::vector<std::pair<uint32_t, double>>> vectors(n);
  for (size_t i = 0; i < n; ++i) {
    double norm = 0;
    for (uint32_t t : terms[i]) {
      double w = std::log((1.0 + static_cast<double>(n)) / static_cast<double>(df[t]));
      vectors[i].emplace_back(t, w);
      norm += w * w;
    }
    norm = std::sqrt(norm);
    for (auto& [t, w] : vectors[i]) w = norm > 0 ? w / norm : 0;
  }
  std::vector<std::vector<std::pair<uint32_t, double>>> postings(df.size());
  for (size_t i = 0; i < n; ++i) {
    for (auto [t, w] : vectors[i]) {
      if (df[t] <= kMaxPosting) postings[t].emplace_back(static_cast<uint32_t>(i), w);
    }
  }
  std::map<std::pair<std::string, std::string>, std::vector<uint32_t>> by_function;
  std::map<std::string, std::vector<uint32_t>> by_file;
  for (size_t i = 0; i < n; ++i) {
    std::set<std::string> files;
    std::set<std::pair<std::string, std::string>> functions;
    for (const auto& place : errors[i].places) {
      files.insert(place.first);
      if (place.second != "<module>") functions.insert(place);
    }
    for (const auto& f : functions) by_function[f].push_back(static_cast<uint32_t>(i));
    for (const auto& f : files) by_file[f].push_back(static_cast<uint32_t>(i));
  }

  std::vector<std::vector<RelatedError>> out(n);
  // Dense and reset through the list of touched entries: a hash map per
  // error cost more than everything else here.
  std::vector<Candidate> candidates(n);
  std::vector<uint32_t> touched;
  auto touch = [&](uint32_t j) -> Candidate& {
    Candidate& c = candidates[j];
    if (!c.touched) {
      c.touched = true;
      touched.push_back(j);
    }
    return c;
  };
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t j : touched) candidates[j] = Candidate{};
    touched.clear();
    for (auto [t, w] : vectors[i]) {
      for (auto [j, wj] : postings[t]) {
        if (j != i) touch(j).cosine += w * wj;
      }
    }
    auto raise_base = [&](uint32_t j, double base, const char* reason) {
      if (j == i) return;
      Candidate& c = touch(j);
      if (base > c.base) {
        c.base = base;
        c.reason = reason;
      }
    };
    for (const auto& [path, function] : errors[i].places) {
      if (function != "<module>") {
        for (uint32_t j : by_function[{path, function}]) raise_base(j, 3, "same function");
      }
      for (uint32_t j : by_file[path]) raise_base(j, 2, "same file");
    }
    std::vector<std::pair<double, uint32_t>> ranked;
    for (uint32_t j : touched) {
      Candidate& c = candidates[j];
      if (c.base == 0) {
        if (c.cosine < kSimilar || errors[j].family != errors[i].family) continue;
        c.base = 1;
        c.reason = "same family, similar text";
      }
      ranked.emplace_back(c.base + std::min(c.cosine, 1.0), j);
    }
    size_t keep = std::min(top, ranked.size());
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep),
                      ranked.end(), [&](const auto& a, const auto& b) {
                        if (a.first != b.first) return a.first > b.first;
                        return errors[a.second].id < errors[b.second].id;
                      });
    for (size_t k = 0; k < keep; ++k) {
      const RelatedInput& r = errors[ranked[k].second];
      // Rounded: the stored score is for ordering, and must not flicker in
      // the last digits between runs.
      double score = std::round(ranked[k].first * 1000) / 1000;
      out[i].push_back(
          {r.id, r.exception, r.template_text, candidates[ranked[k].second].reason, score});
    }
  }
  return out;
}

}  // namespace errdex::analyze
