// PreTrainedTokenizer's methods as the HF slow classes run them (hf_impl.h), and where a
// class's ids, tokenize or convert_tokens_to_string differ, its Kind's case: transformers
// v4.44.2's tokenization_utils.py, tokenization_utils_base.py and models/*/tokenization_*.py.
#include <algorithm>

#include "embedpe/error.h"
#include "hf_impl.h"
#include "utf8.h"

namespace embedpe::detail {

using namespace hf;

std::string Impl::special_string(const char* attribute) const {
  const auto it = specials.find(attribute);
  return it == specials.end() || !it->second ? std::string() : it->second->token.content;
}

std::vector<const Special*> Impl::all_special_tokens_extended() const {
  std::vector<const Special*> out;
  std::set<std::string> seen;
  for (const char* a : kAttributes) {
    const auto it = specials.find(a);
    if (it == specials.end() || !it->second || it->second->token.content.empty()) continue;
    if (seen.insert(it->second->token.content).second) out.push_back(&*it->second);
  }
  for (const Special& s : additional_special_tokens) {
    if (seen.insert(s.token.content).second) out.push_back(&s);
  }
  return out;
}

std::set<std::string> Impl::all_special_tokens() const {
  std::set<std::string> out;
  for (const Special* s : all_special_tokens_extended()) out.insert(s->token.content);
  return out;
}

int Impl::vocab_size() const {
  const int n = sp.GetPieceSize();
  switch (kind) {
    case Kind::xlmr: return n + fairseq_offset + 1;
    case Kind::mbart:
    case Kind::mbart50: return n + static_cast<int>(lang_codes().size()) + fairseq_offset + 1;
    case Kind::nllb: return n + fairseq_offset;
    case Kind::m2m100:  // since v4.34 (its get_vocab is PreTrainedTokenizer's)
    case Kind::marian: return static_cast<int>(encoder.size());
    case Kind::deberta: return static_cast<int>(vocab.size());
    case Kind::pegasus: return n + offset;
    default: return n;
  }
}

int Impl::convert_token_to_id(const std::string& token) const {
  switch (kind) {
    case Kind::xlmr:
    case Kind::mbart:
    case Kind::mbart50: {
      if (const auto it = fairseq_tokens_to_ids.find(token); it != fairseq_tokens_to_ids.end()) return it->second;
      const int spm_id = sp.PieceToId(token);
      return spm_id ? spm_id + fairseq_offset : unk_token_id();
    }
    case Kind::nllb: {
      const int spm_id = sp.PieceToId(token);
      return spm_id ? spm_id + fairseq_offset : unk_token_id();
    }
    case Kind::camembert: {
      const int spm_id = sp.PieceToId(token);
      return spm_id == 0 ? unk_token_id() : fairseq_offset + spm_id;
    }
    case Kind::pegasus: return sp.PieceToId(token) + offset;
    case Kind::m2m100: {
      if (const auto it = lang_token_to_id.find(token); it != lang_token_to_id.end()) return it->second;
      [[fallthrough]];
    }
    case Kind::marian: {
      if (const auto it = encoder.find(token); it != encoder.end()) return it->second;
      return encoder.at(special_string("unk_token"));
    }
    default: return sp.PieceToId(token);
  }
}

std::string Impl::convert_id_to_token(int index) const {
  switch (kind) {
    case Kind::xlmr:
    case Kind::mbart:
    case Kind::mbart50:
      if (const auto it = fairseq_ids_to_tokens.find(index); it != fairseq_ids_to_tokens.end()) return it->second;
      return sp_piece(index - fairseq_offset);
    case Kind::nllb:
    case Kind::camembert: return sp_piece(index - fairseq_offset);
    case Kind::pegasus: return sp_piece(index < offset ? index : index - offset);
    case Kind::m2m100:
      if (const auto it = id_to_lang_token.find(index); it != id_to_lang_token.end()) return it->second;
      [[fallthrough]];
    case Kind::marian: {
      const auto it = decoder.find(index);
      return it != decoder.end() ? it->second : special_string("unk_token");
    }
    case Kind::deberta: return index < vocab_size() ? sp_piece(index) : special_string("unk_token");
    default: return sp_piece(index);
  }
}

std::string Impl::sp_piece(int id) const {
  if (id < 0 || id >= sp.GetPieceSize()) throw Error("piece id " + std::to_string(id) + " is out of range");
  return sp.IdToPiece(id);
}

std::string Impl::convert_ids_to_token(int index) const {
  if (const auto it = added_tokens_decoder.find(index); it != added_tokens_decoder.end()) return it->second.content;
  return convert_id_to_token(index);
}

int Impl::convert_token_to_id_with_added_voc(const std::string& token) const {
  if (const auto it = added_tokens_encoder.find(token); it != added_tokens_encoder.end()) return it->second;
  return convert_token_to_id(token);
}

std::unordered_map<std::string, int> Impl::get_vocab() const {
  std::unordered_map<std::string, int> v;
  switch (kind) {
    case Kind::marian: v = encoder; break;
    case Kind::deberta: v = vocab; break;
    default: {
      const int n = kind == Kind::camembert ? vocab_size() + fairseq_offset : vocab_size();
      v.reserve(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) v[convert_ids_to_token(i)] = i;
    }
  }
  for (const auto& [id, token] : added_tokens_decoder) v[token.content] = id;
  return v;
}

void Impl::add_special_tokens() {
  std::vector<Special> new_tokens;
  // `token not in self._added_tokens_encoder`: an AddedToken (tokenizers') never equals a str, so
  // every AddedToken special token is added again, at its index, replacing what was there.
  for (const Special* s : all_special_tokens_extended()) {
    if (!s->is_string || !added_tokens_encoder.count(s->token.content)) new_tokens.push_back(*s);
  }
  if (new_tokens.empty()) return;
  std::unordered_map<std::string, int> current_vocab = get_vocab();
  const int new_idx = static_cast<int>(current_vocab.size());
  int added = 0;
  const std::set<std::string> specials_now = all_special_tokens();
  for (Special s : new_tokens) {
    AddedToken token = s.token;
    if (token.content.empty()) continue;
    if (s.is_string) {
      if (added_tokens_encoder.count(token.content)) continue;
      token = AddedToken{token.content, false, false, false, true, false};
    } else {
      token.special = true;
    }
    int index;
    if (const auto it = current_vocab.find(token.content); it == current_vocab.end()) {
      index = new_idx + added++;
      current_vocab[token.content] = index;
    } else {
      index = it->second;
    }
    added_tokens_decoder[index] = token;
    added_tokens_encoder[token.content] = index;
  }
  (void)specials_now;
}

void Impl::update_trie() {
  trie_tokens.clear();
  for (const auto& [id, t] : added_tokens_decoder) trie_tokens.push_back(t.content);
  std::sort(trie_tokens.begin(), trie_tokens.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  trie_tokens.erase(std::unique(trie_tokens.begin(), trie_tokens.end()), trie_tokens.end());
}

std::vector<std::string> Impl::split(const std::string& text) const {
  std::vector<std::string> out;
  std::size_t start = 0, i = 0;
  while (i < text.size()) {
    const std::string* hit = nullptr;
    for (const std::string& t : trie_tokens) {
      if (!t.empty() && text.compare(i, t.size(), t) == 0) {
        hit = &t;
        break;
      }
    }
    if (!hit) {
      ++i;
      continue;
    }
    if (i > start) out.push_back(text.substr(start, i - start));
    out.push_back(*hit);
    i += hit->size();
    start = i;
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

std::vector<std::string> Impl::sp_encode(const std::string& text) const {
  std::vector<std::string> pieces;
  const auto status = sp.Encode(text, &pieces);
  if (!status.ok()) throw Error("SentencePiece could not encode a text: " + status.ToString());
  return pieces;
}

std::vector<std::string> Impl::base_tokenize(std::string text) const {
  if (has_do_lower_case && do_lower_case) {
    // specials (and normalized non-special added tokens) kept, the rest lowered char by char
    std::vector<std::string> keep;
    for (const std::string& s : all_special_tokens()) keep.push_back(s);
    for (const auto& [id, t] : added_tokens_decoder) {
      if (!t.special && t.normalized) keep.push_back(t.content);
    }
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
      const std::string* hit = nullptr;
      for (const std::string& k : keep) {  // re alternation: the first listed that matches
        if (!k.empty() && text.compare(i, k.size(), k) == 0) {
          hit = &k;
          break;
        }
      }
      if (hit) {
        out += *hit;
        i += hit->size();
        continue;
      }
      const std::size_t from = i;
      utf8::next(text, i);
      out += lower_each_char(std::string_view(text).substr(from, i - from));
    }
    text = std::move(out);
  }
  // split_special_tokens: no added token is split out (no_split_token is empty)
  std::vector<std::string> tokens = split_special_tokens ? std::vector<std::string>{text} : split(text);
  // as upstream's loop: the token as it is when reached (an earlier one may have emptied or
  // stripped it), left and right as they were before this token strips them
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (split_special_tokens || !added_tokens_encoder.count(tokens[i])) continue;
    const std::string token = tokens[i];
    const AddedToken& t = added_tokens_decoder.at(added_tokens_encoder.at(token));
    const std::optional<std::string> left = i > 0 ? std::optional(tokens[i - 1]) : std::nullopt;
    const std::optional<std::string> right = i + 1 < tokens.size() ? std::optional(tokens[i + 1]) : std::nullopt;
    const bool has_left = left && !left->empty(), has_right = right && !right->empty();
    if (t.rstrip && has_right) tokens[i + 1] = py_lstrip(*right);
    if (t.lstrip && has_left) tokens[i - 1] = py_rstrip(*left);
    if (t.single_word && has_left && left->back() != ' ') {
      tokens[i - 1] += token;
      tokens[i].clear();
    } else if (t.single_word && has_right && right->front() != ' ') {
      tokens[i] += *right;
      tokens[i + 1].clear();
    }
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].empty()) continue;
    if (!split_special_tokens && added_tokens_encoder.count(tokens[i])) {
      out.push_back(tokens[i]);
    } else {
      for (std::string& p : tokenize_segment(tokens[i])) out.push_back(std::move(p));
    }
  }
  return out;
}

