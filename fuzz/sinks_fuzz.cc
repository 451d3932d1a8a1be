// Feeds the shared sink linker arbitrary functions, raises and calls, as a
// front end would lower them from any source file: parameters with and
// without defaults and variadics, raises whose text, type and branches
// name parameters, formats filled once bound, calls with keyword, splat,
// pending and branching arguments, callers calling callers in cycles.
// Nothing may crash or hang, and what the linker promises must hold: no
// function carries more than kMaxSinkRaises raises, the errors a call
// makes are distinct by type and text, and binding is deterministic.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "extract/flow/sinks.h"

namespace {

namespace flow = errdex::extract::flow;
using errdex::Template;
using errdex::ValueKind;

// Bytes in, small choices out; past the end every choice is 0.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return at_ < size_ ? data_[at_++] : 0; }
  size_t Pick(size_t n) { return n == 0 ? 0 : Byte() % n; }
  bool Flip() { return (Byte() & 1) != 0; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// Names shared by parameters, values and constants, so that they meet.
constexpr const char* kNames[] = {"msg", "fmt", "kind", "mode", "args", "x", "cls", "obj"};
constexpr const char* kConstants[] = {"'a'", "\"a\"", "'b'", "1", "1.0", "None", "MODE_A", "True"};
constexpr const char* kTexts[] = {"bad ", "value %s", "{0} and {x}", "%d%%", "", "'q'", "$1 ", "%"};
constexpr const char* kTypes[] = {"ValueError", "cls", "TypeError", "err", "KeyError"};
constexpr ValueKind kKinds[] = {ValueKind::kAny, ValueKind::kStr, ValueKind::kRepr,
                                ValueKind::kInt};
constexpr flow::Format kFormats[] = {flow::Format::kPercent, flow::Format::kStrFormat,
                                     flow::Format::kPrintf, flow::Format::kPyPrintf};

template <typename T, size_t N>
const T& Choose(Input& in, const T (&table)[N]) {
  return table[in.Pick(N)];
}

Template MakeTemplate(Input& in, const std::vector<flow::Param>& params) {
  Template t;
  size_t pieces = in.Pick(4);
  for (size_t i = 0; i < pieces; ++i) {
    if (in.Flip()) {
      t.AppendText(Choose(in, kTexts));
    } else {
      // Mostly the function's own parameters, sometimes another name.
      std::string name = !params.empty() && in.Flip() ? params[in.Pick(params.size())].name
                                                      : std::string(Choose(in, kNames));
      t.AppendValue(name, Choose(in, kKinds));
    }
  }
  if (in.Pick(4) == 0) {
    t.Assume(
        errdex::Assumption{Choose(in, kNames), static_cast<errdex::Assumption::Test>(in.Pick(4))});
  }
  return t;
}

flow::Arg MakeArg(Input& in, const std::vector<flow::Param>& caller_params) {
  flow::Arg a;
  switch (in.Pick(4)) {
    case 0:
      a.expression = Choose(in, kConstants);
      break;
    case 1: {
      std::string text = Choose(in, kTexts);
      a.expression = "'" + text + "'";
      a.value = Template::Literal(text);
      break;
    }
    case 2:
      a.expression = !caller_params.empty() ? caller_params[in.Pick(caller_params.size())].name
                                            : std::string(Choose(in, kNames));
      if (in.Flip()) a.value = Template::Value(a.expression, Choose(in, kKinds));
      break;
    default:
      a.expression = "'c' if flag else 'a'";
      a.value = MakeTemplate(in, caller_params);
      break;
  }
  return a;
}

std::vector<flow::CallArg> MakeArgs(Input& in, const std::vector<flow::Param>& caller_params,
                                    int depth) {
  std::vector<flow::CallArg> args;
  size_t n = in.Pick(5);
  for (size_t i = 0; i < n; ++i) {
    flow::CallArg c;
    size_t shape = in.Pick(8);
    if (shape == 0) c.keyword = Choose(in, kNames);
    if (shape == 1) c.splat = true;
    c.arg = MakeArg(in, caller_params);
    if (shape == 2 && depth < 2) {
      c.call = flow::PendingCall{std::string(Choose(in, kNames)),
                                 MakeArgs(in, caller_params, depth + 1)};
    }
    args.push_back(std::move(c));
  }
  return args;
}

std::optional<std::string> Capitalized(std::string_view written, int) {
  if (written.empty() || written.front() < 'A' || written.front() > 'Z') return std::nullopt;
  return std::string(written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  flow::Printing printing = in.Flip() ? flow::Printing::kPython : flow::Printing::kNative;
  flow::SinkLinker sinks(printing, Capitalized);

  // Functions and their parameters (kept alive: the linker points at them).
  size_t n_functions = 1 + in.Pick(6);
  std::vector<std::vector<flow::Param>> params(n_functions);
  for (std::vector<flow::Param>& ps : params) {
    size_t n = in.Pick(5);
    for (size_t i = 0; i < n; ++i) {
      flow::Param p;
      size_t shape = in.Pick(6);
      p.name = shape == 0 ? "*args" : shape == 1 ? "**kw" : shape == 2 ? "..." : Choose(in, kNames);
      p.variadic = shape <= 2;
      if (!p.variadic && in.Pick(3) == 0) p.default_value = MakeArg(in, {});
      ps.push_back(std::move(p));
    }
    if (sinks.AddFunction(&ps) != static_cast<int>(&ps - params.data())) std::abort();
  }

  // Raises: some functions are sinks, some raise many ways.
  size_t n_raises = in.Pick(24);
  for (size_t i = 0; i < n_raises; ++i) {
    int f = static_cast<int>(in.Pick(n_functions));
    const std::vector<flow::Param>& ps = params[static_cast<size_t>(f)];
    flow::SinkRaise r;
    r.exception_written = Choose(in, kTypes);
    r.exception = r.exception_written;
    if (!ps.empty() && in.Pick(3) == 0) r.type_param = ps[in.Pick(ps.size())].name;
    r.message = MakeTemplate(in, ps);
    r.guarded = in.Flip();
    if (in.Pick(3) == 0) {
      r.requires_equal.push_back({Choose(in, kNames), {Choose(in, kConstants)}});
    }
    if (in.Pick(3) == 0) r.excludes.push_back({Choose(in, kNames), {Choose(in, kConstants)}});
    if (in.Pick(4) == 0) {
      flow::SinkRaise::Fill fill;
      fill.format = Choose(in, kFormats);
      fill.variadic = in.Flip();
      if (!fill.variadic) fill.args.push_back(MakeArg(in, ps));
      r.fill = std::move(fill);
    }
    sinks.AddRaise(f, std::move(r));
  }

  // Calls, each in a function or at module level, reaching a function or
  // nothing; callers calling themselves make cycles.
  size_t n_calls = in.Pick(16);
  std::vector<std::vector<std::vector<flow::CallArg>>> ways(n_calls);
  std::vector<flow::SinkCall> calls(n_calls);
  std::vector<int> callee(n_calls);
  for (size_t i = 0; i < n_calls; ++i) {
    calls[i].caller = static_cast<int>(in.Pick(n_functions + 1)) - 1;
    const std::vector<flow::Param>& caller_params =
        calls[i].caller >= 0 ? params[static_cast<size_t>(calls[i].caller)] : params[0];
    size_t n_ways = 1 + in.Pick(3);
    for (size_t w = 0; w < n_ways; ++w) ways[i].push_back(MakeArgs(in, caller_params, 0));
    calls[i].ways = &ways[i];
    calls[i].guarded = in.Flip();
    callee[i] = static_cast<int>(in.Pick(n_functions + 1)) - 1;
  }
  sinks.Propagate(
      calls, [&](size_t i) { return callee[i]; }, static_cast<int>(in.Pick(5)));

  for (size_t f = 0; f < n_functions; ++f) {
    const std::vector<flow::SinkRaise>& raises = sinks.Raises(static_cast<int>(f));
    if (raises.size() > flow::kMaxSinkRaises) std::abort();
    for (const flow::SinkRaise& r : raises) (void)r.message.Display();
  }
  for (size_t i = 0; i < n_calls; ++i) {
    if (callee[i] < 0) continue;
    std::vector<flow::SinkRaise> made = sinks.Made(calls[i], callee[i]);
    std::set<std::pair<std::string, std::string>> seen;
    for (const flow::SinkRaise& r : made) {
      if (!seen.insert({r.exception, r.message.Display()}).second) std::abort();
    }
    // The same call bound again gives the same errors.
    std::vector<flow::SinkRaise> again = sinks.Made(calls[i], callee[i]);
    if (again.size() != made.size()) std::abort();
    for (size_t k = 0; k < made.size(); ++k) {
      if (again[k].exception != made[k].exception ||
          again[k].message.Display() != made[k].message.Display()) {
        std::abort();
      }
    }
  }
  return 0;
}
