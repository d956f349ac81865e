// tokenizer.json's regular expressions (lib/src/text/tj_regex.h) and the
// hand-written splitters standing in for Oniguruma on the standard patterns
// (tj_regex_fast.h): each splitter's matches are Oniguruma's own on tricky
// texts (contractions in every case, digit runs, whitespace runs before
// letters and newlines, CJK, combining marks, emoji, U+FFFD where a text had
// invalid bytes), and the patterns of the committed tokenizer.json files that
// use them find their splitter by their exact text. fuzz_tj_regex_fast checks
// the same on arbitrary texts.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"
#include "tj_regex.h"
#include "tj_regex_fast.h"

namespace {

using embedpe::tj::Regex;

std::string splits(const std::vector<Regex::Match>& m, std::string_view text) {
  std::string out;
  for (const Regex::Match& x : m) out += "[" + std::string(text.substr(x.begin, x.end - x.begin)) + "]";
  return out;
}

std::vector<std::string> tricky_texts() {
  std::vector<std::string> t = {
      "", " ", "a", "'", "''", "'s", "'S", "'t'T're'RE'Re'rE've'VE'm'M'll'LL'lL'd'D", "'\xC5\xBF", "I'\xC5\xBFx",
      "don't I'M you're WE'VE she'll he'D it's", "'x 'r 'l 'v 'le", "x'", " 's", "  's",
      "1", "12", "123", "1234", "12345", "a1b22c333d4444e55555", " 123 4567", "\xD9\xA1\xD9\xA2\xD9\xA3\xD9\xA4",
      "\xE2\x85\xA0\xE2\x85\xA1\xC2\xBD", "x  y", "x   y", "x \ny", "x \n\n  y", "x\r\n\r\n y", "\n", "\r\n", "\n\n\n",
      "  \n  ", "a\n", "a  ", "a   \t", "\t\tb", " \xC2\xA0" "b", "\xE3\x80\x80\xE3\x80\x80x", "hello world  foo   bar",
      "!!!", " !!!", " !!!\n\n", "!a", "?!Hello", "(foo)", "x,\ny", " ,\r\n", "$100.00!", "a/b/c\n", "a /\n",
      "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xA7\xE3\x81\x99\xE3\x80\x82", " \xE6\x97\xA5\xE6\x9C\xAC",
      "\xE3\x82\xAB\xE3\x82\xBF\xE3\x82\xAB\xE3\x83\x8A\xE3\x83\xBC", "\xE9\xBE\xA5\xE9\xBE\xA6",  // U+9FA5 U+9FA6
      "e\xCC\x81", " \xCC\x81", "\xCC\x81\xCC\x82", "a\xCC\x81" "b", "1\xCC\x81", "!\xCC\x81", "\n\xCC\x81x",
      "\xF0\x9F\x98\x80", " \xF0\x9F\x98\x80\xF0\x9F\x91\x8D", "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9",
      "\xEF\xBF\xBD", "a\xEF\xBF\xBD\xEF\xBF\xBD" "b", std::string("a\0b", 3), "\x01\x02 x", "\xE2\x80\x8B",
      "\xE2\x80\xA8\xE2\x80\xA9x", "\xC2\x85y", "\x0B\x0C\x1C\x1Dz", "def f(x):\n    return x**2  # sq\n",
      "\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D \xD8\xB9\xD8\xA7\xD9\x84\xD9\x85", "\xC3\x80\xC3\xA9\xC7\x85\xCA\xB0\xC2\xAA",
      "HTTPClient's FOO'S Bar'll", "\xE2\x84\xAA'S",
  };
  return t;
}

}  // namespace

TEST_CASE("tj_regex: each fast splitter gives Oniguruma's matches on tricky texts") {
  for (const auto& f : embedpe::tj::fast_splitters()) {
    const Regex regex(f.pattern, f.name);
    CHECK(std::string(regex.fast_path()) == f.name);
    for (const std::string& text : tricky_texts()) {
      std::vector<Regex::Match> fast, onig;
      regex.find_all(text, fast);
      regex.find_all_oniguruma(text, onig);
      CAPTURE(f.name);
      CAPTURE(text);
      CHECK(splits(fast, text) == splits(onig, text));
      CHECK(fast.size() == onig.size());
    }
  }
}

TEST_CASE("tj_regex: splits as the patterns mean them") {
  const auto split = [](const char* name, std::string_view text) {
    for (const auto& f : embedpe::tj::fast_splitters()) {
      if (std::string_view(f.name) != name) continue;
      std::vector<Regex::Match> m;
      f.find_all(text, m);
      return splits(m, text);
    }
    return std::string("no splitter ") + name;
  };
  CHECK(split("llama3", "I'M 12345 don't\n\n  hi") == "[I]['M][ ][123][45][ don]['t][\n\n][ ][ hi]");
  CHECK(split("qwen2", "x 123") == "[x][ ][1][2][3]");
  CHECK(split("gpt2", "I'M  hello 12") == "[I]['][M][ ][ hello][ 12]");
  CHECK(split("deepseek", "foo.bar !!\n") == "[foo][.bar][ !!\n]");
}

TEST_CASE("tj_regex: the committed files' standard patterns find their splitter") {
  // Each fixture carries the pattern of the real file it stands for (SOURCES.md).
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"fx_bl_llama3_style", {"llama3"}},
      {"fx_bl_qwen2_style", {"qwen2"}},
      {"fx_bl_deepseek_style", {"deepseek_digits", "deepseek_cjk", "deepseek"}},
  };
  for (const auto& c : cases) {
    const std::string& name = c.first;  // not a structured binding: clang 14's CAPTURE cannot take one
    const std::vector<std::string>& expected = c.second;
    CAPTURE(name);
    const auto file = nlohmann::json::parse(test::read_file(test::golden("tokenizer_json/" + name + "/tokenizer.json")));
    std::vector<std::string> found;
    for (const auto& step : file["pre_tokenizer"]["pretokenizers"]) {
      if (step["type"] != "Split") continue;
      const std::string pattern = step["pattern"]["Regex"];
      const Regex regex(pattern, "test");
      found.push_back(regex.fast_path());
    }
    CHECK(found == expected);
  }
  CHECK(std::string(Regex("\\p{L}+", "test").fast_path()).empty());
}

TEST_CASE("tj_regex: the splitters class characters as ICU (Unicode 15.0), Oniguruma 6.9.8 as Unicode 14.0") {
  CHECK(embedpe::tj::classes_as_oniguruma(U'a'));
  CHECK(embedpe::tj::classes_as_oniguruma(U'\u3000'));
  CHECK(embedpe::tj::classes_as_oniguruma(0x4E00));
  CHECK_FALSE(embedpe::tj::classes_as_oniguruma(0x31350));  // CJK Ext H (Unicode 15.0): Lo in ICU 72, unassigned in Oniguruma 6.9.8
  CHECK_FALSE(embedpe::tj::classes_as_oniguruma(0x0CF3));   // KANNADA SIGN COMBINING ANUSVARA ABOVE RIGHT (15.0)
  const Regex llama3(embedpe::tj::fast_splitters()[1].pattern, "llama3");
  std::vector<Regex::Match> m;
  llama3.find_all("a\xF0\xB1\x8D\x90" "b", m);  // a U+31350 b: one word, as HF (Unicode 16.0) splits it
  CHECK(m.size() == 1);
}
