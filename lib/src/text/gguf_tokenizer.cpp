// tokenizer.ggml.* of a GGUF file: the ids llama.cpp gives for a text, and
// the vocabulary as a SentencePiece ModelProto for the ids' pieces and decode.
//
// What the keys mean follows llama.cpp at commit
// c392e5094deaf2d1a7c18683214f007fad3fe42b (the one tools/make_gguf_llamacpp_files.py
// converts and tokenizes with). convert_hf_to_gguf.py writes every piece of the
// model's tokenizer.model with its score and type (llama_token_type, numbered
// as sentencepiece's ModelProto.SentencePiece.Type); added_tokens.json's tokens
// as USER_DEFINED; tokenizer_config.json's added_tokens_decoder entries marked
// special (<unk> and <s> included) as CONTROL, the others as USER_DEFINED; and
// ids the config's vocab_size has beyond the tokenizer as "[PADn]" fillers,
// UNUSED. The unknown id is tokenizer.ggml.unknown_token_id (default 0),
// whatever its piece's type. src/llama-vocab.cpp reads "llama" as an SPM
// vocabulary with BOS 1, EOS 2, UNK 0, no PAD, add_bos true, add_eos false
// and add_space_prefix true unless the file's keys say otherwise, and
// tokenizes a text (llama_tokenize with parse_special false, as embedpe reads
// text as text) so:
//  - tokenizer_st_partition: each USER_DEFINED piece, longest first, is cut
//    out of the text wherever it occurs, left to right; CONTROL and UNKNOWN
//    pieces are not (parse_special is false), nor are UNUSED ones;
//  - each remaining run of text gets a leading space when add_space_prefix
//    and it is the first run or follows a cut-out piece, then every ' '
//    becomes U+2581 (llama_escape_whitespace);
//  - llm_tokenizer_spm_session: the run's UTF-8 characters are merged in
//    pairs, the pair whose joined text is a piece of the highest score first
//    (the leftmost on a tie); a pair joins into any piece, whatever its type;
//  - each final symbol that is a piece gives its id, any other gives one id
//    per byte: <0xNN>, else the byte itself as a piece (llama.cpp throws when
//    neither exists; so does embedpe, naming the file).
// So UNUSED "[PADn]" fillers and CONTROL pieces come from text only if a
// chain of pieces merges into their text. Where this differs from the model
// directory's HF tokenizer (a USER_DEFINED token's neighbours get llama.cpp's
// leading space; Gemma's file has add_space_prefix false), embedpe gives
// llama.cpp's ids: the file is llama.cpp's, and the ids llama.cpp gives are
// the ones its table is indexed by when the model runs there.
// One choice where llama.cpp's order is unspecified: pieces of the same
// length are cut out in id order (llama.cpp's std::sort is not stable; two
// such pieces compete only when they overlap in the text).
#include "gguf_tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <queue>

#include "byte_piece.h"
#include "core/utf8.h"
#include "embedpe/error.h"
#include "gguf.h"
#include "protobuf_fields.h"

