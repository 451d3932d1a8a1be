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
  // Each error's distinct files and functions, as ids, and each file's and
  // function's errors ordered as ties are broken (by id).
  std::map<std::string, uint32_t> file_ids;
  std::map<std::pair<std::string, std::string>, uint32_t> function_ids;
  std::vector<std::vector<uint32_t>> files(n);
  std::vector<std::vector<uint32_t>> functions(n);
  for (size_t i = 0; i < n; ++i) {
    for (const auto& place : errors[i].places) {
      auto f = file_ids.emplace(place.first, static_cast<uint32_t>(file_ids.size())).first;
      files[i].push_back(f->second);
      if (place.second == "<module>") continue;
      auto g = function_ids.emplace(place, static_cast<uint32_t>(function_ids.size())).first;
      functions[i].push_back(g->second);
    }
    for (auto* ids : {&files[i], &functions[i]}) {
      std::sort(ids->begin(), ids->end());
      ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
    }
  }
  std::vector<std::vector<uint32_t>> by_file(file_ids.size());
  std::vector<std::vector<uint32_t>> by_function(function_ids.size());
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t f : files[i]) by_file[f].push_back(static_cast<uint32_t>(i));
    for (uint32_t g : functions[i]) by_function[g].push_back(static_cast<uint32_t>(i));
  }
  auto by_id = [&](uint32_t a, uint32_t b) { return errors[a].id < errors[b].id; };
  for (auto* groups : {&by_file, &by_function}) {
    for (std::vector<uint32_t>& members : *groups) {
      std::sort(members.begin(), members.end(), by_id);
    }
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
  // Marks of the current error's files and functions (error index + 1).
  std::vector<uint32_t> file_mark(file_ids.size(), 0);
  std::vector<uint32_t> function_mark(function_ids.size(), 0);
  auto shares = [](const std::vector<uint32_t>& mine, const std::vector<uint32_t>& theirs,
                   const std::vector<uint32_t>& mark, uint32_t stamp) {
    if (theirs.size() <= mine.size()) {
      return std::any_of(theirs.begin(), theirs.end(),
                         [&](uint32_t f) { return mark[f] == stamp; });
    }
    return std::any_of(mine.begin(), mine.end(), [&](uint32_t f) {
      return std::binary_search(theirs.begin(), theirs.end(), f);
    });
  };
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t j : touched) candidates[j] = Candidate{};
    touched.clear();
    for (auto [t, w] : vectors[i]) {
      for (auto [j, wj] : postings[t]) {
        if (j != i) touch(j).cosine += w * wj;
      }
    }
    // Same function or file. An error sharing no word with this one scores
    // its base alone, and among those ties go to the smaller id: the first
    // `top` untouched ones of each group are all that can make the list.
    // Taking them, not the whole group, keeps a file of thousands of errors
    // from being quadratic.
    auto stamp = static_cast<uint32_t>(i + 1);
    for (uint32_t f : files[i]) file_mark[f] = stamp;
    for (uint32_t g : functions[i]) function_mark[g] = stamp;
    for (const auto* group : {&functions[i], &files[i]}) {
      const auto& members = group == &files[i] ? by_file : by_function;
      for (uint32_t g : *group) {
        size_t taken = 0;
        for (uint32_t j : members[g]) {
          if (taken == top) break;
          if (j == i || candidates[j].touched) continue;
          touch(j);
          ++taken;
        }
      }
    }
    for (uint32_t j : touched) {
      Candidate& c = candidates[j];
      if (shares(functions[i], functions[j], function_mark, stamp)) {
        c.base = 3;
        c.reason = "same function";
      } else if (shares(files[i], files[j], file_mark, stamp)) {
        c.base = 2;
        c.reason = "same file";
      }
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
