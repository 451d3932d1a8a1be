#include "analyze/prose.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/native_errors.h"
#include "core/text.h"

namespace errdex::analyze {
namespace {

std::string Tick(std::string_view s) { return "`" + std::string(s) + "`"; }

std::string List(const std::vector<std::string>& values, std::string_view last = "or") {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0)
      out += i + 1 == values.size() ? (values.size() > 2 ? ", " : " ") + std::string(last) + " "
                                    : ", ";
    out += Tick(values[i]);
  }
  return out;
}

bool HasLabel(const Analysis& a, std::string_view label) {
  return std::find(a.labels.begin(), a.labels.end(), label) != a.labels.end();
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string Capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

std::string Lowercased(std::string_view s) {
  std::string out(s);
  if (!out.empty()) out[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[0])));
  return out;
}

std::string ShortFunction(const std::string& qualified) {
  size_t dot = qualified.rfind('.');
  size_t colons = qualified.rfind("::");
  size_t cut = std::string::npos;
  if (dot != std::string::npos) cut = dot + 1;
  if (colons != std::string::npos && (cut == std::string::npos || colons + 2 > cut))
    cut = colons + 2;
  return cut == std::string::npos ? qualified : qualified.substr(cut);
}

std::string What(const catalog::ErrorRecord& e) {
  const catalog::SiteRecord& s = e.sites.front();
  std::string where = s.function.empty() || s.function == "<module>"
                          ? "at module level in " + Tick(s.path)
                          : "by " + Tick(s.function) + " in " + Tick(s.path);
  where += " (line " + std::to_string(s.line) + ")";
  if (e.sites.size() > 1) {
    where += " and " + std::to_string(e.sites.size() - 1) +
             (e.sites.size() == 2 ? " other place" : " other places");
  }
  std::string type = e.exception.empty() ? "This error" : Tick(e.exception);
  // A call into a helper that raises with the text it is given (a sink):
  // the raise is in the helper, the words are written at the call.
  if (e.kind == "raise" && s.language == "python" && !s.via.empty() &&
      !StartsWith(s.statement, "raise") && !s.function.empty()) {
    return type + " is raised by " + Tick(s.via) + " with the text that " + Tick(s.function) +
           " passes to it in " + Tick(s.path) + " (line " + std::to_string(s.line) + ")" +
           (e.sites.size() > 1 ? ", among " + std::to_string(e.sites.size()) + " places" : "") +
           ", of " + e.library + ".";
  }
  if (e.kind == "warning") return type + " is a warning " + e.library + " issues " + where + ".";
  if (e.kind == "assert") {
    return "This " + Tick("AssertionError") + " is an " + Tick("assert") + " in " + e.library +
           ", checked " + where + "; Python skips it under " + Tick("-O") + ".";
  }
  if (e.kind == "fatal") {
    return "This is a fatal check in " + e.library + "'s native code, " + where +
           ": when it fails the process aborts with the message, and no Python exception is "
           "raised.";
  }
  if (e.kind == "status") {
    std::string code = IsStatusCode(e.exception) ? " with code " + Tick(e.exception) : "";
    return "This is an error status" + code + " that " + e.library + "'s native code returns " +
           where + "; it reaches Python as an exception whose message starts with the code.";
  }
  if (e.kind == "return") {
    return type + " is built and returned " + where + " of " + e.library +
           ", for the caller to raise.";
  }
  return type + " is raised " + where + " of " + e.library + ".";
}

}  // namespace

