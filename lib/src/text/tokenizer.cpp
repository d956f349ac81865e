#include "embedpe/tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "default_model.h"
#include "embedpe/error.h"
#include "memory.h"
#include "tokenizer_impl.h"

// Tokenizer: one encoder (token_encoder.h) made by a source format's factory, around which
// tokenizer_batch.cpp builds batches.
namespace embedpe {

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_file(const std::string& path) {
  return Tokenizer(std::make_unique<Impl>(detail::load_model_file(path)));
}

Tokenizer Tokenizer::from_bytes(std::string_view serialized, const std::string& source) {
  // the caller's bytes may not outlive the tokenizer
  return Tokenizer(std::make_unique<Impl>(detail::load_model_proto(std::string(serialized), {}, source)));
}

Tokenizer Tokenizer::default_model() {
  // static: no copy
  auto impl = std::make_unique<Impl>(detail::load_model_proto({}, detail::default_model_bytes(), "embedded default"));
  std::call_once(impl->sha256_once, [&] { impl->sha256 = std::string(detail::default_model_sha256()); });
  return Tokenizer(std::move(impl));
}

const ModelInfo& Tokenizer::info() const { return impl_->info; }

const std::string& Tokenizer::sha256() const {
  std::call_once(impl_->sha256_once, [this] { impl_->sha256 = impl_->encoder->digest(); });
  return impl_->sha256;
}

Encoding Tokenizer::encode(std::string_view text, Pieces pieces) const { return impl_->encoder->encode(text, pieces); }

std::string_view Tokenizer::id_to_piece(int id) const { return impl_->encoder->id_to_piece(id); }

void Tokenizer::check_ids(std::span<const int> ids, const std::string& origin) const {
  const ModelInfo& info = impl_->info;
  for (int id : ids) {
    if (id < 0 || id >= info.vocab_size) {
      throw Error(origin + ": id " + std::to_string(id) + " is outside the vocabulary of model " + info.source +
                      " (0 to " + std::to_string(info.vocab_size - 1) + ")",
                  {}, {{0, origin.size()}});
    }
  }
}


std::string Tokenizer::decode(std::span<const int> ids, bool skip_special_tokens) const {
  check_ids(ids, "ids");
  return impl_->encoder->decode(std::vector<int>(ids.begin(), ids.end()), skip_special_tokens);
}

// A pretrained tokenizer's decode(ids, skip_special_tokens=False).
std::string Tokenizer::decode(std::span<const int> ids) const { return decode(ids, false); }

Batch::Columns Batch::own_columns(std::size_t b, bool fixed_length, std::size_t multiple) const {
  if (fixed_length) return {0, seq_len()};
  const std::size_t tokens = pieces[b].size(), m = std::max<std::size_t>(multiple, 1);
  const std::size_t length = (tokens + m - 1) / m * m;  // <= seq_len(): the batch's longest, rounded up
  return {padding_side == Side::left ? seq_len() - length : 0, length};
}

std::size_t Batch::truncated_count() const {
  std::size_t n = 0;
  for (std::size_t b = 0; b < size(); ++b) {
    std::size_t kept = pieces[b].size();
    if (untruncated_lengths[b] > kept) ++n;
  }
  return n;
}

int Tokenizer::pad_id(const EncodeOptions& options) const {
  return options.pad_id.value_or(impl_->info.pad_id >= 0 ? impl_->info.pad_id : 0);
}

void check_padded_size(std::size_t rows, std::size_t length, const EncodeOptions& options) {
  const std::string what = "padding " + std::to_string(rows) + (rows == 1 ? " sequence" : " sequences") + " to " +
                           std::to_string(length) + " tokens";
  const std::string parameter = options.seq_len ? "seq_len" : "pad_to_multiple_of";
  check_allocation(checked_product({rows, length, 2 * sizeof(std::int64_t)}, what), what, "lower " + parameter,
                   {parameter}, /*what_is_text=*/true);
}

const char* side_name(Side side) { return side == Side::left ? "left" : "right"; }

void check_padding(const EncodeOptions& options) {
  if (!options.pad_to_multiple_of) return;
  const std::size_t m = *options.pad_to_multiple_of;
  if (m == 0) throw UsageError("pad_to_multiple_of must be at least 1", {"pad_to_multiple_of"});
  if (options.seq_len && *options.seq_len % m != 0) {
    const std::size_t up = (*options.seq_len / m + 1) * m, down = *options.seq_len / m * m;
    throw UsageError("seq_len " + std::to_string(*options.seq_len) + " is not a multiple of pad_to_multiple_of " +
                         std::to_string(m) + "; give seq_len " + (down ? std::to_string(down) + " or " : "") +
                         std::to_string(up) + ", or drop one of them",
                     {"seq_len", "pad_to_multiple_of"});
  }
}


nlohmann::ordered_json model_config(const Tokenizer& tokenizer) {
  const ModelInfo& info = tokenizer.info();
  nlohmann::ordered_json out = {{"source", info.source},         {"sha256", tokenizer.sha256()}, {"type", info.model_type},
                                {"vocab_size", info.vocab_size}, {"pad_id", info.pad_id},        {"bos_id", info.bos_id},
                                {"eos_id", info.eos_id},         {"unk_id", info.unk_id}};
  // A Hugging Face directory's: sha256 is then that of every file its tokenizer read
  // (the SHA-256 of their sha256sum lines, sorted by name).
  if (info.pretrained) out["tokenizer_class"] = info.pretrained->tokenizer_class;
  return out;
}

}  // namespace embedpe
