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

namespace {

// One pass over a pattern: the state rewrite_unicode_classes follows.
class Rewriter {
 public:
  explicit Rewriter(std::string_view p) : p_(p) { out_.reserve(p.size()); }

  // The rewritten pattern, or nullopt when the pattern is not followed.
  std::optional<std::string> run() {
    for (std::size_t i = 0; i < p_.size();) {
      const char c = p_[i];
      std::optional<std::size_t> next;
      if (c == '\\') {
        next = escape(i);
      } else if (depth_ > 0) {
        next = in_class(i);
      } else if (c == '[') {
        depth_ = 1;
        next = open_class(i);
      } else if (c == '(') {
        next = group(i);
      } else {
        if (c == ')' && !groups_.empty()) {
          plain_ = groups_.back();
          groups_.pop_back();
        }
        out_ += c;
        next = i + 1;
      }
      if (!next) return std::nullopt;
      i = *next;
    }
    return out_;
  }

 private:
  using Ranges = std::optional<std::vector<std::pair<char32_t, char32_t>>>;

  // The construct p[i, end): its class, or itself when it cannot be rewritten.
  void put(std::size_t i, std::size_t end, const Ranges& set, bool negated) {
    // In a class, a construct next to '-' is a range's end: Oniguruma refuses it; keep it so.
    const bool dash = depth_ > 0 && (after_dash_ || (end < p_.size() && p_[end] == '-'));
    const std::string cls = set && plain_ && !dash ? class_of(*set, negated) : "";
    if (cls.empty()) {
      out_.append(p_.substr(i, end - i));
    } else {
      out_ += cls;
    }
    class_start_ = false;
    after_dash_ = false;
  }

  std::optional<std::size_t> escape(std::size_t i) {
    if (i + 1 >= p_.size()) return std::nullopt;
    const char d = p_[i + 1];
    // \cX, \C-X, \M-X take the character after them as theirs: not followed here.
    if (d == 'c' || d == 'C' || d == 'M') return std::nullopt;
    if ((d == 'p' || d == 'P') && i + 2 < p_.size() && p_[i + 2] == '{') {
      const std::size_t close = p_.find('}', i + 3);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view name = p_.substr(i + 3, close - i - 3);
      bool negated = d == 'P';
      if (!name.empty() && name[0] == '^') {
        negated = !negated;
        name.remove_prefix(1);
      }
      put(i, close + 1, unicode16_property(name), negated);
      return close + 1;
    }
    if (d == 'd' || d == 'D') {
      put(i, i + 2, unicode16_property("digit"), d == 'D');
      return i + 2;
    }
    out_.append(p_.substr(i, 2));  // any other escape: itself (a multibyte character's tail bytes follow as they are)
    class_start_ = false;
    after_dash_ = false;
    return i + 2;
  }

  std::size_t open_class(std::size_t i) {
    out_ += '[';
    ++i;
    class_start_ = true;
    after_dash_ = false;
    if (i < p_.size() && p_[i] == '^') out_ += p_[i++];
    return i;
  }

  std::optional<std::size_t> in_class(std::size_t i) {
    const char c = p_[i];
    if (c == '[' && i + 1 < p_.size() && p_[i + 1] == ':') return posix_bracket(i);
    if (c == '[') {
      ++depth_;
      return open_class(i);
    }
    if (c == ']' && !class_start_) --depth_;
    out_ += c;
    after_dash_ = c == '-' && !class_start_;
    class_start_ = false;
    return i + 1;
  }

  // A POSIX bracket [:name:] or [:^name:] at i.
  std::optional<std::size_t> posix_bracket(std::size_t i) {
    std::size_t j = i + 2;
    const bool negated = j < p_.size() && p_[j] == '^';
    if (negated) ++j;
    const std::size_t start = j;
    while (j < p_.size() && p_[j] >= 'a' && p_[j] <= 'z') ++j;
    if (j + 1 >= p_.size() || p_[j] != ':' || p_[j + 1] != ']' || j == start) return std::nullopt;
    const std::string_view name = p_.substr(start, j - start);
    static constexpr std::string_view kKnown[] = {"alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower",
                                                  "print", "punct", "space", "upper", "xdigit", "word", "ascii"};
    bool known = false;
    for (std::string_view k : kKnown) known = known || k == name;
    if (!known) return std::nullopt;  // Oniguruma refuses it
    // Only these are spelled out (their Oniguruma definitions checked by test_tj_regex.cpp); the
    // rest are left to Oniguruma: alpha, alnum, word, lower (Oniguruma's own definitions),
    // punct, space, xdigit, ascii, blank.
    const bool ours = name == "digit" || name == "cntrl" || name == "graph" || name == "print" || name == "upper";
    put(i, j + 2, ours ? unicode16_property(name) : std::nullopt, negated);
    return j + 2;
  }

  std::optional<std::size_t> group(std::size_t i) {
    // Callouts, (?{...}) and (*name...), hold free text (a ')' in it would end no group): the
    // pattern is left whole.
    if (i + 1 < p_.size() && (p_[i + 1] == '*' || p_.substr(i + 1, 2) == "?{")) return std::nullopt;
    if (i + 1 < p_.size() && p_[i + 1] == '?') {
      if (i + 2 < p_.size() && p_[i + 2] == '#') {  // a comment, to its ')'
        const std::size_t close = p_.find(')', i + 3);
        if (close == std::string_view::npos) return std::nullopt;
        if (p_.substr(i, close - i).find('\\') != std::string_view::npos) return std::nullopt;
        out_.append(p_.substr(i, close + 1 - i));
        return close + 1;
      }
      std::size_t j = i + 2;
      bool on = true, turns_on = false;
      while (j < p_.size() && (is_letter(p_[j]) || p_[j] == '-')) {
        if (p_[j] == '-') {
          on = false;
        } else if (on) {
          if (p_[j] == 'x') return std::nullopt;  // extended syntax: spaces and # comments are not followed here
          if (p_[j] != 'm') turns_on = true;
        }
        ++j;
      }
      if (j > i + 2) {  // options
        if (j >= p_.size() || (p_[j] != ')' && p_[j] != ':')) return std::nullopt;
        if (p_[j] == ':') groups_.push_back(plain_);
        if (turns_on) plain_ = false;  // to the end of the group (':' form: of the new one)
        out_.append(p_.substr(i, j + 1 - i));
        return j + 1;
      }
    }
    groups_.push_back(plain_);
    out_ += '(';
    return i + 1;
  }

  std::string_view p_;
  std::string out_;
  std::vector<bool> groups_;  // each open group's `plain_` outside it
  bool plain_ = true;         // no option but m is on here: the classes mean what the tables say
  int depth_ = 0;             // character class nesting
  bool class_start_ = false;  // right after '[' or "[^": a ']' is a literal
  bool after_dash_ = false;   // in a class, right after an unescaped '-'
};

}  // namespace

std::string rewrite_unicode_classes(std::string_view p) {
  std::optional<std::string> out = Rewriter(p).run();
  return out ? *std::move(out) : std::string(p);
}

}  // namespace embedpe::tj