namespace embedpe {

namespace {

using protobuf::Field;

void put_varint(std::string& m, std::uint32_t number, std::uint64_t v) {
  protobuf::append(m, Field{number, protobuf::kVarint, v, {}});
}
void put_int(std::string& m, std::uint32_t number, std::int64_t v) {
  put_varint(m, number, static_cast<std::uint64_t>(v));  // int32: negative values sign-extended, as protobuf does
}
void put_bytes(std::string& m, std::uint32_t number, std::string_view bytes) {
  protobuf::append(m, Field{number, protobuf::kLengthDelimited, 0, bytes});
}
void put_float(std::string& m, std::uint32_t number, float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  protobuf::append(m, Field{number, protobuf::kFixed32, bits, {}});
}

// unicode_len_utf8: a character's length from its first byte (a stray
// continuation byte counts as one).
std::size_t utf8_length(unsigned char c) {
  static constexpr std::uint8_t kLengths[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLengths[c >> 4];
}

}  // namespace

int GgufVocab::byte_id(unsigned char byte) const {
  const int id = byte_ids_[byte];
  if (id < 0) {
    throw UsageError(source_ + ": the text has a byte (" + std::string(byte_piece::Piece(byte).view()) +
                     ") that no piece covers: the vocabulary has neither a byte piece for it nor the byte itself");
  }
  return id;
}

// llm_tokenizer_spm_session::tokenize on one run of text (already escaped).
void GgufVocab::add_fragment(std::string_view text, bool space_prefix, std::vector<int>& out) const {
  std::string escaped;
  escaped.reserve(text.size() + 3);
  if (space_prefix) escaped += "\xE2\x96\x81";
  for (char c : text) {
    if (c == ' ') {
      escaped += "\xE2\x96\x81";
    } else {
      escaped += c;
    }
  }
  if (escaped.empty()) return;
  struct Symbol {
    int prev, next;
    std::size_t begin, n;
  };
  std::vector<Symbol> symbols;
  for (std::size_t offs = 0; offs < escaped.size();) {
    const std::size_t n = std::min(utf8_length(static_cast<unsigned char>(escaped[offs])), escaped.size() - offs);
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({index - 1, offs + n == escaped.size() ? -1 : index + 1, offs, n});
    offs += n;
  }
  struct Bigram {
    int left, right;
    float score;
    std::size_t size;
  };
  // llm_bigram_spm::comparator: the highest score on top, then the leftmost.
  const auto lower = [](const Bigram& l, const Bigram& r) {
    return l.score < r.score || (l.score == r.score && l.left > r.left);
  };
  std::priority_queue<Bigram, std::vector<Bigram>, decltype(lower)> queue(lower);
  const auto try_add = [&](int left, int right) {
    if (left == -1 || right == -1) return;
    const std::string_view joined(escaped.data() + symbols[left].begin, symbols[left].n + symbols[right].n);
    const auto it = ids_.find(joined);
    if (it == ids_.end()) return;
    queue.push({left, right, scores_[static_cast<std::size_t>(it->second)], joined.size()});
  };
  for (int i = 1; i < static_cast<int>(symbols.size()); ++i) try_add(i - 1, i);
  while (!queue.empty()) {
    const Bigram b = queue.top();
    queue.pop();
    Symbol& left = symbols[b.left];
    Symbol& right = symbols[b.right];
    if (left.n == 0 || right.n == 0 || left.n + right.n != b.size) continue;  // stale
    left.n += right.n;
    right.n = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = b.left;
    try_add(left.prev, b.left);
    try_add(b.left, left.next);
  }
  // resegment: a merged symbol is always a piece (a pair is merged only into
  // one), so what is not a piece is a single character, given as its bytes.
  for (int i = 0; i != -1; i = symbols[i].next) {
    const std::string_view s(escaped.data() + symbols[i].begin, symbols[i].n);
    if (const auto it = ids_.find(s); it != ids_.end()) {
      out.push_back(it->second);
    } else {
      for (char c : s) out.push_back(byte_id(static_cast<unsigned char>(c)));
    }
  }
}

std::vector<int> GgufVocab::encode(std::string_view text) const {
  // tokenizer_st_partition: runs of text, and the ids of the USER_DEFINED
  // pieces cut out of them (id -1 marks a run).
  struct Fragment {
    int id;
    std::string_view text;
  };
  std::vector<Fragment> fragments;
  if (!text.empty()) fragments.push_back({-1, text});
  for (int id : user_defined_) {
    const std::string& piece = pieces_[static_cast<std::size_t>(id)];
    std::vector<Fragment> next;
    next.reserve(fragments.size());
    for (const Fragment& f : fragments) {
      if (f.id >= 0) {
        next.push_back(f);
        continue;
      }
      std::string_view rest = f.text;
      for (std::size_t at; (at = rest.find(piece)) != std::string_view::npos;) {
        if (at > 0) next.push_back({-1, rest.substr(0, at)});
        next.push_back({id, {}});
        rest.remove_prefix(at + piece.size());
      }
      if (!rest.empty()) next.push_back({-1, rest});
    }
    fragments = std::move(next);
  }
  std::vector<int> out;
  bool prev_special = true;  // the first run gets the space prefix
  for (const Fragment& f : fragments) {
    if (f.id >= 0) {
      out.push_back(f.id);
      prev_special = true;
    } else {
      add_fragment(f.text, add_space_prefix_ && prev_special, out);
      prev_special = false;
    }
  }
  return out;
}

GgufKeys gguf_keys(const gguf::File& file) {
  return [&file](std::string_view key) { return file.find(key); };
}

const gguf::Value& gguf_token_array(const GgufKeys& keys, const std::string& path) {
  const gguf::Value* tokens = keys("tokenizer.ggml.tokens");
  if (!tokens || tokens->type != gguf::ValueType::array || tokens->element_type != gguf::ValueType::string) {
    throw UsageError(path + ": tokenizer.ggml.tokens is missing or not an array of strings");
  }
  if (tokens->count == 0) throw UsageError(path + ": tokenizer.ggml.tokens is empty");
  if (tokens->count > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw UsageError(path + ": tokenizer.ggml.tokens has " + std::to_string(tokens->count) +
                     " tokens, more than an id (int32) can name");
  }
  return *tokens;
}

const gguf::Value* gguf_token_types(const GgufKeys& keys, const std::string& path, std::size_t n) {
  const gguf::Value* types = keys("tokenizer.ggml.token_type");
  if (types && (types->type != gguf::ValueType::array || types->element_type != gguf::ValueType::int32 ||
                types->count != n)) {
    throw UsageError(path + ": tokenizer.ggml.token_type is not an array of " + std::to_string(n) + " int32s, one per token");
  }
  return types;
}

int gguf_special_id(const GgufKeys& keys, const std::string& path, const char* key, int fallback, std::size_t n) {
  const gguf::Value* v = keys(key);
  if (!v) return fallback;
  const auto id = v->integer();
  if (!id || v->type == gguf::ValueType::boolean) throw UsageError(path + ": " + key + " is not an integer");
  if (*id < 0 || static_cast<std::uint64_t>(*id) >= n) {
    throw UsageError(path + ": " + key + " " + std::to_string(*id) + " is outside the " + std::to_string(n) + " tokens");
  }
  return static_cast<int>(*id);
}

bool gguf_flag(const GgufKeys& keys, const std::string& path, const char* key, bool fallback) {
  const gguf::Value* v = keys(key);
  if (!v) return fallback;
  if (v->type != gguf::ValueType::boolean) throw UsageError(path + ": " + key + " is not a bool");
  return v->i != 0;
}

GgufSpecials gguf_specials(const GgufKeys& keys, const std::string& path, std::size_t n, const GgufSpecials& fallback) {
  GgufSpecials out;
  out.bos_id = gguf_special_id(keys, path, "tokenizer.ggml.bos_token_id", fallback.bos_id, n);
  out.eos_id = gguf_special_id(keys, path, "tokenizer.ggml.eos_token_id", fallback.eos_id, n);
  out.unk_id = gguf_special_id(keys, path, "tokenizer.ggml.unknown_token_id", fallback.unk_id, n);
  out.pad_id = gguf_special_id(keys, path, "tokenizer.ggml.padding_token_id", fallback.pad_id, n);
  out.add_bos = gguf_flag(keys, path, "tokenizer.ggml.add_bos_token", fallback.add_bos);
  out.add_eos = gguf_flag(keys, path, "tokenizer.ggml.add_eos_token", fallback.add_eos);
  return out;
}

void gguf_check_table_rows(const gguf::File& file, std::size_t n) {
  // llama.cpp refuses a token_embd.weight whose shape is not (n_embd, n_vocab);
  // one with fewer rows than the vocabulary cannot give every id a row.
  if (const gguf::TensorInfo* t = file.find_tensor("token_embd.weight"); t && t->dims.size() == 2 && t->dims[1] < n) {
    throw UsageError(file.path() + ": token_embd.weight has " + std::to_string(t->dims[1]) + " rows, fewer than the " +
                     std::to_string(n) + " tokens of its vocabulary (tokenizer.ggml.tokens)");
  }
}

namespace {

// The pieces, scores and types of tokenizer.ggml.*, and the lookups GgufVocab::encode uses.
std::vector<std::int64_t> read_pieces(const gguf::File& file, std::size_t n, std::vector<std::string>& pieces, std::vector<float>& scores,
                                      std::unordered_map<std::string_view, int>& ids, std::vector<int>& user_defined) {
  const std::string& path = file.path();
  const gguf::Value& tokens = *file.find("tokenizer.ggml.tokens");
  const gguf::Value* score_values = file.find("tokenizer.ggml.scores");
  if (score_values && (score_values->type != gguf::ValueType::array ||
                       score_values->element_type != gguf::ValueType::float32 || score_values->count != n)) {
    throw UsageError(path + ": tokenizer.ggml.scores is not an array of " + std::to_string(n) + " float32s, one per token");
  }
  const gguf::Value* types = gguf_token_types(gguf_keys(file), path, n);
  pieces.reserve(n);
  scores.reserve(n);
  std::vector<std::int64_t> piece_types(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::string piece(tokens.strings[k]);
    // llama.cpp names an empty token "[EMPTY_k]" (and warns).
    if (piece.empty()) piece = "[EMPTY_" + std::to_string(k) + "]";
    // A token's text is written into JSON and messages: UTF-8, as gguf_bpe.cpp requires too.
    if (utf8::find_invalid(piece)) {
      throw UsageError(path + ": token " + std::to_string(k) + " is not valid UTF-8 (tokenizer.ggml.tokens)");
    }
    pieces.push_back(std::move(piece));
    scores.push_back(score_values ? static_cast<float>(score_values->element(k).f) : 0.0f);
    const std::int64_t type = types ? types->element(k).i : std::int64_t{model_proto::kNormal};
    if (type < model_proto::kNormal || type > model_proto::kByte) {
      throw UsageError(path + ": token " + std::to_string(k) + " has type " + std::to_string(type) + " (1 to 6 expected)");
    }
    piece_types[k] = type;
  }
  ids.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    // llama.cpp asserts that no two tokens have the same text.
    if (!ids.emplace(pieces[k], static_cast<int>(k)).second) {
      throw UsageError(path + ": token " + std::to_string(k) + " (" + pieces[k] + ") is token " +
                       std::to_string(ids.at(pieces[k])) + "'s text again");
    }
    if (piece_types[k] == model_proto::kUserDefined) user_defined.push_back(static_cast<int>(k));
  }
  std::stable_sort(user_defined.begin(), user_defined.end(), [&pieces](int a, int b) {
    return pieces[static_cast<std::size_t>(a)].size() > pieces[static_cast<std::size_t>(b)].size();
  });
  return piece_types;
}

// The SentencePiece model that names and decodes the ids. SentencePiece wants
// exactly one UNKNOWN piece: the one unknown_token_id names (a converter types
// <unk> CONTROL); any other piece typed UNKNOWN is CONTROL there (llama.cpp
// treats both alike in text).
std::string model_proto_of(const std::string& path, const std::vector<std::string>& pieces,
                           const std::vector<float>& scores, const std::vector<std::int64_t>& piece_types,
                           GgufSentencePiece& out, bool remove_extra_whitespaces) {
  std::string proto, piece;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    piece.clear();
    put_bytes(piece, model_proto::kPiece, pieces[k]);
    put_float(piece, model_proto::kScore, scores[k]);
    std::int64_t type = piece_types[k];
    if (static_cast<int>(k) == out.unk_id) {
      type = model_proto::kUnknown;
    } else if (type == model_proto::kUnknown) {
      type = model_proto::kControl;
    }
    if (type == model_proto::kByte) {
      if (byte_piece::sentencepiece_byte(pieces[k]) < 0) {
        throw UsageError(path + ": token " + std::to_string(k) + " (" + pieces[k] + ") is typed BYTE but is not <0xNN>");
      }
      out.byte_fallback = true;
    }
    put_varint(piece, model_proto::kType, static_cast<std::uint64_t>(type));
    put_bytes(proto, model_proto::kPieces, piece);
  }
  std::string trainer;
  put_varint(trainer, model_proto::kModelType, model_proto::kModelBpe);
  put_int(trainer, model_proto::kVocabSize, static_cast<std::int64_t>(pieces.size()));
  if (out.byte_fallback) put_varint(trainer, model_proto::kByteFallback, 1);
  put_int(trainer, model_proto::kUnkId, out.unk_id);
  put_int(trainer, model_proto::kBosId, out.bos_id);
  put_int(trainer, model_proto::kEosId, out.eos_id);
  put_int(trainer, model_proto::kPadId, out.pad_id);
  put_bytes(trainer, model_proto::kUnkPiece, out.unk_piece);
  if (out.bos_id >= 0) put_bytes(trainer, model_proto::kBosPiece, pieces[static_cast<std::size_t>(out.bos_id)]);
  if (out.eos_id >= 0) put_bytes(trainer, model_proto::kEosPiece, pieces[static_cast<std::size_t>(out.eos_id)]);
  put_bytes(proto, model_proto::kTrainerSpec, trainer);
  std::string normalizer;
  put_bytes(normalizer, model_proto::kName, "identity");
  put_varint(normalizer, model_proto::kAddDummyPrefix, out.add_space_prefix ? 1 : 0);
  put_varint(normalizer, model_proto::kRemoveExtraWhitespaces, remove_extra_whitespaces ? 1 : 0);
  put_varint(normalizer, model_proto::kEscapeWhitespaces, 1);
  put_bytes(proto, model_proto::kNormalizerSpec, normalizer);
  return proto;
}

}  // namespace