std::vector<std::string> Impl::tokenize(const std::string& text) const {
  if (kind == Kind::codellama) return codellama_tokenize(text);
  if ((kind != Kind::t5 && kind != Kind::llama) || legacy || text.empty()) return base_tokenize(text);
  std::string t = replace_all(text, kUnderline, " ");
  if (add_prefix_space) t = std::string(kUnderline) + t;
  std::vector<std::string> tokens = base_tokenize(t);
  if (tokens.size() > 1 && tokens[0] == kUnderline && all_special_tokens().count(tokens[1])) {
    tokens.erase(tokens.begin());
  }
  return tokens;
}

std::vector<std::string> Impl::codellama_tokenize(const std::string& text) const {
  std::string prefix = text;
  std::optional<std::string> suffix;
  if (const std::size_t at = fill_token.empty() ? std::string::npos : text.find(fill_token); at != std::string::npos) {
    if (text.find(fill_token, at + fill_token.size()) != std::string::npos) {
      throw UsageError("a text holds " + fill_token + " more than once; CodeLlamaTokenizer takes prefix" + fill_token +
                       "suffix");
    }
    prefix = text.substr(0, at);
    suffix = text.substr(at + fill_token.size());
  }
  if (!prefix.empty()) prefix = std::string(kUnderline) + replace_all(prefix, kUnderline, " ");
  if (!suffix || suffix->empty()) {
    std::vector<std::string> tokens = base_tokenize(prefix);
    if (tokens.size() > 1 && tokens[0] == kUnderline && all_special_tokens().count(tokens[1])) tokens.erase(tokens.begin());
    return tokens;
  }
  if (prefix_token.empty() || middle_token.empty() || suffix_token.empty()) {
    throw UsageError("a text holds " + fill_token + " (an infilling prompt), but this CodeLlamaTokenizer has no "
                "prefix, middle and suffix tokens");
  }
  std::vector<std::string> out{prefix_token};
  for (std::string& t : tokenize_segment(prefix)) out.push_back(std::move(t));
  out.push_back(suffix_token);
  for (std::string& t : tokenize_segment(*suffix)) out.push_back(std::move(t));
  out.push_back(middle_token);
  return out;
}

