// Text → token IDs with a SentencePiece model, batched and padded.
//
//   auto tok = embedpe::Tokenizer::default_model();       // or from_file("m.model")
//   embedpe::EncodeOptions opt;                            // BOS + EOS, pad to longest
//   opt.seq_len = 16;                                      // or: pad and truncate to 16
//   embedpe::Batch b = tok.encode_batch({"Hello", "你好"}, opt);
//   // b.input_ids      (2, 16) int64   [1, ..., 2, 0, 0, ...]
//   // b.attention_mask (2, 16) int64   1 = token, 0 = padding
//
// SentencePiece stays behind this interface: its headers and status type are
// not part of embedpe's API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>
#include <xtensor/xtensor.hpp>

#include "embedpe/model_info.h"

namespace embedpe {

namespace detail {
class HfTokenizer;
struct TokenizerImpl;  // src/text/tokenizer_impl.h
}  // namespace detail

// Which of a Hugging Face directory's tokenizers load_pretrained_tokenizer builds:
// the fast one (tokenizer.json) where there is one, as AutoTokenizer does, or the
// slow SentencePiece class (AutoTokenizer's use_fast=False).
enum class PretrainedTokenizerKind { fast_if_any, slow };

// Which end of a sequence padding goes to, or truncation cuts from (HF
// tokenizers' padding_side / truncation_side).
enum class Side { right, left };
const char* side_name(Side side);  // "right", "left"

struct EncodeOptions {
  bool add_bos = true;               // where the model defines BOS
  bool add_eos = true;               // where the model defines EOS
  std::optional<int> pad_id;         // default: the model's pad id, else 0
  std::optional<std::size_t> seq_len;  // pad and truncate to this; default: longest
  Side padding_side = Side::right;     // left: pads first, the tokens end at the last column
  Side truncation_side = Side::right;  // left: the text's first tokens are dropped (BOS/EOS kept)
  // Pad the longest up to a multiple of this (seq_len, when given, must be one).
  std::optional<std::size_t> pad_to_multiple_of;
};

// Throws UsageError (naming seq_len and pad_to_multiple_of) unless seq_len,
// when both are given, is a multiple of pad_to_multiple_of; and for a
// pad_to_multiple_of of 0.
void check_padding(const EncodeOptions& options);

// Refuses (UsageError naming seq_len or pad_to_multiple_of) padding `rows`
// sequences to `length` tokens that would not fit in memory (their ids and
// mask, 16 bytes a token), before anything is allocated or written: a length
// an option asked for, not one the text made.
void check_padded_size(std::size_t rows, std::size_t length, const EncodeOptions& options);

// A padded batch. Truncation keeps BOS and EOS and drops tokens from the end
// of the text (truncation_side right) or from its start (left). With
// padding_side left, row b's tokens sit in columns seq_len - n_b .. seq_len-1.
struct Batch {
  xt::xtensor<std::int64_t, 2> input_ids;       // (batch, seq_len)
  xt::xtensor<std::int64_t, 2> attention_mask;  // (batch, seq_len)
  std::vector<std::vector<std::string>> pieces; // (batch, tokens): real tokens, no padding
  std::vector<std::size_t> untruncated_lengths; // (batch,): tokens incl. BOS/EOS before truncation
  int pad_id = 0;                               // the pad id actually used
  Side padding_side = Side::right;
  // (batch, seq_len) segment of each column, for pairs (encode_pair_batch):
  // 0 for [CLS] A [SEP], 1 for B [SEP], 0 for padding. Empty otherwise.
  xt::xtensor<std::int64_t, 2> token_type_ids;

  std::size_t size() const { return input_ids.shape()[0]; }
  std::size_t seq_len() const { return input_ids.shape()[1]; }
  // The column of row b's first real token (0 unless padded on the left).
  std::size_t first_token(std::size_t b) const {
    return padding_side == Side::left ? seq_len() - pieces[b].size() : 0;
  }
  // The columns [first, first + length) a record of row b alone holds: every
  // column when the length is fixed (seq_len), else its tokens padded on the
  // padding side up to a multiple of `multiple`, as a batch of one would be,
  // so that such a record never depends on what it was batched with.
  struct Columns {
    std::size_t first, length;
  };
  Columns own_columns(std::size_t b, bool fixed_length, std::size_t multiple) const;
  std::size_t truncated_count() const;
};

class Tokenizer {
 public:
  // A SentencePiece ModelProto cannot exceed protobuf's 2 GiB; real ones are
  // a few MB. from_file refuses larger files and anything not a regular file.
  static constexpr std::size_t kMaxModelBytes = std::size_t(1) << 30;  // 1 GiB
  static Tokenizer from_file(const std::string& path);
  // `source` names the bytes in error messages and ModelInfo.
  static Tokenizer from_bytes(std::string_view serialized, const std::string& source);
  // The model embedded in the library (data/default.model).
  static Tokenizer default_model();

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  const ModelInfo& info() const;
  // SHA-256 of the serialized model, lowercase hex (what sha256sum prints for
  // a .model file). Computed on first use, so that runs which do not report
  // it do not pay for it (the embedded model's is computed when the library
  // is built). A Hugging Face directory's covers every file its tokenizer
  // read (tokenizer_config.json, special tokens, added tokens, the
  // SentencePiece and vocabulary files): the SHA-256 of the lines
  // "HEX  NAME" of those files sorted by name, as
  // `sha256sum FILES | LC_ALL=C sort -k2 | sha256sum` prints it in the directory.
  const std::string& sha256() const;