GgufSentencePiece gguf_sentencepiece(const gguf::File& file) {
  const std::string& path = file.path();
  const GgufKeys keys = gguf_keys(file);
  GgufSentencePiece out;
  const std::optional<std::string> model = file.string_value("tokenizer.ggml.model");
  if (!model) throw UsageError(path + ": it holds no tokenizer (tokenizer.ggml.model): read ids with ids and the table with weights",
                     {"ids", "weights"});
  out.model = *model;
  if (out.model != "llama") {
    throw UsageError(path + ": its tokenizer is '" + out.model +
                         "' (tokenizer.ggml.model); embedpe rebuilds SentencePiece ('llama') and byte-level BPE "
                         "('gpt2') tokenizers: read ids with ids and the file's table with weights",
                     {"ids", "weights"});
  }
  const std::size_t n = gguf_token_array(keys, path).count;
  gguf_check_table_rows(file, n);
  out.vocab_size = n;
  // llama.cpp's defaults for "llama": BOS 1, EOS 2, UNK 0, BOS added.
  static_cast<GgufSpecials&>(out) = gguf_specials(
      keys, path, n, {.bos_id = 1 < n ? 1 : -1, .eos_id = 2 < n ? 2 : -1, .unk_id = 0, .add_bos = true});
  out.add_space_prefix = gguf_flag(keys, path, "tokenizer.ggml.add_space_prefix", true);
  const bool remove_extra_whitespaces = gguf_flag(keys, path, "tokenizer.ggml.remove_extra_whitespaces", false);

  auto vocab = std::make_shared<GgufVocab>();
  GgufVocab& v = *vocab;
  v.source_ = path;
  v.add_space_prefix_ = out.add_space_prefix;
  const std::vector<std::int64_t> piece_types = read_pieces(file, n, v.pieces_, v.scores_, v.ids_, v.user_defined_);
  for (int byte = 0; byte < 256; ++byte) {
    auto it = v.ids_.find(std::string(byte_piece::Piece(static_cast<unsigned char>(byte)).view()));
    if (it == v.ids_.end()) it = v.ids_.find(std::string(1, static_cast<char>(byte)));
    v.byte_ids_[static_cast<std::size_t>(byte)] = it == v.ids_.end() ? -1 : it->second;
  }
  out.unk_piece = v.pieces_[static_cast<std::size_t>(out.unk_id)];
  out.model_proto = model_proto_of(path, v.pieces_, v.scores_, piece_types, out, remove_extra_whitespaces);
  out.vocab = std::move(vocab);
  return out;
}

}  // namespace embedpe
