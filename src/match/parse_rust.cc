#include "match/parse_rust.h"

#include <re2/re2.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/text.h"
#include "match/pattern.h"

namespace errdex::match {
namespace {

// At most this many entries of one report become errors of their own.
constexpr size_t kMaxEntries = 64;
constexpr size_t kMaxFrames = 256;

struct Patterns {
  // Rust 1.73+: the location ends the line, the message follows; 1.89+ adds
  // the thread's id.
  RE2 panic_new{R"re(^thread '([^']*)'(?: \(\d+\))? panicked at (\S.*?):(\d+):(\d+):\s*$)re"};
  RE2 panic_old{R"re(^thread '([^']*)'(?: \(\d+\))? panicked at '(.*)', (\S+?):(\d+):(\d+)\s*$)re"};
  RE2 panic_old_start{R"re(^thread '([^']*)'(?: \(\d+\))? panicked at '(.*)$)re"};
  RE2 panic_old_end{R"re(^(.*)', (\S+?):(\d+):(\d+)\s*$)re"};
  RE2 backtrace_function{R"re(^\s*\d+:\s+(?:0x[0-9a-f]+ - )?(\S.*?)\s*$)re"};
  RE2 backtrace_at{R"re(^\s+at (\S.*?):(\d+)(?::\d+)?\s*$)re"};
  RE2 report_header{R"re(^(\d+) validation errors? for (.*?)\s*$)re"};
  RE2 entry_end{R"re(^(.*?) ?\[type=([A-Za-z_][\w.]*)(?:, .*)?\]\s*$)re"};
};

const Patterns& P() {
  static const Patterns patterns;
  return patterns;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

int ToInt(const std::string& s) { return s.empty() || s.size() > 9 ? 0 : std::stoi(s); }

bool EndsPanicMessage(std::string_view line) {
  return StartsWith(line, "note: ") || StartsWith(line, "stack backtrace:") ||
         RE2::PartialMatch(line, P().panic_new) || StartsWith(line, "thread '") ||
         StartsWith(line, "error: process didn't exit successfully");
}

// assert_eq!'s operands follow its message: details, not the text.
void DropAssertOperands(std::string& message) {
  size_t at = message.find("\n  left: ");
  if (at != std::string::npos && StartsWith(message, "assertion `left ")) message.resize(at);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
}

// RUST_BACKTRACE frames below line `i`, innermost first as printed; returns
// the line after them.
size_t Backtrace(const std::vector<std::string_view>& lines, size_t i, std::vector<Frame>& out) {
  std::string function;
  for (; i < lines.size(); ++i) {
    std::string path, number, f;
    if (RE2::FullMatch(lines[i], P().backtrace_at, &path, &number)) {
      if (out.size() < kMaxFrames) out.push_back(Frame{path, ToInt(number), function});
      continue;
    }
    if (RE2::FullMatch(lines[i], P().backtrace_function, &f)) {
      function = f;
      continue;
    }
    if (StartsWith(Trim(lines[i]), "note: ")) continue;
    break;
  }
  return i;
}

}  // namespace

std::optional<std::vector<ParsedError>> ParseRustPanics(std::string_view raw) {
  if (raw.find("panicked at") == std::string_view::npos) return std::nullopt;
  std::string text = StripAnsi(raw);
  std::vector<std::string_view> lines = Lines(text);
  std::vector<ParsedError> out;
  for (size_t i = 0; i < lines.size();) {
    std::string thread, path, line, column, message;
    ParsedError e;
    e.source = "panic";
    e.exception = "panic";
    size_t next = i + 1;
    if (RE2::FullMatch(lines[i], P().panic_new, &thread, &path, &line, &column)) {
      for (; next < lines.size() && !EndsPanicMessage(lines[next]); ++next) {
        if (next > i + 1) message.push_back('\n');
        message.append(lines[next]);
      }
    } else if (RE2::FullMatch(lines[i], P().panic_old, &thread, &message, &path, &line, &column)) {
    } else if (RE2::FullMatch(lines[i], P().panic_old_start, &thread, &message)) {
      // A message of several lines: up to the line that closes the quote.
      bool closed = false;
      for (; next < lines.size() && next < i + 200 && !closed; ++next) {
        std::string tail;
        closed = RE2::FullMatch(lines[next], P().panic_old_end, &tail, &path, &line, &column);
        message.push_back('\n');
        message.append(closed ? tail : std::string(lines[next]));
      }
      if (!closed) {
        ++i;
        continue;
      }
    } else {
      ++i;
      continue;
    }
    DropAssertOperands(message);
    e.message = std::move(message);
    std::vector<Frame> frames;
    while (next < lines.size() && (StartsWith(lines[next], "note: ") || Trim(lines[next]).empty()))
      ++next;
    if (next < lines.size() && StartsWith(lines[next], "stack backtrace:")) {
      next = Backtrace(lines, next + 1, frames);
    }
    std::reverse(frames.begin(), frames.end());  // outermost first, as for Python
    frames.push_back(Frame{path, ToInt(line), ""});
    e.frames = std::move(frames);
    out.push_back(std::move(e));
    i = next;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

void ExpandRustReports(std::vector<ParsedError>& errors) {
  std::vector<ParsedError> out;
  for (ParsedError& e : errors) {
    if (ShortExceptionName(e.exception) == "PanicException") e.exception = "panic";
    std::vector<std::string_view> lines = Lines(e.message);
    std::string count, model;
    if (lines.empty() || !RE2::FullMatch(lines[0], P().report_header, &count, &model)) {
      out.push_back(std::move(e));
      continue;
    }
    // Each entry: a location line (none for a root error), then its message
    // indented by two, the last message line ending in `[type=...]`.
    size_t before = out.size();
    std::string message;
    for (size_t i = 1; i < lines.size() && out.size() - before < kMaxEntries; ++i) {
      std::string_view l = lines[i];
      if (!StartsWith(l, "  ") || StartsWith(Trim(l), "For further information visit ")) {
        message.clear();
        continue;
      }
      if (!message.empty()) message.push_back('\n');
      message.append(l.substr(2));
      std::string text, key;
      if (!RE2::FullMatch(l.substr(2), P().entry_end, &text, &key)) continue;
      size_t cut = message.rfind('\n');
      message.resize(cut == std::string::npos ? 0 : cut + 1);
      message.append(text);
      ParsedError entry;
      entry.source = e.source;
      entry.message = std::move(message);
      entry.key = key;
      entry.frames = e.frames;
      entry.ignored = e.ignored;
      out.push_back(std::move(entry));
      message.clear();
    }
    if (out.size() == before) out.push_back(std::move(e));
  }
  errors = std::move(out);
}

}  // namespace errdex::match