std::string Impl::preprocess_text(const std::string& inputs) const {
  std::string outputs = remove_space ? py_join_split(py_strip(inputs)) : inputs;
  outputs = replace_all(replace_all(outputs, "``", "\""), "''", "\"");
  if (!keep_accents) outputs = nfkd_without_combining(outputs);
  if (do_lower_case) outputs = icu_lower(outputs);
  return outputs;
}

std::vector<std::string> Impl::tokenize_segment(const std::string& text) const {
  switch (kind) {
    case Kind::t5:
    case Kind::llama:
    case Kind::codellama: {
      if (legacy || !(text.rfind(kUnderline, 0) == 0 || text.rfind(" ", 0) == 0)) return sp_encode(text);
      const std::string unk = special_string("unk_token");
      std::vector<std::string> tokens = sp_encode(unk + text);
      const std::size_t unk_token_length = sp_encode(unk).size();
      if (tokens.size() >= unk_token_length) tokens.erase(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(unk_token_length));
      return tokens;
    }
    case Kind::albert:
    case Kind::xlnet: {
      const std::vector<std::string> pieces = sp_encode(preprocess_text(text));
      std::vector<std::string> new_pieces;
      for (const std::string& piece : pieces) {
        const auto cs = chars(piece);
        if (cs.size() > 1 && cs.back() == U',' && py_isdigit(cs[cs.size() - 2])) {
          std::vector<std::string> cur = sp_encode(replace_all(utf8(cs, 0, cs.size() - 1), kUnderline, ""));
          if (piece.rfind(kUnderline, 0) != 0 && !cur.empty() && cur[0].rfind(kUnderline, 0) == 0) {
            if (cur[0] == kUnderline) {
              cur.erase(cur.begin());
            } else {
              cur[0] = cur[0].substr(kUnderline.size());
            }
          }
          cur.emplace_back(",");
          for (auto& c : cur) new_pieces.push_back(std::move(c));
        } else {
          new_pieces.push_back(piece);
        }
      }
      return new_pieces;
    }
    case Kind::deberta: {
      const std::string lowered = do_lower_case ? icu_lower(text) : text;
      if (!split_by_punct) return sp_encode(lowered);
      std::vector<std::string> pieces;  // SPMTokenizer._encode_as_pieces: each word alone
      for (const std::string& word : run_split_on_punc(lowered)) {
        for (std::string& p : sp_encode(word)) pieces.push_back(std::move(p));
      }
      return pieces;
    }
    case Kind::marian: {
      // remove_language_code: re ">>.+<<" (greedy, no newline), the first match at the
      // start kept as a token, every match removed from the text.
      std::vector<std::string> code;
      std::string rest;
      std::size_t i = 0;
      bool first = true;
      while (i < text.size()) {
        const std::size_t open = text.find(">>", i);
        if (open == std::string::npos) break;
        const std::size_t line_end = std::min(text.find('\n', open), text.size());
        const std::size_t close = line_end >= open + 5 ? text.rfind("<<", line_end - 2) : std::string::npos;
        if (close == std::string::npos || close < open + 3) {
          rest += text.substr(i, open + 1 - i);
          i = open + 1;
          first = false;
          continue;
        }
        if (first && open == 0) code.push_back(text.substr(0, close + 2));
        first = false;
        rest += text.substr(i, open - i);
        i = close + 2;
      }
      rest += text.substr(std::min(i, text.size()));
      std::vector<std::string> pieces = sp_encode(rest);
      code.insert(code.end(), pieces.begin(), pieces.end());
      return code;
    }
    default: return sp_encode(text);
  }
}