Prose WriteProse(const catalog::ErrorRecord& e, const Analysis& a,
                 const std::vector<Guard>& first_site_guards) {
  Prose p;
  if (e.sites.empty()) return p;
  const Family* family = FindFamily(a.family.slug);

  // What it means.
  std::vector<std::string> meaning{What(e)};
  if (family != nullptr && family->slug != "other") {
    meaning.push_back("It is a case of " + Lowercased(family->name) + ": " +
                      Lowercased(family->description));
  }
  if (HasLabel(a, "version-mismatch")) {
    meaning.push_back(
        "The code before it handles every case it was written for, so reaching it means a value "
        "it does not know: typically one from a newer or older version of a component it is used "
        "with, not a mistake in the calling code.");
  } else if (HasLabel(a, "internal")) {
    meaning.push_back(
        "The library treats this as an internal error: correct use should never reach "
        "it, so it points to a bug in " +
        e.library + " rather than in the calling code.");
  }
  if (e.dynamic) meaning.push_back("Its whole message is computed at run time.");
  for (size_t i = 0; i < meaning.size(); ++i) p.meaning += (i ? " " : "") + meaning[i];

  // When it happens: each distinct trigger, then what was valid.
  // Sites with the same trigger share a sentence that lists where.
  std::vector<std::pair<std::string, std::vector<std::string>>> when;
  // Where each sentence is in `when`: an error raised at thousands of sites
  // (a bare assert in every test) made finding it there quadratic.
  std::unordered_map<std::string, size_t> when_index;
  for (const catalog::SiteRecord& s : e.sites) {
    std::string t = s.trigger.empty() ? "" : Capitalized(s.trigger);
    if (t.empty()) {
      t = s.function.empty() || s.function == "<module>"
              ? "Raised whenever the module runs line " + std::to_string(s.line) + " of " +
                    Tick(s.path) + ": no condition guards it"
              : "Raised whenever " + Tick(s.function) + " reaches line " + std::to_string(s.line) +
                    ": no condition in the function guards it";
    }
    auto [at, fresh] = when_index.try_emplace(t, when.size());
    if (fresh) when.emplace_back(std::move(t), std::vector<std::string>{});
    when[at->second].second.push_back(s.path + ":" + std::to_string(s.line));
  }
  for (const auto& [sentence, places] : when) {
    if (!p.when.empty()) p.when += " ";
    p.when += sentence;
    if (e.sites.size() > 1) {
      p.when += " (";
      for (size_t i = 0; i < places.size(); ++i) p.when += (i ? ", " : "") + places[i];
      p.when += ")";
    }
    p.when += ".";
  }

  // Solutions, from the facts that suggest one.
  for (const ValidValues& v : a.valid) {
    if (v.source == "types") {
      p.solutions.push_back("Pass " + Tick(v.subject) + " as an instance of " + List(v.values) +
                            ".");
    } else if (!HasLabel(a, "version-mismatch")) {
      p.solutions.push_back("Use one of the values the code accepts for " + Tick(v.subject) + ": " +
                            List(v.values) + ".");
    }
  }
  if (HasLabel(a, "version-mismatch")) {
    p.solutions.push_back("Check that the installed versions of " + e.library +
                          " and the packages built with it match, and reinstall them at one "
                          "version if they do not.");
  } else if (HasLabel(a, "internal")) {
    p.solutions.push_back("Report it to " + e.library +
                          " with the traceback and the smallest program that reproduces it.");
  }
  // An assertion names what must hold.
  for (const Guard& g : first_site_guards) {
    if (g.kind == "assert" && !HasLabel(a, "internal")) {
      p.solutions.push_back("Make sure " + Tick(g.code) + " holds when the check runs.");
    }
  }
  const std::string& slug = a.family.slug;
  if (slug == "missing-dependency") {
    p.solutions.push_back(
        "Install the package the message names, in the environment the "
        "program runs in.");
  } else if (slug == "deprecated") {
    p.solutions.push_back("Move to the replacement the message names, or pin a version of " +
                          e.library + " that still has the old behaviour.");
  } else if (slug == "version-mismatch" && !HasLabel(a, "version-mismatch")) {
    p.solutions.push_back(
        "Compare the installed versions with the requirement the message "
        "states, and upgrade or downgrade to meet it.");
  } else if (slug == "tracing-misuse") {
    p.solutions.push_back(
        "Keep the value concrete: compute it outside the transformed function, "
        "or mark the argument static.");
  }
  // Example fix: a listed value or type for a plain name the caller controls.
  for (const ValidValues& v : a.valid) {
    if (HasLabel(a, "version-mismatch") || !IsIdentifier(v.subject) || v.subject == "self" ||
        v.values.empty()) {
      continue;
    }
    std::string fn = ShortFunction(e.sites.front().function);
    if (fn.empty() || fn == "<module>") continue;
    std::string after = v.source == "types" ? v.values.front() + "(...)" : v.values.front();
    p.fix_before = fn + "(..., " + v.subject + "=<a value " +
                   (v.source == "types" ? "of another type" : "not listed") + ">)  # " +
                   (e.exception.empty() ? "error" : e.exception);
    p.fix_after = fn + "(..., " + v.subject + "=" + after + ")";
    break;
  }
  return p;
}

}  // namespace errdex::analyze
