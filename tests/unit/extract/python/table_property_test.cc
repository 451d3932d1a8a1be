// A message looked up in a table (`raise AttributeError(FORMER[attr])`,
// `msg = MESSAGES[code]`) is one of the table's values. Random modules hold
// tables of several shapes — a dict literal of texts (plain, `%`-formatted,
// `.format`ted, a module constant), a dict comprehension formatting a
// template with the names its loop binds (`{n: FMT.format(n=n) for n in
// ...}`, f-strings, `%`), and a table with a value that is no text — with
// the template rebound after the comprehension and a module name spelled
// like a loop variable, both of which a wrong reading would take; and
// tables the file adds texts to later (`T[k] = v`, `T.update`, a function
// that registers entries) or may replace with another. Random raises look
// a key up — written out, or one only the run knows — directly, through a
// local, a closure or a concatenation. CPython, the reference, runs each
// raise: a text it prints must fit one of the templates errdex lists at
// the raise (never lost); a table of a few texts must give templates with
// words, not one value; and a key written out into a dict display of texts
// must give the one text written under it, not the others.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "extract/extractor.h"
#include "template_fits.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

struct Table {
  std::string name;
  std::vector<std::string> keys;  // as Python literals
  bool words = false;             // every value is text errdex can read
  bool display = false;           // a dict display (not a comprehension)
};

class Generator : public RandomSource {
 public:
  using RandomSource::RandomSource;

  // The module lines of table number `k`.
  std::string Make(int k, Table& t) {
    t.name = "T" + std::to_string(k);
    int entries = 1 + Pick(10);
    std::string out;
    switch (Pick(6)) {
      case 0: {  // a dict literal
        t.words = entries <= 8;
        t.display = true;
        std::string consts;
        out = t.name + " = {\n";
        for (int i = 0; i < entries; ++i) {
          std::string key = Pick(2) == 0 ? std::to_string(i) : "'k" + std::to_string(i) + "'";
          t.keys.push_back(key);
          out += "    " + key + ": " + Value(k, i, consts) + ",\n";
        }
        out = consts + out + "}\n";
        break;
      }
      case 1: {  // a comprehension over pairs, formatting a template
        t.words = true;
        std::string fmt = "FMT" + std::to_string(k);
        std::string w1 = Word(), w2 = Word();
        std::string pairs;
        for (int i = 0; i < entries; ++i) {
          std::string key = "'n" + std::to_string(i) + "'";
          t.keys.push_back(key);
          pairs += "(" + key + ", '" + Word() + "'), ";
        }
        switch (Pick(3)) {
          case 0:
            out = fmt + " = '" + w1 + " {n} " + w2 + " {x}.'\n" + t.name + " = {n: " + fmt +
                  ".format(n=n, x=x) for n, x in [" + pairs + "]}\n";
            break;
          case 1:
            out = t.name + " = {n: f'" + w1 + " {n!r} " + w2 + " {x}' for (n, x) in [" + pairs +
                  "]}\n";
            break;
          default:
            out = fmt + " = '" + w1 + " %s " + w2 + " %s'\n" + t.name + " = {n: " + fmt +
                  " % (n, x) for n, x in [" + pairs + "]}\n";
            break;
        }
        // What a reading that ignores the loop, or the order, would take.
        out += fmt + " = '" + Word() + " {n}'\nn = '" + Word() + "'\nx = '" + Word() + "'\n";
        break;
      }
      case 3: {  // texts the file adds later: the lookup stays one value
        t.words = false;
        out = t.name + " = {0: '" + Word() + "'}\n";
        t.keys = {"0", "1"};
        switch (Pick(3)) {
          case 0:
            out += t.name + "[1] = '" + Word() + "'\n";
            break;
          case 1:
            out += t.name + ".update({1: '" + Word() + "'})\n";
            break;
          default:
            out += "def register" + std::to_string(k) + "(key, text):\n    " + t.name +
                   "[key] = text\nregister" + std::to_string(k) + "(1, '" + Word() + "')\n";
            break;
        }
        break;
      }
      case 4: {  // a table another definition may replace
        t.words = false;
        out = t.name + " = {0: '" + Word() + "'}\nif len('" + Word() + "') > 2:\n    " + t.name +
              " = dict([(0, '" + Word() + "')])\n";
        t.keys = {"0"};
        break;
      }
      default: {  // a value that is no text: the lookup stays one value
        t.words = false;
        out = t.name + " = {\n";
        for (int i = 0; i < entries; ++i) {
          std::string key = std::to_string(i);
          t.keys.push_back(key);
          out += "    " + key + ": " + (i == 0 ? std::string("None") : "'" + Word() + "'") + ",\n";
        }
        out += "}\n";
        break;
      }
    }
    return out;
  }