// convert_tokens_to_string of each class
std::string Impl::convert_tokens_to_string(std::vector<std::string> tokens,
                                                        const std::set<std::string>& special_tokens) const {
  const sentencepiece::SentencePieceProcessor& model = decoding_model();
  auto sp_decode = [&](const std::vector<std::string>& pieces) {
    std::string out;
    if (!model.Decode(pieces, &out).ok()) throw Error("cannot decode pieces");
    return out;
  };
  // Runs of pieces decoded by SentencePiece, each special token kept as it is with `after` behind
  // it: the loop of the classes whose _decode joins specials without sp_model (CodeLlama, Marian,
  // M2M100, Pegasus).
  auto join_specials = [&](const std::vector<std::string>& pieces, const char* after) {
    std::string out;
    std::vector<std::string> cur;
    for (const auto& t : pieces) {
      if (special_tokens.count(t)) {
        out += sp_decode(cur) + t + after;
        cur.clear();
      } else {
        cur.push_back(t);
      }
    }
    return out + sp_decode(cur);
  };
  switch (kind) {
    case Kind::xlmr:
    case Kind::mbart:
    case Kind::nllb: {
      std::string joined;
      for (const auto& t : tokens) joined += t;
      return py_strip(replace_all(joined, kUnderline, " "));
    }
    case Kind::xlnet: {
      std::string joined;
      for (const auto& t : tokens) joined += t;
      return py_strip(replace_all(joined, kUnderline, " "));
    }
    case Kind::llama: {
      if (!tokens.empty() && tokens[0].rfind(kUnderline, 0) == 0 && add_prefix_space) tokens[0] = tokens[0].substr(kUnderline.size());
      std::string out;
      std::vector<std::string> cur;
      bool prev_is_special = false;
      for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (special_tokens.count(tokens[i])) {
          if (!prev_is_special && i != 0 && legacy) out += " ";
          out += sp_decode(cur) + tokens[i];
          prev_is_special = true;
          cur.clear();
        } else {
          if (prev_is_special && i == 1 && add_prefix_space && tokens[i].rfind(kUnderline, 0) != 0) out += " ";
          cur.push_back(tokens[i]);
          prev_is_special = false;
        }
      }
      return out + sp_decode(cur);
    }
    case Kind::codellama: {  // the first token's ▁ dropped, specials joined without spaces, no strip
      if (tokens[0].rfind(kUnderline, 0) == 0) tokens[0] = tokens[0].substr(kUnderline.size());
      return join_specials(tokens, "");
    }
    case Kind::marian:
      return py_strip(replace_all(join_specials(tokens, " "), kUnderline, " "));
    case Kind::m2m100:
    case Kind::pegasus:
      return py_strip(join_specials(tokens, ""));
    default: {  // T5, ALBERT, CamemBERT, mBART-50, DeBERTa-v2
      if (kind == Kind::t5 && !tokens.empty() && tokens[0].rfind(kUnderline, 0) == 0 && add_prefix_space) {
        tokens[0] = tokens[0].substr(kUnderline.size());
      }
      std::string out;
      std::vector<std::string> cur;
      bool prev_is_special = false;
      for (const auto& t : tokens) {
        if (special_tokens.count(t)) {
          if (!prev_is_special) out += " ";
          out += sp_decode(cur) + t;
          prev_is_special = true;
          cur.clear();
        } else {
          cur.push_back(t);
          prev_is_special = false;
        }
      }
      return py_strip(out + sp_decode(cur));
    }
  }
}

}  // namespace embedpe::detail