  // One text without BOS/EOS, as SentencePiece's Encode gives it.
  Encoding encode(std::string_view text, Pieces pieces = Pieces::keep) const;
  // The piece of an id in 0 .. vocab_size - 1; the view lives as long as the tokenizer.
  std::string_view id_to_piece(int id) const;
  // Ids → text, as SentencePiece's DecodeIds gives it: pieces joined, '▁'
  // turned back into spaces, control pieces (BOS, EOS, padding) dropped, byte
  // pieces reassembled. An id outside [0, vocab_size) is an Error naming it.
  std::string decode(std::span<const int> ids) const;
  // With a pretrained tokenizer, HF's decode(ids, skip_special_tokens); otherwise decode(ids).
  std::string decode(std::span<const int> ids, bool skip_special_tokens) const;
  // Throws Error "ORIGIN: id X is outside the vocabulary of model M (0 to V-1)"
  // for the first id outside [0, vocab_size); the one check of ids against the model.
  void check_ids(std::span<const int> ids, const std::string& origin) const;

  // Encodes, adds BOS/EOS, truncates and pads, on up to `threads` threads
  // (the result does not depend on it). Texts must be valid UTF-8 (see
  // text_input.h); throws embedpe::Error otherwise.
  Batch encode_batch(const std::vector<std::string>& texts, const EncodeOptions& options,
                     std::size_t threads = 1) const;

  // Each text's ids and pieces with BOS/EOS as `options` ask, checked as
  // encode_batch checks them, neither truncated nor padded: what the record
  // of a row holds when no seq_len is set, without the padded batch (whose
  // width is its longest row's). Throws UsageError if options.seq_len is set.
  std::vector<Encoding> encode_each(const std::vector<std::string>& texts, const EncodeOptions& options,
                                    std::size_t threads = 1, Pieces pieces = Pieces::keep) const;

  // Pairs of texts as BERT-style models take them: [CLS] A [SEP] B [SEP],
  // with token_type_ids 0 for [CLS] A [SEP] and 1 for B [SEP]. The model must
  // have [CLS] and [SEP] pieces (a UsageError otherwise); BOS/EOS are not
  // added. With seq_len, the longer of A and B loses a token at a time until
  // the pair fits (Hugging Face's longest_first; B on a tie), from the end or,
  // with truncation_side left, from the start. `a` and `b` have one text per row.
  Batch encode_pair_batch(const std::vector<std::string>& a, const std::vector<std::string>& b,
                          const EncodeOptions& options, std::size_t threads = 1) const;

  // Sequences of ids used as given, with no tokenizer and no BOS/EOS
  // (options.add_bos/add_eos are ignored), truncated and padded as
  // encode_batch does; pieces are the ids' pieces. An id outside the
  // vocabulary is an Error naming origins[b] (the line it came from).
  Batch batch_from_ids(std::vector<std::vector<int>> sequences, const EncodeOptions& options,
                       const std::vector<std::string>& origins = {}) const;

  // The pad id encode_batch uses with `options` (Batch::pad_id): options.pad_id,
  // else the model's pad id, else 0. For reports written before any batch;
  // encode_batch checks that it lies in the vocabulary.
  int pad_id(const EncodeOptions& options) const;

 private:
  friend Tokenizer load_pretrained_tokenizer(const std::string& dir, PretrainedTokenizerKind kind);
  using Impl = detail::TokenizerImpl;
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  // The HF path of encode_batch and encode_pair_batch (b null: single texts).
  // With `each`, its sequences go there unpadded (encode_each) and the Batch is empty;
  // Pieces::drop leaves their pieces empty.
  Batch hf_batch(const std::vector<std::string>& a, const std::vector<std::string>* b, const EncodeOptions& options,
                 std::size_t threads, std::vector<Encoding>* each = nullptr, Pieces pieces = Pieces::keep) const;
  // Checks each text and encodes it, on up to `threads` threads.
  std::vector<Encoding> encode_texts(const std::vector<std::string>& texts, std::size_t threads,
                                     Pieces pieces = Pieces::keep) const;
  // Truncates each sequence (content between `bos` and `eos`, -1: none) to
  // fit options.seq_len and pads the batch: the one step both builders share.
  Batch pad(std::vector<std::vector<int>> contents, std::vector<std::vector<std::string>> pieces, int bos, int eos,
            const EncodeOptions& options) const;
  std::unique_ptr<Impl> impl_;
};

// The model's identity in a config: source, SHA-256, type, sizes, special ids.
nlohmann::ordered_json model_config(const Tokenizer& tokenizer);

}  // namespace embedpe
