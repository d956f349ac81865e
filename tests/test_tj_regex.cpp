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
#include <oniguruma.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_support.h"
#include "tj_regex.h"
#include "tj_regex_fast.h"
#include "tj_unicode.h"
#include "tj_ucd.h"

namespace {

using embedpe::tj::Regex;

std::string splits(const std::vector<Regex::Match>& m, std::string_view text) {
  std::string out;
  for (const Regex::Match& x : m) {
    out += '[';
    out.append(text.substr(x.begin, x.end - x.begin));
    out += ']';
  }
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

namespace {

// Every code point but the surrogates, in order.
const std::string& all_characters() {
  static const std::string text = [] {
    std::string t;
    for (char32_t c = 0; c < 0x110000; ++c)
      if (c < 0xD800 || c > 0xDFFF) embedpe::tj::append_utf8(t, c);
    return t;
  }();
  return text;
}

// The code points the matches of `regex` in `text` cover.
std::vector<char32_t> covered(const Regex& regex, const std::string& text) {
  std::vector<Regex::Match> m;
  regex.find_all_oniguruma(text, m);
  std::vector<char32_t> out;
  for (const Regex::Match& x : m) {
    for (std::size_t i = x.begin; i < x.end;) out.push_back(embedpe::tj::next_char(text, i));
  }
  return out;
}

// Code points whose properties Unicode 15.0-16.0 changed: U+1171E AHOM CONSONANT SIGN MEDIAL RA,
// Mn until 15.1, Mc in 16.0.
bool changed_since_14(char32_t c) { return c == 0x1171E; }

// The pattern compiled as written, by Debian's Oniguruma (Unicode 14.0), searched as
// Regex::find_all_oniguruma searches.
struct OnigRegexTest {
  static regex_t* original(const std::string& pattern) {
    embedpe::tj::initialize_oniguruma();
    regex_t* r = nullptr;
    OnigErrorInfo info;
    const auto* b = reinterpret_cast<const OnigUChar*>(pattern.data());
    if (onig_new(&r, b, b + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_DEFAULT, &info) != ONIG_NORMAL)
      return nullptr;
    return r;
  }
  static void find_all(const std::string& pattern, const std::string& text, std::vector<Regex::Match>& out) {
    out.clear();
    regex_t* r = original(pattern);
    OnigRegion* region = onig_region_new();
    const auto* str = reinterpret_cast<const OnigUChar*>(text.data());
    const auto* end = str + text.size();
    std::size_t last_end = 0, last_match_end = 0;
    bool have_last = false;
    while (last_end <= text.size()) {
      onig_region_clear(region);
      if (onig_search(r, str, end, str + last_end, end, region, ONIG_OPTION_NONE) < 0) break;
      const auto b = static_cast<std::size_t>(region->beg[0]), e = static_cast<std::size_t>(region->end[0]);
      if (b == e && have_last && last_match_end == e) {
        std::size_t next = last_end;
        if (next < text.size()) embedpe::tj::next_char(text, next);
        last_end = next == last_end ? next + 1 : next;
        continue;
      }
      last_end = e;
      last_match_end = e;
      have_last = true;
      out.push_back({b, e});
    }
    onig_region_free(region, 1);
    onig_free(r);
  }
};

// The code points assigned by Unicode 14.0 (ICU's age) or unassigned in 16.0, but those
// Unicode 15.0-16.0 changed: where Debian's Oniguruma (14.0) and HF's (16.0) must agree.
const std::string& unicode14_characters() {
  static const std::string text = [] {
    std::string t;
    for (char32_t c = 0; c < 0x110000; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;
      const unsigned age = embedpe::tj::unicode_age(c);
      const bool old = age != 0 && age <= 14;
      if ((old || embedpe::tj::ucd::category(c) == embedpe::tj::ucd::Cn) && !changed_since_14(c))
        embedpe::tj::append_utf8(t, c);
    }
    return t;
  }();
  return text;
}

std::string rewrite(std::string_view p) { return embedpe::tj::rewrite_unicode_classes(p); }

// a + b + ... (operator+ on a literal trips GCC 12's -Wstringop-overflow at -O3).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::size_t n = 0;
  for (std::string_view x : parts) n += x.size();
  std::string out;
  out.reserve(n);
  for (std::string_view x : parts) out.append(x);
  return out;
}

}  // namespace

TEST_CASE("tj_regex: the splitters class every character as Oniguruma does on the compiled pattern (Unicode 16.0)") {
  using namespace embedpe::tj;
  std::vector<std::uint8_t> onig(0x110000, 0);
  const std::pair<const char*, std::uint8_t> classes[] = {{"\\p{L}", kClassL}, {"\\p{N}", kClassN}, {"\\s", kClassSpace},
                                                          {"\\p{P}", kClassP}, {"\\p{S}", kClassS}, {"\\p{M}", kClassM}};
  for (const auto& [pattern, bit] : classes) {
    for (char32_t c : covered(Regex(pattern, "test"), all_characters())) onig[c] |= bit;
  }
  std::size_t differ = 0;
  char32_t first = 0;
  for (char32_t c = 0; c < 0x110000; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    if (splitter_classes(c) != onig[c] && differ++ == 0) first = c;
  }
  CAPTURE(static_cast<unsigned>(first));
  CHECK(differ == 0);
  CHECK(splitter_classes(0x10D40) == kClassN);  // GARAY DIGIT ZERO (16.0)
  CHECK(splitter_classes(0x31350) == kClassL);  // CJK Ext. H (15.0)
  CHECK(splitter_classes(0x2EBF0) == kClassL);  // CJK Ext. I (15.1)
  const Regex llama3(fast_splitters()[1].pattern, "llama3");
  std::vector<Regex::Match> m;
  llama3.find_all("a\xF0\xB1\x8D\x90" "b", m);  // a U+31350 b: one word, as HF (Unicode 16.0) splits it
  CHECK(m.size() == 1);
  llama3.find_all_oniguruma("a\xF0\x90\xB5\x80" "b", m);  // a U+10D40 b: a digit between two words
  CHECK(m.size() == 3);
}

TEST_CASE("tj_regex: rewrite_unicode_classes spells out what it knows and leaves the rest") {
  const std::string letters = rewrite("\\p{L}");
  CHECK(letters.rfind("[\\x{41}-\\x{5A}\\x{61}-\\x{7A}", 0) == 0);
  CHECK(letters.back() == ']');
  CHECK(rewrite("\\p{ l_etter }") == letters);                       // Oniguruma's name matching
  CHECK(rewrite("[\\p{L}]") == cat({"[", letters, "]"}));                 // a nested class, a union
  CHECK(rewrite("\\P{^L}") == letters);                              // two negations
  CHECK(rewrite("\\\\p{L}") == "\\\\p{L}");                          // an escaped backslash, then "p{L}"
  CHECK(rewrite("\\\\\\p{L}") == cat({"\\\\", letters}));
  CHECK(rewrite("(?i)\\p{Lu}") == "(?i)\\p{Lu}");                    // case folding: left to Oniguruma
  CHECK(rewrite("(?i:[\\p{Lu}])\\p{L}") == cat({"(?i:[\\p{Lu}])", letters}));  // ... to the group's end
  CHECK(rewrite("((?i)\\p{Lu})\\p{L}") == cat({"((?i)\\p{Lu})", letters}));
  CHECK(rewrite("(?m:\\p{L})") == cat({"(?m:", letters, ")"}));
  CHECK(rewrite("(?W)\\w") == "(?W)\\w");                            // ASCII \w
  CHECK(rewrite("[\\p{L}-z]") == "[\\p{L}-z]");                       // a range's end: Oniguruma refuses it
  CHECK(rewrite("[a-\\p{L}]") == "[a-\\p{L}]");
  CHECK(rewrite("\\p{Greek}\\p{Punct}\\s\\h") == "\\p{Greek}\\p{Punct}\\s\\h");  // left: Unicode 14.0 / version-free
  CHECK(rewrite("(?x)\\p{L} # [") == "(?x)\\p{L} # [");             // extended syntax: not followed, whole
  CHECK(rewrite("\\c[\\p{L}") == "\\c[\\p{L}");
  CHECK(rewrite("[[:foo:]]\\p{L}") == "[[:foo:]]\\p{L}");
  CHECK(rewrite("(?#[)\\p{L}") == cat({"(?#[)", letters}));                // a comment's '[' opens no class
  CHECK(rewrite("[]\\p{L}]") == cat({"[]", letters, "]"}));               // ']' first in a class is a literal
  CHECK(rewrite("[[:punct:][:digit:]]").rfind("[[:punct:][", 0) == 0);
  CHECK(rewrite("[[:alpha:]]\\w") == "[[:alpha:]]\\w");                   // Oniguruma's own definitions: left
  CHECK(rewrite("(?i:(?{)})\\p{Lu})") == "(?i:(?{)})\\p{Lu})");          // a callout's ')' ends no group: whole
  CHECK(rewrite("(*FAIL)|\\p{L}") == "(*FAIL)|\\p{L}");
}

TEST_CASE("tj_regex: rewritten patterns match as the original on Unicode 14.0's characters, as 16.0 on the rest") {
  const std::vector<std::string> patterns = {
      "\\p{L}+", "\\p{N}", "[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*",
      "[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+", "[a[\\p{L}&&\\P{Lu}]]", "[\\p{L}&&[^a-z]]+",
      "\\p{^N}", "\\P{^N}", "[^\\P{Nd}]", "[\\w\\d]+", "\\W", "\\D+", "[^\\w\\s]+", "[[:alpha:][:digit:]]",
      "[[:^word:]]", "[^[:graph:]]", "[[:print:]]", "[[:upper:]&&[:^lower:]]", "[[:cntrl:][:alnum:]]",
      "\\p{Print}", "\\p{Graph}", "\\p{Cntrl}", "(?i)[\\p{Lu}]", "(?i:\\p{Ll})|\\p{Lt}", "[]\\p{N}]", "[^]\\p{N}]",
      "\\p{ Decimal_Number }", "(?#[)\\p{L}", "(?<x>\\p{Nd})\\k<x>", "\\p{Lu}(?=\\p{Ll})", "(?<=\\p{Nd})\\p{L}",
      "\\p{Assigned}", "\\p{Cn}", "\\P{Cn}", "\\p{C}", "\\p{Co}|\\p{Cs}", "\\p{Other}", "\\p{LC}", "\\p{Cased_Letter}",
      "\\p{Combining_Mark}", "\\p{Alpha}", "\\p{Alphabetic}", "\\p{Upper}", "\\p{Uppercase}", "\\p{Lower}",
      "\\p{Lowercase}", "\\p{Digit}", "\\p{Alnum}", "\\p{Word}", "\\p{Z}", "\\p{Zs}", "\\p{Zl}|\\p{Zp}",
  };
  const std::vector<std::string> categories = {
      "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "LC", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl",
      "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs",
      "Control", "Format", "Unassigned", "Private_Use", "Surrogate", "Letter", "Lowercase_Letter", "Modifier_Letter",
      "Other_Letter", "Titlecase_Letter", "Uppercase_Letter", "Mark", "Spacing_Mark", "Enclosing_Mark",
      "Nonspacing_Mark", "Number", "Decimal_Number", "Letter_Number", "Other_Number", "Punctuation",
      "Connector_Punctuation", "Dash_Punctuation", "Close_Punctuation", "Final_Punctuation", "Initial_Punctuation",
      "Other_Punctuation", "Open_Punctuation", "Symbol", "Currency_Symbol", "Modifier_Symbol", "Math_Symbol",
      "Other_Symbol", "Separator", "Line_Separator", "Paragraph_Separator", "Space_Separator"};
  std::vector<std::string> all = patterns;
  for (const std::string& c : categories) all.push_back(cat({"\\p{", c, "}+"}));
  const std::string& text = unicode14_characters();
  for (const std::string& pattern : all) {
    CAPTURE(pattern);
    const Regex regex(pattern, "test");
    regex_t* original = OnigRegexTest::original(pattern);
    REQUIRE(original != nullptr);
    onig_free(original);
    std::vector<Regex::Match> ours, theirs;
    regex.find_all_oniguruma(text, ours);
    OnigRegexTest::find_all(pattern, text, theirs);
    std::size_t k = 0;
    while (k < ours.size() && k < theirs.size() && ours[k].begin == theirs[k].begin && ours[k].end == theirs[k].end) ++k;
    std::size_t at = k < ours.size() ? ours[k].begin : text.size();
    if (k < theirs.size()) at = std::min(at, theirs[k].begin);
    const unsigned first_difference = at < text.size() ? static_cast<unsigned>(embedpe::tj::next_char(text, at)) : 0;
    CAPTURE(first_difference);
    CHECK(ours.size() == theirs.size());
    CHECK(k == ours.size());
  }
  // On Unicode 16.0's new characters: 16.0's answers.
  std::vector<Regex::Match> m;
  Regex("\\p{Nd}+", "test").find_all("x\xF0\x90\xB5\x80\xF0\x90\xB5\x81y", m);  // U+10D40 U+10D41: GARAY DIGIT ZERO, ONE
  REQUIRE(m.size() == 1);
  CHECK(m[0].begin == 1);
  CHECK(m[0].end == 9);
  Regex("[[:graph:]]+", "test").find_all("\xF0\x90\xB5\x8A", m);  // U+10D4A GARAY VOWEL SIGN A (Lo, 16.0)
  CHECK(m.size() == 1);
  Regex("\\w", "test").find_all("\xF0\x90\xB5\x8A", m);  // \w: left to Oniguruma 6.9.8, Unicode 14.0
  CHECK(m.empty());
  Regex("(?i)\\p{L}", "test").find_all("\xF0\x90\xB5\x8A", m);  // left to Oniguruma 6.9.8: Unicode 14.0
  CHECK(m.empty());
}
