#include "analyze/lineage.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analyze/related.h"

namespace errdex::analyze {
namespace {

// The words of a template's literal text, as related errors count them.
std::set<std::string> WordSet(const Template& t) {
  std::string text;
  for (const Piece& p : t.pieces()) {
    if (!p.is_value) text += p.text;
    text.push_back(' ');
  }
  std::vector<std::string> words = Words(text);
  return std::set<std::string>(words.begin(), words.end());
}

double Jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 1.0;
  size_t common = 0;
  for (const std::string& w : a) common += b.count(w);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

// A lone pair in one function is a rewording when it keeps a fifth of its
// words (a new message of the same type in the same place may be another
// error); several in one function pair by their words.
constexpr double kLoneSimilar = 0.2;
constexpr double kSimilar = 0.4;
constexpr double kMovedSimilar = 0.5;

}  // namespace

void LinkRewordings(const std::vector<const catalog::ErrorRecord*>& errors,
                    const std::vector<Analysis*>& analyses) {
  if (errors.empty() || errors.front()->versions.size() < 2) return;
  const std::vector<catalog::VersionPresence>& versions = errors.front()->versions;
  // (boundary k: gone after version k, new from k + 1, path, function) -> errors
  using Key = std::tuple<size_t, std::string, std::string>;
  std::map<Key, std::vector<size_t>> gone;
  std::map<Key, std::vector<size_t>> born;
  // (boundary, exception, function) -> errors: lineage across a move.
  std::map<Key, std::vector<size_t>> gone_moved;
  std::map<Key, std::vector<size_t>> born_moved;
  for (size_t i = 0; i < errors.size(); ++i) {
    const std::vector<catalog::VersionPresence>& v = errors[i]->versions;
    if (v.size() != versions.size()) continue;
    size_t first = v.size();
    size_t last = 0;
    for (size_t k = 0; k < v.size(); ++k) {
      if (v[k].sites == 0) continue;
      first = std::min(first, k);
      last = k;
    }
    if (first == v.size()) continue;
    std::set<std::pair<std::string, std::string>> places;
    std::set<std::string> functions;
    for (const catalog::SiteRecord& s : errors[i]->sites) {
      places.emplace(s.path, s.function);
      functions.insert(s.function);
    }
    for (const auto& [path, function] : places) {
      if (last + 1 < v.size()) gone[{last, path, function}].push_back(i);
      if (first > 0) born[{first - 1, path, function}].push_back(i);
    }
    // A file moved (or a function moved to another file) in the release
    // that reworded the message: the same function name and type on both
    // sides of the boundary, keyed without the path.
    for (const std::string& function : functions) {
      if (function.empty()) continue;
      if (last + 1 < v.size()) gone_moved[{last, errors[i]->exception, function}].push_back(i);
      if (first > 0) born_moved[{first - 1, errors[i]->exception, function}].push_back(i);
    }
  }
  // Candidates from every function, then one successor per error and one
  // predecessor per error, best first: an error raised in several functions
  // would otherwise pair with a new wording in each.
  std::vector<std::tuple<double, size_t, size_t, size_t>> pairs;  // (score, old, new, boundary)
  for (const auto& [key, olds] : gone) {
    auto it = born.find(key);
    if (it == born.end()) continue;
    const std::vector<size_t>& news = it->second;
    for (size_t o : olds) {
      for (size_t n : news) {
        double score = Jaccard(WordSet(errors[o]->message), WordSet(errors[n]->message));
        bool same_type = errors[o]->exception == errors[n]->exception;
        bool lone = olds.size() == 1 && news.size() == 1;
        if (score >= kSimilar || (lone && score >= kLoneSimilar)) {
          pairs.emplace_back(score + (same_type ? 0.5 : 0.0), o, n, std::get<0>(key));
        }
      }
    }
  }
  // Across a move only a lone pair that keeps much of its wording: a
  // function name alone is weaker evidence than a place. Ranked below a
  // pair in one place of the same similarity (no same-type bonus).
  for (const auto& [key, olds] : gone_moved) {
    auto it = born_moved.find(key);
    if (it == born_moved.end() || olds.size() != 1 || it->second.size() != 1) continue;
    size_t o = olds.front(), n = it->second.front();
    double score = Jaccard(WordSet(errors[o]->message), WordSet(errors[n]->message));
    if (score >= kMovedSimilar) pairs.emplace_back(score, o, n, std::get<0>(key));
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) > std::get<0>(b);
  });
  std::set<size_t> used_old;
  std::set<size_t> used_new;
  for (const auto& [score, o, n, k] : pairs) {
    if (used_old.count(o) || used_new.count(n)) continue;
    used_old.insert(o);
    used_new.insert(n);
    const std::string& before = versions[k].rev;
    const std::string& after = versions[k + 1].rev;
    const catalog::ErrorRecord& a = *errors[o];
    const catalog::ErrorRecord& b = *errors[n];
    analyses[o]->reworded_to.push_back({b.id, b.exception, b.template_text, before, after});
    analyses[n]->reworded_from.push_back({a.id, a.exception, a.template_text, before, after});
  }
}

}  // namespace errdex::analyze
