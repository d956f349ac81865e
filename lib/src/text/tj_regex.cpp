#include "tj_regex.h"

#include <oniguruma.h>

#include <algorithm>
#include <mutex>

#include "embedpe/error.h"
#include "tj_regex_fast.h"

namespace embedpe::tj {

struct Regex::Impl {
  regex_t* regex = nullptr;
  ~Impl() {
    if (regex) onig_free(regex);
  }
};

void initialize_oniguruma() {
  static std::once_flag once;
  std::call_once(once, [] {
    OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
  });
}

namespace {

regex_t* compile(const std::string& pattern, OnigErrorInfo& info, int& rc) {
  regex_t* regex = nullptr;
  const auto* begin = reinterpret_cast<const OnigUChar*>(pattern.data());
  rc = onig_new(&regex, begin, begin + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_DEFAULT, &info);
  return rc == ONIG_NORMAL ? regex : nullptr;
}

std::string message(int rc, OnigErrorInfo* info) {
  OnigUChar text[ONIG_MAX_ERROR_MESSAGE_LEN];
  if (info) {
    onig_error_code_to_str(text, rc, info);
  } else {
    onig_error_code_to_str(text, rc);
  }
  return reinterpret_cast<const char*>(text);
}

}  // namespace

Regex::Regex(std::string_view pattern, const std::string& field) : impl_(std::make_unique<Impl>()), pattern_(pattern) {
  initialize_oniguruma();
  // The file's own pattern first, for Oniguruma's verdict and message on it; then, when it has
  // Unicode classes, the same pattern with Unicode 16.0's classes spelled out (tj_regex_unicode.cpp).
  OnigErrorInfo info;
  int rc = 0;
  impl_->regex = compile(pattern_, info, rc);
  if (!impl_->regex) {
    throw UsageError(field + ": the regular expression does not compile (Oniguruma: " + message(rc, &info) + ")");
  }
  std::string rewritten = rewrite_unicode_classes(pattern_);
  if (rewritten != pattern_) {
    regex_t* unicode16 = compile(rewritten, info, rc);
    if (!unicode16) {
      throw Error(field + ": the regular expression with Unicode 16.0's classes does not compile (Oniguruma: " +
                  message(rc, &info) + ")");
    }
    onig_free(impl_->regex);
    impl_->regex = unicode16;
    compiled_ = std::move(rewritten);
  }
  fast_ = fast_splitter(pattern_);
}

Regex Regex::literal(std::string_view literal, const std::string& field) {
  // regex::escape's set of meta characters, each escaped with a backslash.
  static constexpr std::string_view kMeta = "\\.+*?()|[]{}^$#&-~";
  std::string escaped;
  for (char c : literal) {
    if (kMeta.find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return Regex(escaped, field);
}

Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;
Regex::~Regex() = default;

const char* Regex::fast_path() const { return fast_ ? fast_->name : ""; }

void Regex::find_all(std::string_view text, std::vector<Match>& out) const {
  if (fast_) {
    fast_->find_all(text, out);
  } else {
    find_all_oniguruma(text, out);
  }
}

void Regex::replace_all(std::string& text, std::string_view content, std::uint32_t* lead) const {
  if (text.empty()) return;
  thread_local std::vector<Match> matches;
  find_all(text, matches);
  if (matches.empty()) return;
  if (lead) {
    const std::size_t in = *lead;
    std::size_t out = 0, last = 0;
    bool open = true;
    for (const Match& m : matches) {
      if (m.begin > last) {  // the text between keeps its alignments
        if (last >= in) {
          open = false;
          break;
        }
        out += std::min(m.begin, in) - last;
        if (m.begin > in) {
          open = false;
          break;
        }
      }
      if (!content.empty()) {
        if (m.end > in) {
          open = false;
          break;
        }
        out += content.size();
      }
      last = m.end;
    }
    if (open && last < in) out += std::min(text.size(), in) - last;
    *lead = static_cast<std::uint32_t>(out);
  }
  std::string out;
  std::size_t last = 0;
  for (const Match& m : matches) {
    out.append(text, last, m.begin - last);
    out += content;
    last = m.end;
  }
  out.append(text, last);
  text = std::move(out);
}

void Regex::find_all_oniguruma(std::string_view text, std::vector<Match>& out) const {
  out.clear();
  struct RegionFree {
    void operator()(OnigRegion* r) const { onig_region_free(r, 1); }
  };
  thread_local std::unique_ptr<OnigRegion, RegionFree> region(onig_region_new());
  const auto* str = reinterpret_cast<const OnigUChar*>(text.data());
  const auto* end = str + text.size();
  std::size_t last_end = 0;
  bool have_last = false;
  std::size_t last_match_end = 0;
  while (last_end <= text.size()) {
    onig_region_clear(region.get());
    const int r = onig_search(impl_->regex, str, end, str + last_end, end, region.get(), ONIG_OPTION_NONE);
    if (r == ONIG_MISMATCH) break;
    if (r < 0) {
      throw Error(std::string("the regular expression ") + pattern_ + " failed on a text (Oniguruma: " +
                  message(r, nullptr) + ")");
    }
    const auto s = static_cast<std::size_t>(region->beg[0]), e = static_cast<std::size_t>(region->end[0]);
    if (s == e && have_last && last_match_end == e) {
      // One character on (UTF-8: its lead byte says how long), or one byte at the end.
      std::size_t step = 1;
      if (last_end < text.size()) {
        const auto lead = static_cast<unsigned char>(text[last_end]);
        step = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
      }
      last_end += step;
      continue;
    }
    last_end = e;
    have_last = true;
    last_match_end = e;
    out.push_back({s, e});
  }
}

}  // namespace embedpe::tj
