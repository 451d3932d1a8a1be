#include "extract/flow/helpers.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace errdex::extract::flow {
namespace {

bool Mentions(const Template& t, const std::vector<std::string>& params) {
  for (const Piece& p : t.pieces()) {
    if (p.is_value && std::find(params.begin(), params.end(), p.text) != params.end()) return true;
  }
  return false;
}

}  // namespace

void LinkHelpers(const std::vector<HelperFacts*>& facts,
                 const std::vector<std::vector<Site>*>& sites, const HelperLanguage& language) {
  // Functions by the linker's id, parameters by position, `...` variadic.
  struct Function {
    std::string name;
    std::string path;
    bool file_local = false;
    std::vector<Param> params;
  };
  std::deque<Function> functions;  // the linker keeps pointers to params
  std::map<std::pair<std::string, std::string>, int> by_place;  // (path, name)
  std::unordered_map<std::string, std::vector<int>> by_name;
  SinkLinker sinks(language.printing, language.type_named);
  auto function = [&](const std::string& name, const std::string& path, bool file_local,
                      const std::vector<std::string>& params) {
    auto [it, added] = by_place.emplace(std::make_pair(path, name), 0);
    if (!added) return it->second;
    Function& f = functions.emplace_back();
    f.name = name;
    f.path = path;
    f.file_local = file_local;
    for (const std::string& p : params) f.params.push_back(Param{p, std::nullopt, p == "..."});
    it->second = sinks.AddFunction(&f.params);
    by_name[name].push_back(it->second);
    return it->second;
  };
  for (HelperFacts* file : facts) {
    for (HelperSink& h : file->sinks) {
      if (h.type_param.empty() && !Mentions(h.message, h.params)) continue;
      int id = function(h.name, h.path, h.file_local, h.params);
      // Two functions of one short name in a file (`A::fail`, `B::fail`):
      // calls name neither apart, so the first one's parameters stand.
      const std::vector<Param>& known = functions[static_cast<size_t>(id)].params;
      if (known.size() != h.params.size() ||
          !std::equal(known.begin(), known.end(), h.params.begin(),
                      [](const Param& p, const std::string& n) { return p.name == n; })) {
        continue;
      }
      SinkRaise r;
      r.exception = h.exception;
      r.exception_written = h.name;
      r.type_param = h.type_param;
      r.kind = h.kind;
      r.message = std::move(h.message);
      r.fill = std::move(h.fill);
      r.guarded = h.guarded;
      sinks.AddRaise(id, std::move(r));
    }
    file->sinks.clear();
  }
  // Every call, with each way its arguments can be: a text argument's
  // alternatives, one at a time.
  constexpr size_t kMaxWays = 16;
  struct Call {
    const HelperCall* call;
    std::vector<std::vector<CallArg>> ways;
  };
  std::vector<Call> calls;
  std::vector<SinkCall> sink_calls;
  for (const HelperFacts* file : facts) {
    for (const HelperCall& c : file->calls) {
      Call& call = calls.emplace_back();
      call.call = &c;
      call.ways.emplace_back();
      for (size_t i = 0; i < c.args.size(); ++i) {
        static const std::vector<Template> kNoValues;
        const std::vector<Template>& values = i < c.values.size() ? c.values[i] : kNoValues;
        size_t n =
            values.empty() || call.ways.size() * values.size() > kMaxWays ? 1 : values.size();
        std::vector<std::vector<CallArg>> ways;
        for (const std::vector<CallArg>& way : call.ways) {
          for (size_t k = 0; k < n; ++k) {
            CallArg a;
            a.arg.expression = c.args[i];
            if (!values.empty() && (n > 1 || values.size() == 1)) a.arg.value = values[k];
            ways.push_back(way);
            ways.back().push_back(std::move(a));
          }
        }
        call.ways = std::move(ways);
      }
      SinkCall s;
      if (!c.caller.empty())
        s.caller = function(c.caller, c.site.path, c.caller_file_local, c.caller_params);
      sink_calls.push_back(s);
    }
  }
  for (size_t i = 0; i < calls.size(); ++i) sink_calls[i].ways = &calls[i].ways;
  // path -> name -> how many functions of that name the file defines; two
  // (`impl W<u8>` and `impl W<u16>`, an inherent and a trait method) are
  // told apart by types errdex does not read, and a call reaches neither.
  std::map<std::string, std::map<std::string, int>> defined;
  std::unordered_set<std::string> closed;  // paths
  for (const HelperFacts* file : facts) {
    for (const std::string& name : file->defined) ++defined[file->path][name];
    if (file->closed) closed.insert(file->path);
  }
  auto count = [&](const std::string& path, const std::string& name) {
    auto d = defined.find(path);
    if (d == defined.end()) return 0;
    auto n = d->second.find(name);
    return n == d->second.end() ? 0 : n->second;
  };
  auto callee = [&](size_t i) {
    const HelperCall& c = *calls[i].call;
    if (int n = count(c.site.path, c.callee); n > 0) {
      auto own = by_place.find(std::make_pair(c.site.path, c.callee));
      return n == 1 && own != by_place.end() && sinks.IsSink(own->second) ? own->second : -1;
    }
    if (c.callee.find("::") == std::string::npos && closed.count(c.site.path) != 0) return -1;
    auto it = by_name.find(c.callee);
    if (it == by_name.end()) return -1;
    int global = -1;
    for (int id : it->second) {
      if (!sinks.IsSink(id)) continue;
      const Function& fn = functions[static_cast<size_t>(id)];
      if (count(fn.path, fn.name) > 1) continue;
      if (fn.file_local && fn.path == c.site.path) return id;
      if (fn.file_local) continue;
      if (global >= 0 && language.ambiguous_reaches_none) return -1;
      if (global < 0) global = id;
    }
    return global;
  };
  sinks.Propagate(sink_calls, callee, language.max_depth);
  // Every call that passes text to a helper (or names the class a helper
  // for the type raises) raises it there.
  size_t next = 0;
  for (size_t f = 0; f < facts.size(); ++f) {
    std::unordered_set<std::string> emitted;
    for (const HelperCall& c : facts[f]->calls) {
      size_t i = next++;
      int sink = c.site.line > 0 ? callee(i) : -1;
      if (sink < 0) continue;
      const Function& fn = functions[static_cast<size_t>(sink)];
      for (SinkRaise& bound : sinks.Made(sink_calls[i], sink)) {
        Site s = c.site;
        s.kind = bound.kind;
        s.exception = std::move(bound.exception);
        s.exception_written = fn.name;
        s.via = fn.name;
        s.message = std::move(bound.message);
        s.message.AssignNames();
        if (bound.guarded) s.trigger = GuardedSinkTrigger(s, fn.name);
        std::string key = std::to_string(s.line) + ":" + std::to_string(s.column) + ":" +
                          s.exception + ":" + s.message.Display();
        if (emitted.insert(std::move(key)).second) sites[f]->push_back(std::move(s));
      }
    }
  }
  for (HelperFacts* file : facts) {
    file->calls.clear();
    file->calls.shrink_to_fit();
  }
}

}  // namespace errdex::extract::flow
