// Patterns rewritten so that Debian's Oniguruma (6.9.8, Unicode 14.0) answers their Unicode
// classes as HF tokenizers' Oniguruma (6.9.10, Unicode 16.0) does: each class construct it knows
// becomes an explicit class of Unicode 16.0 code point ranges (tj_ucd.h). See tj_regex.h.
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tj_regex.h"
#include "tj_ucd.h"

namespace embedpe::tj {

namespace {

using ucd::RangeSet;

std::uint32_t bits(std::initializer_list<ucd::Gc> gcs) {
  std::uint32_t m = 0;
  for (ucd::Gc g : gcs) m |= 1u << g;
  return m;
}

constexpr std::uint32_t kAllGc = (1u << ucd::kGcCount) - 1;

// The general category groups, as masks of categories.
std::optional<std::uint32_t> category_mask(std::string_view n) {
  using namespace ucd;
  struct Name {
    std::string_view a, b;  // short, long (normalized: lowercase, no '_')
    std::uint32_t mask;
  };
  static const std::vector<Name> names = {
      {"c", "other", bits({Cc, Cf, Cn, Co, Cs})},
      {"cc", "control", bits({Cc})},
      {"cf", "format", bits({Cf})},
      {"cn", "unassigned", bits({Cn})},
      {"co", "privateuse", bits({Co})},
      {"cs", "surrogate", bits({Cs})},
      {"l", "letter", bits({Ll, Lm, Lo, Lt, Lu})},
      {"lc", "casedletter", bits({Ll, Lt, Lu})},
      {"ll", "lowercaseletter", bits({Ll})},
      {"lm", "modifierletter", bits({Lm})},
      {"lo", "otherletter", bits({Lo})},
      {"lt", "titlecaseletter", bits({Lt})},
      {"lu", "uppercaseletter", bits({Lu})},
      {"m", "mark", bits({Mc, Me, Mn})},
      {"m", "combiningmark", bits({Mc, Me, Mn})},
      {"mc", "spacingmark", bits({Mc})},
      {"me", "enclosingmark", bits({Me})},
      {"mn", "nonspacingmark", bits({Mn})},
      {"n", "number", bits({Nd, Nl, No})},
      {"nd", "decimalnumber", bits({Nd})},
      {"nl", "letternumber", bits({Nl})},
      {"no", "othernumber", bits({No})},
      {"p", "punctuation", bits({Pc, Pd, Pe, Pf, Pi, Po, Ps})},
      {"pc", "connectorpunctuation", bits({Pc})},
      {"pd", "dashpunctuation", bits({Pd})},
      {"pe", "closepunctuation", bits({Pe})},
      {"pf", "finalpunctuation", bits({Pf})},
      {"pi", "initialpunctuation", bits({Pi})},
      {"po", "otherpunctuation", bits({Po})},
      {"ps", "openpunctuation", bits({Ps})},
      {"s", "symbol", bits({Sc, Sk, Sm, So})},
      {"sc", "currencysymbol", bits({Sc})},
      {"sk", "modifiersymbol", bits({Sk})},
      {"sm", "mathsymbol", bits({Sm})},
      {"so", "othersymbol", bits({So})},
      {"z", "separator", bits({Zl, Zp, Zs})},
      {"zl", "lineseparator", bits({Zl})},
      {"zp", "paragraphseparator", bits({Zp})},
      {"zs", "spaceseparator", bits({Zs})},
  };
  for (const Name& name : names)
    if (n == name.a || n == name.b) return name.mask;
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<std::pair<char32_t, char32_t>>> unicode16_property(std::string_view raw) {
  // Oniguruma's normalization of a property name: case, spaces, '-' and '_' do not count.
  std::string n;
  for (char c : raw) {
    if (c == ' ' || c == '-' || c == '_') continue;
    n += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  RangeSet set;
  if (const auto mask = category_mask(n)) {
    set = ucd::categories(*mask);
  } else if (n == "upper" || n == "uppercase") {
    set = ucd::ranges(ucd::kUppercase, ucd::kUppercaseCount);
  } else if (n == "digit") {
    set = ucd::categories(bits({ucd::Nd}));
  } else if (n == "cntrl") {
    set = ucd::categories(bits({ucd::Cc}));
  } else if (n == "graph" || n == "print") {
    // Everything but White_Space, Cc, Cs and Cn; Print adds Zs back.
    RangeSet not_graph = ucd::set_union(ucd::ranges(ucd::kWhiteSpace, ucd::kWhiteSpaceCount),
                                        ucd::categories(bits({ucd::Cc, ucd::Cs, ucd::Cn})));
    set = ucd::complement(not_graph);
    if (n == "print") set = ucd::set_union(set, ucd::categories(bits({ucd::Zs})));
  } else if (n == "assigned") {
    set = ucd::categories(kAllGc & ~bits({ucd::Cn}));
  } else {
    return std::nullopt;
  }
  std::vector<std::pair<char32_t, char32_t>> out;
  out.reserve(set.size());
  for (const ucd::Range& r : set) out.emplace_back(r.first, r.last);
  return out;
}

namespace {

// "[...]": the set (or its complement) as a class of ranges; "" when it would be empty.
std::string class_of(const std::vector<std::pair<char32_t, char32_t>>& ranges, bool negated) {
  RangeSet set;
  for (const auto& [a, b] : ranges) set.push_back({a, b});
  if (negated) set = ucd::complement(set);
  if (set.empty()) return "";
  std::string out = "[";
  char buf[32];
  for (const ucd::Range& r : set) {
    if (r.first == r.last) {
      std::snprintf(buf, sizeof buf, "\\x{%X}", static_cast<unsigned>(r.first));
    } else {
      std::snprintf(buf, sizeof buf, "\\x{%X}-\\x{%X}", static_cast<unsigned>(r.first), static_cast<unsigned>(r.last));
    }
    out += buf;
  }
  out += ']';
  return out;
}

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

std::string rewrite_unicode_classes(std::string_view p) {
  const std::string unchanged(p);
  std::string out;
  out.reserve(p.size());
  std::vector<bool> groups;  // each open group's `plain` outside it
  bool plain = true;         // no option but m is on here: the classes mean what the tables say
  int depth = 0;             // character class nesting
  bool class_start = false;  // right after '[' or "[^": a ']' is a literal
  bool after_dash = false;   // in a class, right after an unescaped '-'
  // A construct p[i, end) in the current context: its class, or itself when it cannot be rewritten.
  const auto put = [&](std::size_t i, std::size_t end, const std::optional<std::vector<std::pair<char32_t, char32_t>>>& set,
                       bool negated) {
    // In a class, a construct next to '-' is a range's end: Oniguruma refuses it; keep it so.
    const bool dash = depth > 0 && (after_dash || (end < p.size() && p[end] == '-'));
    std::string cls = set && plain && !dash ? class_of(*set, negated) : "";
    if (cls.empty()) {
      out.append(p.substr(i, end - i));
    } else {
      out += cls;
    }
    class_start = false;
    after_dash = false;
  };
  for (std::size_t i = 0; i < p.size();) {
    const char c = p[i];
    if (c == '\\') {
      if (i + 1 >= p.size()) return unchanged;
      const char d = p[i + 1];
      // \cX, \C-X, \M-X take the character after them as theirs: not followed here.
      if (d == 'c' || d == 'C' || d == 'M') return unchanged;
      if ((d == 'p' || d == 'P') && i + 2 < p.size() && p[i + 2] == '{') {
        const std::size_t close = p.find('}', i + 3);
        if (close == std::string_view::npos) return unchanged;
        std::string_view name = p.substr(i + 3, close - i - 3);
        bool negated = d == 'P';
        if (!name.empty() && name[0] == '^') {
          negated = !negated;
          name.remove_prefix(1);
        }
        put(i, close + 1, unicode16_property(name), negated);
        i = close + 1;
        continue;
      }
      if (d == 'd' || d == 'D') {
        put(i, i + 2, unicode16_property("digit"), d == 'D');
        i += 2;
        continue;
      }
      out.append(p.substr(i, 2));  // any other escape: itself (a multibyte character's tail bytes follow as they are)
      i += 2;
      class_start = false;
      after_dash = false;
      continue;
    }
    if (depth > 0) {
      if (c == '[' && i + 1 < p.size() && p[i + 1] == ':') {
        // A POSIX bracket [:name:] or [:^name:].
        std::size_t j = i + 2;
        const bool negated = j < p.size() && p[j] == '^';
        if (negated) ++j;
        const std::size_t start = j;
        while (j < p.size() && p[j] >= 'a' && p[j] <= 'z') ++j;
        if (j + 1 >= p.size() || p[j] != ':' || p[j + 1] != ']' || j == start) return unchanged;
        const std::string_view name = p.substr(start, j - start);
        const bool known = name == "alnum" || name == "alpha" || name == "blank" || name == "cntrl" ||
                           name == "digit" || name == "graph" || name == "lower" || name == "print" ||
                           name == "punct" || name == "space" || name == "upper" || name == "xdigit" ||
                           name == "word" || name == "ascii";
        if (!known) return unchanged;  // Oniguruma refuses it
        // Only these are spelled out (their Oniguruma definitions checked by test_tj_regex.cpp); the
        // rest are left to Oniguruma: alpha, alnum, word, lower (Oniguruma's own definitions),
        // punct, space, xdigit, ascii, blank.
        const bool ours = name == "digit" || name == "cntrl" || name == "graph" || name == "print" || name == "upper";
        put(i, j + 2, ours ? unicode16_property(name) : std::nullopt, negated);
        i = j + 2;
        continue;
      }
      if (c == '[') {
        ++depth;
        out += c;
        ++i;
        class_start = true;
        after_dash = false;
        if (i < p.size() && p[i] == '^') out += p[i++];
        continue;
      }
      if (c == ']' && !class_start) {
        --depth;
      }
      out += c;
      after_dash = c == '-' && !class_start;
      class_start = false;
      ++i;
      continue;
    }
    if (c == '[') {
      depth = 1;
      out += c;
      ++i;
      class_start = true;
      after_dash = false;
      if (i < p.size() && p[i] == '^') out += p[i++];
      continue;
    }
    if (c == '(') {
      if (i + 1 < p.size() && p[i + 1] == '?') {
        if (i + 2 < p.size() && p[i + 2] == '#') {  // a comment, to its ')'
          const std::size_t close = p.find(')', i + 3);
          if (close == std::string_view::npos) return unchanged;
          if (p.substr(i, close - i).find('\\') != std::string_view::npos) return unchanged;
          out.append(p.substr(i, close + 1 - i));
          i = close + 1;
          continue;
        }
        std::size_t j = i + 2;
        bool on = true, turns_on = false;
        while (j < p.size() && (is_letter(p[j]) || p[j] == '-')) {
          if (p[j] == '-') {
            on = false;
          } else if (on) {
            if (p[j] == 'x') return unchanged;  // extended syntax: spaces and # comments are not followed here
            if (p[j] != 'm') turns_on = true;
          }
          ++j;
        }
        if (j > i + 2) {  // options
          if (j >= p.size() || (p[j] != ')' && p[j] != ':')) return unchanged;
          if (p[j] == ':') groups.push_back(plain);
          if (turns_on) plain = false;  // to the end of the group (':' form: of the new one)
          out.append(p.substr(i, j + 1 - i));
          i = j + 1;
          continue;
        }
      }
      groups.push_back(plain);
      out += c;
      ++i;
      continue;
    }
    if (c == ')' && !groups.empty()) {
      plain = groups.back();
      groups.pop_back();
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace embedpe::tj