  // A raise of a message looked up in `t` (one statement of a function);
  // `written`: whether the key is written out.
  std::string Raise(const Table& t, bool* written) {
    std::string key = t.keys[static_cast<size_t>(Pick(static_cast<int>(t.keys.size())))];
    // A key only the run knows (a lambda's result) or one written out,
    // which picks the value written under it.
    *written = Pick(2) == 0;
    if (!*written) key = "(lambda: " + key + ")()";
    std::string look = t.name + "[" + key + "]";
    switch (Pick(4)) {
      case 0:
        return "raise ValueError(" + look + ")";
      case 1:
        return "msg = " + look + "; raise RuntimeError(msg)";
      case 2:
        return "raise ValueError('" + Word() + ": ' + str(" + look + "))";
      default:
        return "msg = " + look + "\n    def inner():\n        raise RuntimeError(msg)\n" +
               "    inner()";
    }
  }

 private:
  std::string Value(int k, int i, std::string& consts) {
    switch (Pick(4)) {
      case 0:
        return "'" + Word() + " " + Word() + "'";
      case 1:
        return "'" + Word() + " %s' % '" + Word() + "'";
      case 2:
        return "'" + Word() + " {}'.format(" + std::to_string(i) + ")";
      default: {
        std::string c = "C" + std::to_string(k) + "_" + std::to_string(i);
        consts += c + " = '" + Word() + "'\n";
        return c;
      }
    }
  }
};

uint32_t Seed() { return testing::PropertySeed(20261207u); }

TEST(TableProperty, AMessageLookedUpInATableIsOneOfItsValues) {
  constexpr int kTables = 80;
  constexpr int kRaisesPerTable = 4;
  Generator gen(Seed());
  std::string code;
  std::vector<Table> tables(kTables);
  std::vector<std::string> statements;
  std::vector<const Table*> of;
  std::vector<bool> written;
  for (int k = 0; k < kTables; ++k) code += gen.Make(k, tables[static_cast<size_t>(k)]);
  for (const Table& t : tables) {
    for (int i = 0; i < kRaisesPerTable; ++i) {
      bool w = false;
      statements.push_back(gen.Raise(t, &w));
      of.push_back(&t);
      written.push_back(w);
    }
  }
  std::string program = code;
  GeneratedRaises raises = AppendRaises(program, statements);
  std::map<std::string, const Table*> table_of;
  std::map<std::string, bool> written_key;
  for (size_t i = 0; i < statements.size(); ++i) {
    std::string fn = "raise" + std::to_string(i);
    table_of[fn] = of[i];
    written_key[fn] = written[i];
  }

  std::map<std::string, std::vector<Template>> listed =
      ListedAt(ExtractPythonSource("gen.py", program).sites, raises);
  // To read a failure's program: ERRDEX_PROPERTY_DUMP=FILE.
  nlohmann::json printed =
      testing::RunPythonForJson(program + raises.calls + testing::kPythonCallsHarness);
  ASSERT_TRUE(printed.is_object());

  int checked = 0, lost = 0, with_words = 0, expected_words = 0, one_value = 0, picked = 0;
  for (const auto& [fn, result] : printed.items()) {
    ASSERT_TRUE(result.is_array()) << fn << " raised nothing";
    const std::string text = result[1].get<std::string>();
    const std::vector<Template>& have = listed[fn];
    ASSERT_FALSE(have.empty()) << fn << ": no site";
    ++checked;
    bool fits = false, words = false;
    for (const Template& t : have) {
      fits = fits || Fits(t, text);
      words = words || !t.IsDynamic();
    }
    if (!fits) {
      ++lost;
      if (lost <= 10) {
        std::string shown;
        for (const Template& t : have) shown += " [" + t.Display() + "]";
        ADD_FAILURE() << fn << " printed '" << text << "'; errdex lists" << shown;
      }
    }
    if (table_of[fn]->words && table_of[fn]->display && written_key[fn]) {
      // The text written under the key, and no other.
      ++picked;
      EXPECT_EQ(have.size(), 1u) << fn << " looks a written key up; errdex lists " << have.size();
    }
    if (table_of[fn]->words) {
      ++expected_words;
      if (words) {
        ++with_words;
      } else if (expected_words - with_words <= 10) {
        ADD_FAILURE() << fn << " looks up a table of texts; errdex lists one value";
      }
    } else {
      one_value += !words || have.size() == 1;
    }
  }
  EXPECT_EQ(checked, kTables * kRaisesPerTable);
  EXPECT_EQ(lost, 0);
  EXPECT_EQ(with_words, expected_words);
  std::printf(
      "raises %d: lost %d; tables of texts %d, listed with words %d (a written key's one text %d); "
      "others one value %d\n",
      checked, lost, expected_words, with_words, picked, one_value);
}

}  // namespace
}  // namespace errdex::extract
