#include "embedpe/tokenizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sentencepiece_processor.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <mutex>
#include <sstream>

#include "default_model.h"
#include "embedpe/pretrained_tokenizer.h"
#include "gguf.h"
#include "gguf_bpe.h"
#include "gguf_tokenizer.h"
#include "hf_tokenizer.h"
#include "tj_pretrained.h"
#include "in_file.h"
#include "embedpe/weights.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "parallel.h"
#include "sha256.h"
#include "embedpe/text_input.h"
#include "memory.h"
#include "protobuf_fields.h"
#include "segment_cache.h"
#include "segment_unigram.h"

// Exported by libsentencepiece but declared only in its private common.h:
// the lowest severity it logs to stderr (0 INFO .. 3 FATAL).
namespace sentencepiece::logging {
void SetMinLogLevel(int v);
}  // namespace sentencepiece::logging

namespace embedpe {

struct Tokenizer::Impl {
  // With `segments`, sp holds the model with add_dummy_prefix turned off and
  // encode() adds the prefix itself (see load); its ids and pieces are the
  // model's, only a text's leading U+2581 is left to the caller. With a
  // SegmentBpe as well, sp is loaded only when a text needs it (processor()).
  sentencepiece::SentencePieceProcessor sp;
  std::once_flag sp_once;
  bool sp_lazy = false;
  std::unique_ptr<SegmentEncoder> segments;  // null: every text goes to SentencePiece whole
  // A unigram model's encoder (segment_unigram.h); sp is then the model as
  // it is, loaded when a text it leaves, or decode, needs it.
  std::unique_ptr<SegmentUnigram> unigram;
  ModelInfo info;
  std::string owned;            // a model read from a file
  std::string_view serialized;  // the model's bytes (owned, or the embedded model)
  std::once_flag sha256_once;
  std::string sha256;
  // For decode when sp is the variant without the dummy prefix (which would
  // leave the text's leading space): the model as it is, loaded on first use.
  std::once_flag decoder_once;
  sentencepiece::SentencePieceProcessor decoder;
  // A Hugging Face directory's tokenizer (load_pretrained_tokenizer): its slow
  // SentencePiece class or its tokenizer.json. When set, it encodes, decodes and
  // names the ids; sp is then the slow class's SentencePiece file, unused.
  std::unique_ptr<detail::PretrainedEncoder> hf;
  // A GGUF file's vocabulary (load_pretrained_tokenizer): when set, it
  // encodes, as llama.cpp does; sp names and decodes the ids. The digest is
  // then the file's own (sha256sum FILE), computed when first asked for (also
  // for a byte-level BPE file, whose tokenizer is hf: gguf_path set, gguf not).
  std::shared_ptr<const GgufVocab> gguf;
  std::string gguf_path;

  // SentencePiece, loaded now if it was left until needed.
  const sentencepiece::SentencePieceProcessor& processor();
  // The processor's PieceToId and IdToPiece, from the SegmentBpe when it stands in for it.
  const SegmentBpe* bpe() const { return sp_lazy && segments ? segments->bpe() : nullptr; }
  const SegmentUnigram* uni() const { return sp_lazy ? unigram.get() : nullptr; }
};

namespace {

// A failed load's status as a message; SentencePiece's own log lines are off
// (see load), so a failed self-test says what failed instead of "See LOG(INFO)".
std::string load_failure(const sentencepiece::util::Status& status) {
  const std::string text = status.ToString();
  if (text.find("Self-test failures") != std::string::npos) {
    return "its self-test samples do not encode as it records";
  }
  return text;
}

// Segments are encoded without the dummy prefix: the prefix belongs to the
// text, not to each segment.
sentencepiece::util::Status load_without_dummy_prefix(sentencepiece::SentencePieceProcessor& sp,
                                                      std::string_view serialized) {
  return sp.LoadFromSerializedProto(protobuf::without_dummy_prefix(serialized));
}

}  // namespace

const sentencepiece::SentencePieceProcessor& Tokenizer::Impl::processor() {
  if (sp_lazy) {
    std::call_once(sp_once, [this] {
      const auto status = unigram ? sp.LoadFromSerializedProto(serialized) : load_without_dummy_prefix(sp, serialized);
      if (!status.ok()) {
        throw Error("model " + info.source + " is not a usable SentencePiece model (" + load_failure(status) + ")");
      }
    });
  }
  return sp;
}

namespace {

// A regular file of at most kMaxModelBytes, read whole. A device, FIFO or
// directory given as --model (e.g. /dev/urandom) would otherwise be read
// forever or fail obscurely.
std::string read_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error("cannot open model " + path + ": " + std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  note_input(fd, path);
  struct stat st;
  if (::fstat(fd, &st) != 0) throw Error("cannot read model " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    throw Error("model " + path + " is not a regular file; give a SentencePiece .model file");
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > Tokenizer::kMaxModelBytes) {
    throw Error("model " + path + " is " + std::to_string(size) + " bytes, more than a SentencePiece model can be (" +
                std::to_string(Tokenizer::kMaxModelBytes) + "); give a SentencePiece .model file");
  }
  std::string data(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, data.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot read model " + path + ": " + std::strerror(errno));
    if (n == 0) throw Error("cannot read model " + path + ": it shrank while being read");
    got += static_cast<std::size_t>(n);
  }
  return data;
}

// Fields SentencePiece does not expose through its processor, read from the
// serialized ModelProto.
void read_spec_fields(std::string_view model, ModelInfo& info) {
  static constexpr const char* kTypes[] = {"unknown", "unigram", "bpe", "word", "char"};
  info.model_type = "unigram";  // the proto default
  protobuf::for_each_field(model, [&](const protobuf::Field& field) {
    if (field.number == model_proto::kTrainerSpec && field.wire_type == protobuf::kLengthDelimited) {
      protobuf::for_each_field(field.bytes, [&](const protobuf::Field& t) {
        if (t.number == model_proto::kModelType && t.wire_type == protobuf::kVarint) {
          info.model_type = t.value < 5 ? kTypes[t.value] : "unknown";
        } else if (t.number == model_proto::kByteFallback && t.wire_type == protobuf::kVarint) {
          info.byte_fallback = t.value != 0;
        } else if (t.number == model_proto::kSplitDigits && t.wire_type == protobuf::kVarint) {
          info.split_digits = t.value != 0;
        }
      });
    } else if (field.number == model_proto::kNormalizerSpec && field.wire_type == protobuf::kLengthDelimited) {
      protobuf::for_each_field(field.bytes, [&](const protobuf::Field& n) {
        if (n.number == model_proto::kName && n.wire_type == protobuf::kLengthDelimited) {
          info.normalizer = std::string(n.bytes);
        } else if (n.number == model_proto::kAddDummyPrefix && n.wire_type == protobuf::kVarint) {
          info.add_dummy_prefix = n.value != 0;
        } else if (n.number == model_proto::kRemoveExtraWhitespaces && n.wire_type == protobuf::kVarint) {
          info.remove_extra_whitespaces = n.value != 0;
        }
      });
    }
  });
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_file(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->owned = read_file(path);
  impl->serialized = impl->owned;
  return load(std::move(impl), path);
}

Tokenizer Tokenizer::from_bytes(std::string_view serialized, const std::string& source) {
  auto impl = std::make_unique<Impl>();
  impl->owned = std::string(serialized);  // the caller's bytes may not outlive the tokenizer
  impl->serialized = impl->owned;
  return load(std::move(impl), source);
}

Tokenizer Tokenizer::default_model() {
  auto impl = std::make_unique<Impl>();
  impl->serialized = detail::default_model_bytes();  // static: no copy
  std::call_once(impl->sha256_once, [&] { impl->sha256 = std::string(detail::default_model_sha256()); });
  return load(std::move(impl), "embedded default");
}

Tokenizer Tokenizer::load(std::unique_ptr<Impl> impl, const std::string& source) {
  // SentencePiece reports every failure through the Status it returns, which
  // becomes one Error; its own stderr lines (a failed self-test's samples,
  // "Returns default value") would be a second account of the same thing.
  static std::once_flag quiet;
  std::call_once(quiet, [] { sentencepiece::logging::SetMinLogLevel(3); });
  const std::string_view serialized = impl->serialized;
  const std::string hint = "; give a SentencePiece .model file (the one spm_train writes)";
  if (serialized.empty()) throw Error("model " + source + " is empty" + hint);
  // SentencePiece parses the protobuf itself, but checking the wire format
  // first turns truncated or foreign files into one clear message.
  if (!protobuf::well_formed(serialized)) {
    throw Error("model " + source + " is not a SentencePiece model (truncated or corrupt protobuf)" + hint);
  }
  // A BPE model whose segments SegmentBpe encodes needs SentencePiece only
  // for the texts it leaves to it (see segment_bpe.h): its loading, the
  // costliest part of a short run, waits for one. The segment tables are
  // built on two cores when there are two and a thread may start (a pids
  // or process limit can forbid it): a speed-up, never a reason to fail.
  std::optional<SegmentRules> rules;
  std::optional<SegmentBpe> bpe;
  if (SegmentRules::spec_allows(serialized)) {
    const std::size_t threads = usable_threads(std::min<std::size_t>(2, available_cores()));
    parallel_for(2, threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t task = begin; task < end; ++task) {
        if (task == 0) rules = SegmentRules::from_model(serialized);
        if (task == 1) bpe = SegmentBpe::from_model(serialized);
      }
    });
  }
  ModelInfo& info = impl->info;
  info.source = source;
  // A unigram model SegmentUnigram reproduces: SentencePiece waits too.
  std::optional<SegmentUnigram> unigram;
  if (!SegmentRules::spec_allows(serialized)) unigram = SegmentUnigram::from_model(serialized);
  if (unigram) {
    impl->sp_lazy = true;
    info.vocab_size = static_cast<int>(unigram->size());
    info.pad_id = unigram->special_ids().pad;
    info.bos_id = unigram->special_ids().bos;
    info.eos_id = unigram->special_ids().eos;
    info.unk_id = unigram->special_ids().unk;
    impl->unigram = std::make_unique<SegmentUnigram>(std::move(*unigram));
  } else if (rules && bpe) {
    impl->sp_lazy = true;
    info.vocab_size = static_cast<int>(bpe->size());
    info.pad_id = bpe->special_ids().pad;
    info.bos_id = bpe->special_ids().bos;
    info.eos_id = bpe->special_ids().eos;
    info.unk_id = bpe->special_ids().unk;
  } else {
    sentencepiece::util::Status status;
    if (rules) status = load_without_dummy_prefix(impl->sp, serialized);
    if (!rules || !status.ok()) {
      rules.reset();
      status = impl->sp.LoadFromSerializedProto(serialized);
    }
    if (!status.ok()) {
      throw Error("model " + source + " is not a usable SentencePiece model (" + load_failure(status) + ")" + hint);
    }
    info.vocab_size = impl->sp.GetPieceSize();
    if (info.vocab_size <= 0) throw Error("model " + source + " has no pieces" + hint);
    info.pad_id = impl->sp.pad_id();
    info.bos_id = impl->sp.bos_id();
    info.eos_id = impl->sp.eos_id();
    info.unk_id = impl->sp.unk_id();
    bpe.reset();
  }
  info.size_bytes = serialized.size();
  read_spec_fields(serialized, info);
  if (rules) {
    // The runs SentencePiece merges are of the model's UNKNOWN piece, whatever unk_piece names.
    const int unknown = bpe ? bpe->unknown_id() : info.unk_id;
    impl->segments = std::make_unique<SegmentEncoder>(std::move(*rules), unknown, std::move(bpe));
  }
  info.segment_cache = impl->segments != nullptr || impl->unigram != nullptr;
  return Tokenizer(std::move(impl));
}

const ModelInfo& Tokenizer::info() const { return impl_->info; }

const std::string& Tokenizer::sha256() const {
  std::call_once(impl_->sha256_once, [this] {
    if (!impl_->gguf_path.empty()) {
      // Read in chunks, not mapped: hashing a 7 GB file keeps 4 MiB resident.
      const InFile file(impl_->gguf_path);
      Sha256 h;
      file.each_chunk(0, file.size(), [&h](std::string_view piece) { h.update(piece); });
      impl_->sha256 = h.hex();
    } else {
      impl_->sha256 = sha256_hex(impl_->serialized);
    }
  });
  return impl_->sha256;
}

namespace {

Encoding encode_whole(const sentencepiece::SentencePieceProcessor& sp, std::string_view text) {
  sentencepiece::ImmutableSentencePieceText spt;
  auto status = sp.Encode(text, spt.mutable_proto());
  if (!status.ok()) throw Error("SentencePiece could not encode a text: " + status.ToString());
  Encoding out;
  const std::size_t n = spt.pieces_size();
  out.ids.reserve(n);
  out.pieces.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto piece = spt.pieces(static_cast<int>(i));
    out.ids.push_back(static_cast<int>(piece.id()));
    out.pieces.push_back(piece.piece());
  }
  return out;
}

}  // namespace

Encoding Tokenizer::encode(std::string_view text, Pieces pieces) const {
  if (impl_->gguf) {
    Encoding e;
    e.ids = impl_->gguf->encode(text);
    if (pieces != Pieces::drop) {
      e.pieces.reserve(e.ids.size());
      for (int id : e.ids) e.pieces.push_back(impl_->gguf->piece(id));
    }
    return e;
  }
  if (impl_->hf) {
    detail::PretrainedEncoder::Sequence seq = impl_->hf->encode(text);
    Encoding e{std::move(seq.ids), std::move(seq.tokens)};
    if (pieces == Pieces::drop) e.pieces.clear();
    return e;
  }
  if (impl_->unigram) {
    if (std::optional<Encoding> e = impl_->unigram->encode(text, pieces)) return std::move(*e);
  }
  Encoding e =
      impl_->segments
          ? impl_->segments->encode(
                text, [this](std::string_view segment) { return encode_whole(impl_->processor(), segment); }, pieces)
          : encode_whole(impl_->processor(), text);
  if (pieces == Pieces::drop) e.pieces.clear();
  return e;
}

std::string_view Tokenizer::id_to_piece(int id) const {
  if (impl_->hf) return impl_->hf->piece(id);
  if (const SegmentBpe* bpe = impl_->bpe()) return bpe->piece(id);
  if (const SegmentUnigram* uni = impl_->uni()) return uni->piece(id);
  return impl_->sp.IdToPiece(id);
}

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
  if (!impl_->hf) return decode(ids);
  check_ids(ids, "ids");
  return impl_->hf->decode(std::vector<int>(ids.begin(), ids.end()), skip_special_tokens);
}

std::string Tokenizer::decode(std::span<const int> ids) const {
  if (impl_->hf) return decode(ids, false);
  check_ids(ids, "ids");
  const sentencepiece::SentencePieceProcessor* sp = impl_->unigram ? &impl_->processor() : &impl_->sp;
  if (impl_->segments) {
    std::call_once(impl_->decoder_once, [&] {
      if (!impl_->decoder.LoadFromSerializedProto(impl_->serialized).ok()) throw Error("cannot load the model to decode");
    });
    sp = &impl_->decoder;
  }
  std::string text;
  const auto status = sp->Decode(std::vector<int>(ids.begin(), ids.end()), &text);
  if (!status.ok()) throw Error("cannot decode: " + status.ToString());
  return text;
}

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

namespace {

// The checks of options that need no text: the pad id in the vocabulary,
// room for BOS/EOS, a seq_len that is a multiple of pad_to_multiple_of.
void check_options(const ModelInfo& info, const EncodeOptions& options, int pad, std::size_t specials) {
  if (pad < 0 || pad >= info.vocab_size) {
    throw UsageError("pad_id " + std::to_string(pad) + " is outside the vocabulary (0.." +
                         std::to_string(info.vocab_size - 1) + " for model " + info.source + ")",
                     {"pad_id"});
  }
  if (options.seq_len && *options.seq_len < specials) {
    throw UsageError("seq_len " + std::to_string(*options.seq_len) + " leaves no room for " +
                         (specials == 2 ? "BOS and EOS" : "BOS/EOS") + "; use at least " + std::to_string(specials) +
                         ", or add_bos=false/add_eos=false",
                     {"seq_len", "add_bos=false", "add_eos=false"});
  }
  check_padding(options);
}

}  // namespace

Batch Tokenizer::pad(std::vector<std::vector<int>> contents, std::vector<std::vector<std::string>> pieces, int bos,
                     int eos, const EncodeOptions& options) const {
  const std::size_t specials = (bos >= 0) + (eos >= 0);
  Batch batch;
  batch.pad_id = pad_id(options);
  batch.padding_side = options.padding_side;
  std::vector<std::vector<int>> sequences;  // (batch, tokens) after truncation
  sequences.reserve(contents.size());
  batch.pieces.reserve(contents.size());
  batch.untruncated_lengths.reserve(contents.size());
  for (std::size_t i = 0; i < contents.size(); ++i) {
    const std::vector<int>& content = contents[i];
    std::vector<std::string>& content_pieces = pieces[i];
    batch.untruncated_lengths.push_back(content.size() + specials);
    std::size_t keep = content.size();
    if (options.seq_len) keep = std::min(keep, *options.seq_len - specials);
    // Truncation cuts the text, never BOS/EOS: from its end, or its start.
    const std::size_t first = options.truncation_side == Side::left ? content.size() - keep : 0;
    const auto from = static_cast<std::ptrdiff_t>(first), to = static_cast<std::ptrdiff_t>(first + keep);
    std::vector<int> seq;
    std::vector<std::string> kept;
    seq.reserve(keep + specials);
    kept.reserve(keep + specials);
    if (bos >= 0) {
      seq.push_back(bos);
      kept.emplace_back(id_to_piece(bos));
    }
    seq.insert(seq.end(), content.begin() + from, content.begin() + to);
    kept.insert(kept.end(), std::make_move_iterator(content_pieces.begin() + from),
                std::make_move_iterator(content_pieces.begin() + to));
    if (eos >= 0) {
      seq.push_back(eos);
      kept.emplace_back(id_to_piece(eos));
    }
    sequences.push_back(std::move(seq));
    batch.pieces.push_back(std::move(kept));
  }

  std::size_t longest = 0, seq_len = 0;
  for (const auto& s : sequences) longest = std::max(longest, s.size());
  if (options.seq_len) {
    seq_len = *options.seq_len;
  } else {
    seq_len = longest;
    if (const auto m = options.pad_to_multiple_of; m && seq_len % *m != 0) seq_len = (seq_len / *m + 1) * *m;
  }

  const std::size_t n = sequences.size();
  // The padded ids and mask. A length an option asked for (an absurd seq_len
  // or pad_to_multiple_of) is refused here, before the allocation, not by the
  // kernel's OOM killer; a length the text itself makes is the caller's
  // out-of-memory error, which names the longest line.
  if (seq_len > longest) check_padded_size(n, seq_len, options);
  batch.input_ids = xt::xtensor<std::int64_t, 2>::from_shape({n, seq_len});
  batch.attention_mask = xt::xtensor<std::int64_t, 2>::from_shape({n, seq_len});
  batch.input_ids.fill(batch.pad_id);
  batch.attention_mask.fill(0);
  for (std::size_t b = 0; b < n; ++b) {
    const std::size_t start = batch.first_token(b);
    for (std::size_t l = 0; l < sequences[b].size(); ++l) {
      batch.input_ids(b, start + l) = sequences[b][l];
      batch.attention_mask(b, start + l) = 1;
    }
  }
  return batch;
}

std::vector<Encoding> Tokenizer::encode_texts(const std::vector<std::string>& texts, std::size_t threads,
                                              Pieces pieces) const {
  // SentencePiece's Encode is const and thread-safe; each text is independent.
  std::vector<Encoding> encoded(texts.size());
  parallel_for(texts.size(), threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      check_text(texts[i], "text " + std::to_string(i + 1));
      encoded[i] = encode(texts[i], pieces);
    }
  });
  return encoded;
}

std::vector<Encoding> Tokenizer::encode_each(const std::vector<std::string>& texts, const EncodeOptions& options,
                                             std::size_t threads, Pieces pieces) const {
  if (options.seq_len) throw UsageError("encode_each neither truncates nor pads: seq_len needs encode_batch", {"seq_len"});
  if (impl_->hf) {
    // Unpadded: a padded batch of long lines costs more than tokenizing them.
    std::vector<Encoding> out;
    hf_batch(texts, nullptr, options, threads, &out);
    if (pieces == Pieces::drop)
      for (Encoding& e : out) e.pieces = {};
    return out;
  }
  const ModelInfo& info = impl_->info;
  const int bos = options.add_bos && info.adds_bos ? info.bos_id : -1;
  const int eos = options.add_eos && info.adds_eos ? info.eos_id : -1;
  check_options(info, options, pad_id(options), (bos >= 0) + (eos >= 0));
  std::vector<Encoding> encoded = encode_texts(texts, threads, pieces);
  const bool keep = pieces == Pieces::keep;
  for (Encoding& e : encoded) {
    if (bos >= 0) {
      e.ids.insert(e.ids.begin(), bos);
      if (keep) e.pieces.emplace(e.pieces.begin(), id_to_piece(bos));
    }
    if (eos >= 0) {
      e.ids.push_back(eos);
      if (keep) e.pieces.emplace_back(id_to_piece(eos));
    }
  }
  return encoded;
}

Batch Tokenizer::encode_batch(const std::vector<std::string>& texts, const EncodeOptions& options,
                              std::size_t threads) const {
  if (impl_->hf) return hf_batch(texts, nullptr, options, threads);
  const ModelInfo& info = impl_->info;
  const int bos = options.add_bos && info.adds_bos ? info.bos_id : -1;
  const int eos = options.add_eos && info.adds_eos ? info.eos_id : -1;
  check_options(info, options, pad_id(options), (bos >= 0) + (eos >= 0));
  std::vector<Encoding> encoded = encode_texts(texts, threads);
  std::vector<std::vector<int>> contents(texts.size());
  std::vector<std::vector<std::string>> pieces(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    contents[i] = std::move(encoded[i].ids);
    pieces[i] = std::move(encoded[i].pieces);
  }
  return pad(std::move(contents), std::move(pieces), bos, eos, options);
}

Batch Tokenizer::encode_pair_batch(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                   const EncodeOptions& options, std::size_t threads) const {
  if (a.size() != b.size()) {
    throw UsageError("pairs need as many second texts as first ones: " + std::to_string(a.size()) + " and " +
                         std::to_string(b.size()),
                     {"text_pair"});
  }
  if (impl_->hf) return hf_batch(a, &b, options, threads);
  const ModelInfo& info = impl_->info;
  auto special = [&](const char* piece) {
    const int id = impl_->bpe()   ? impl_->bpe()->piece_to_id(piece)
                   : impl_->uni() ? impl_->uni()->piece_to_id(piece)
                                  : impl_->sp.PieceToId(piece);
    if (id < 0 || id >= info.vocab_size || id_to_piece(id) != piece) {
      throw UsageError("model " + info.source + " has no " + piece +
                           " piece, so it cannot encode pairs as [CLS] A [SEP] B [SEP] (BERT-style models such as "
                           "ALBERT's have them)",
                       {"text_pair"});
    }
    return id;
  };
  if (!options.add_bos || !options.add_eos) {
    throw UsageError("add_bos=false/add_eos=false: pairs have no BOS or EOS to leave out, they are "
                     "[CLS] A [SEP] B [SEP]; drop them",
                     {"add_bos=false", "add_eos=false"});
  }
  const int cls = special("[CLS]"), sep = special("[SEP]");
  if (options.seq_len && *options.seq_len < 3) {
    throw UsageError("seq_len " + std::to_string(*options.seq_len) + " leaves no room for [CLS] A [SEP] B [SEP]'s "
                         "three special tokens; use at least 3",
                     {"seq_len"});
  }
  check_options(info, options, pad_id(options), 0);
  std::vector<Encoding> first(a.size()), second(b.size());
  parallel_for(a.size(), threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      check_text(a[i], "text " + std::to_string(i + 1));
      check_text(b[i], "text pair " + std::to_string(i + 1));
      first[i] = encode(a[i]);
      second[i] = encode(b[i]);
    }
  });
  std::vector<std::vector<int>> contents(a.size());
  std::vector<std::vector<std::string>> pieces(a.size());
  std::vector<std::size_t> untruncated(a.size()), first_lengths(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    Encoding& x = first[i];
    Encoding& y = second[i];
    untruncated[i] = x.ids.size() + y.ids.size() + 3;
    if (options.seq_len) {
      // longest_first: the longer loses one token at a time (the second on a tie). Counted
      // first and cut once, so that a long text costs linear time.
      const std::size_t budget = *options.seq_len - 3;
      std::size_t keep_x = x.ids.size(), keep_y = y.ids.size();
      if (keep_x + keep_y > budget) {
        const std::size_t shorter = std::min(keep_x, keep_y);
        if (2 * shorter >= budget) {  // both are cut to halves; ties cut the second first, so A keeps the odd one
          keep_y = budget / 2;
          keep_x = budget - keep_y;
        } else if (keep_x < keep_y) {
          keep_y = budget - keep_x;
        } else {
          keep_x = budget - keep_y;
        }
      }
      for (auto [e, keep] : {std::pair{&x, keep_x}, std::pair{&y, keep_y}}) {
        const std::size_t cut = e->ids.size() - keep;
        const auto from = options.truncation_side == Side::left ? 0 : static_cast<std::ptrdiff_t>(keep);
        e->ids.erase(e->ids.begin() + from, e->ids.begin() + from + static_cast<std::ptrdiff_t>(cut));
        e->pieces.erase(e->pieces.begin() + from, e->pieces.begin() + from + static_cast<std::ptrdiff_t>(cut));
      }
    }
    first_lengths[i] = x.ids.size();
    contents[i] = std::move(x.ids);
    contents[i].push_back(sep);
    contents[i].insert(contents[i].end(), y.ids.begin(), y.ids.end());
    pieces[i] = std::move(x.pieces);
    pieces[i].emplace_back(id_to_piece(sep));
    pieces[i].insert(pieces[i].end(), y.pieces.begin(), y.pieces.end());
  }
  Batch batch = pad(std::move(contents), std::move(pieces), cls, sep, options);
  batch.untruncated_lengths = std::move(untruncated);
  batch.token_type_ids = xt::zeros<std::int64_t>(batch.input_ids.shape());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const std::size_t begin = batch.first_token(i) + first_lengths[i] + 2;  // after [CLS] A [SEP]
    const std::size_t end = batch.first_token(i) + batch.pieces[i].size();
    for (std::size_t l = begin; l < end; ++l) batch.token_type_ids(i, l) = 1;
  }
  return batch;
}

Batch Tokenizer::batch_from_ids(std::vector<std::vector<int>> sequences, const EncodeOptions& options,
                                const std::vector<std::string>& origins) const {
  const ModelInfo& info = impl_->info;
  check_options(info, options, pad_id(options), 0);
  std::vector<std::vector<std::string>> pieces(sequences.size());
  for (std::size_t b = 0; b < sequences.size(); ++b) {
    pieces[b].reserve(sequences[b].size());
    check_ids(sequences[b], b < origins.size() ? origins[b] : "sequence " + std::to_string(b + 1));
    for (int id : sequences[b]) pieces[b].emplace_back(id_to_piece(id));
  }
  return pad(std::move(sequences), std::move(pieces), -1, -1, options);
}

// prepare_for_model (longest_first truncation to max_length = seq_len), then _pad.
Batch Tokenizer::hf_batch(const std::vector<std::string>& a, const std::vector<std::string>* b,
                          const EncodeOptions& options, std::size_t threads, std::vector<Encoding>* each) const {
  const detail::PretrainedEncoder& hf = *impl_->hf;
  const ModelInfo& info = impl_->info;
  const bool pair = b != nullptr;
  if (pair && (!options.add_bos || !options.add_eos) &&
      !(hf.pairs_without_special_tokens() && !options.add_bos && !options.add_eos)) {
    throw UsageError("add_bos=false/add_eos=false: pairs take " + hf.class_name() + "'s whole template; drop them",
                     {"add_bos=false", "add_eos=false"});
  }
  const std::size_t specials = hf.num_special_tokens_to_add(pair, options.add_bos, options.add_eos);
  if (options.seq_len && *options.seq_len <= specials && (specials > 0 || *options.seq_len == 0)) {
    throw UsageError("seq_len " + std::to_string(*options.seq_len) + " leaves no room for a text next to the " +
                         std::to_string(specials) + " special tokens of " + hf.class_name() + "'s template; use at least " +
                         std::to_string(specials + 1) + ", or add_bos=false/add_eos=false",
                     {"seq_len", "add_bos=false", "add_eos=false"});
  }
  const int pad = pad_id(options);
  check_options(info, options, pad, 0);
  const std::size_t n = a.size();
  std::vector<detail::PretrainedEncoder::Sequence> first(n), second(pair ? n : 0);
  parallel_for(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      check_text(a[i], "text " + std::to_string(i + 1));
      first[i] = hf.encode(a[i]);
      if (pair) {
        check_text((*b)[i], "text pair " + std::to_string(i + 1));
        second[i] = hf.encode((*b)[i]);
      }
    }
  });
  const bool left_cut = options.truncation_side == Side::left;
  auto cut = [left_cut](detail::PretrainedEncoder::Sequence& s, std::size_t remove) {
    const std::size_t keep = s.ids.size() - remove;
    if (left_cut) {
      s.ids.erase(s.ids.begin(), s.ids.begin() + static_cast<std::ptrdiff_t>(remove));
      if (s.tokens.size() >= remove) s.tokens.erase(s.tokens.begin(), s.tokens.begin() + static_cast<std::ptrdiff_t>(remove));
    } else {
      s.ids.resize(keep);
      if (s.tokens.size() > keep) s.tokens.resize(keep);
    }
  };
  Batch batch;
  batch.pad_id = pad;
  batch.padding_side = options.padding_side;
  std::vector<detail::PretrainedEncoder::Built> built(n);
  std::size_t longest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int>& x = first[i].ids;
    std::vector<int>* y = pair ? &second[i].ids : nullptr;
    const std::size_t total = x.size() + (y ? y->size() : 0) + specials;
    batch.untruncated_lengths.push_back(total);
    if (options.seq_len && total > *options.seq_len) {
      std::size_t remove = total - *options.seq_len;
      if (!y) {
        // HF leaves a text it cannot cut enough longer than max_length; embedpe cannot pad it.
        if (x.size() <= remove) {
          throw UsageError("seq_len " + std::to_string(*options.seq_len) + " cannot hold text " + std::to_string(i + 1) +
                               ": its " + std::to_string(specials) + " special tokens and at least one of its " +
                               std::to_string(x.size()) + " tokens need more (HF would leave it longer than max_length)",
                           {"seq_len"});
        }
        cut(first[i], remove);
      } else {
        // longest_first: the longer loses a token at a time, the second on a tie
        std::size_t lx = x.size(), ly = y->size();
        for (; remove > 0; --remove) {
          if (lx > ly) {
            --lx;
          } else if (ly > 0) {
            --ly;
          }
        }
        cut(first[i], x.size() - lx);
        cut(second[i], y->size() - ly);
      }
    }
    built[i] = hf.build_sequences(first[i], pair ? &second[i] : nullptr, options.add_bos, options.add_eos);
    longest = std::max(longest, built[i].ids.size());
  }
  if (each) {
    each->resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      (*each)[i].ids = std::move(built[i].ids);
      (*each)[i].pieces = std::move(built[i].tokens);
    }
    return batch;
  }
  std::size_t seq_len = options.seq_len.value_or(longest);
  if (const auto m = options.pad_to_multiple_of; m && seq_len % *m != 0) seq_len = (seq_len / *m + 1) * *m;
  if (seq_len > longest) check_padded_size(n, seq_len, options);
  batch.input_ids = xt::xtensor<std::int64_t, 2>::from_shape({n, seq_len});
  batch.attention_mask = xt::zeros<std::int64_t>({n, seq_len});
  batch.input_ids.fill(pad);
  const bool types = hf.has_token_type_ids();
  if (types) {
    batch.token_type_ids = xt::xtensor<std::int64_t, 2>::from_shape({n, seq_len});
    batch.token_type_ids.fill(hf.pad_token_type_id());
  }
  batch.pieces.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    batch.pieces[i] = std::move(built[i].tokens);
    const std::size_t start = batch.first_token(i);
    for (std::size_t l = 0; l < built[i].ids.size(); ++l) {
      batch.input_ids(i, start + l) = built[i].ids[l];
      batch.attention_mask(i, start + l) = 1;
      if (types) batch.token_type_ids(i, start + l) = built[i].types[l];
    }
  }
  return batch;
}

namespace {

// A tokenizer.json file, or a directory holding one: AutoTokenizer's fast tokenizer.
bool is_tokenizer_json(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  if (S_ISDIR(st.st_mode)) return ::stat((path + "/tokenizer.json").c_str(), &st) == 0;
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

}  // namespace

Tokenizer load_pretrained_tokenizer(const std::string& dir, PretrainedTokenizerKind kind) {
  if (is_gguf_file(dir)) {
    // Its one mapping (WeightFile's: the one a ModelSource keeps for the layer too).
    const auto weights = WeightFile::open(dir);
    const gguf::File* file = weights->gguf();
    if (file->string_value("tokenizer.ggml.model") == "gpt2") {
      // A byte-level BPE vocabulary: the tokenizer.json it was converted from (gguf_bpe.h).
      GgufBpe g;
      std::unique_ptr<detail::PretrainedEncoder> bpe = gguf_bpe_encoder(*file, &g);
      auto impl = std::make_unique<Tokenizer::Impl>();
      impl->gguf_path = dir;
      ModelInfo& info = impl->info;
      info.source = dir;
      info.model_type = "bpe";
      info.vocab_size = static_cast<std::int64_t>(g.vocab_size);
      info.bos_id = g.bos_id;
      info.eos_id = g.eos_id;
      info.unk_id = g.unk_id;
      info.pad_id = g.pad_id;
      info.adds_bos = g.add_bos;
      info.adds_eos = g.add_eos;
      info.gguf_model = "gpt2";
      info.pretrained = PretrainedTokenizerInfo{
          .directory = dir, .tokenizer_class = bpe->class_name(), .description = bpe->description()};
      impl->hf = std::move(bpe);
      return Tokenizer(std::move(impl));
    }
    // A GGUF file: the SentencePiece model its metadata was converted from.
    const GgufSentencePiece g = gguf_sentencepiece(*file);
    std::optional<Tokenizer> loaded;
    try {
      loaded.emplace(Tokenizer::from_bytes(g.model_proto, dir));
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      // The vocabulary is the file's: what SentencePiece cannot load is a bad file.
      std::string why = e.what();
      if (const std::size_t hint = why.find("; give a SentencePiece"); hint != std::string::npos) why.erase(hint);
      throw UsageError(dir + ": its vocabulary (tokenizer.ggml.*) is not usable: " + why);
    }
    Tokenizer tokenizer = std::move(*loaded);
    tokenizer.impl_->gguf = g.vocab;
    tokenizer.impl_->gguf_path = dir;
    ModelInfo& info = tokenizer.impl_->info;
    info.bos_id = g.bos_id;
    info.eos_id = g.eos_id;
    info.unk_id = g.unk_id;
    info.pad_id = g.pad_id;
    info.adds_bos = g.add_bos;
    info.adds_eos = g.add_eos;
    info.gguf_model = g.model;
    return tokenizer;
  }
  if (kind == PretrainedTokenizerKind::fast_if_any && is_tokenizer_json(dir)) {
    // The fast tokenizer: AutoTokenizer.from_pretrained(DIR) with tokenizer.json there.
    std::unique_ptr<detail::PretrainedEncoder> fast = detail::load_tokenizer_json(dir);
    auto impl = std::make_unique<Tokenizer::Impl>();
    std::call_once(impl->sha256_once, [&] { impl->sha256 = fast->files_digest(); });
    ModelInfo& info = impl->info;
    info.source = dir;
    info.model_type = "tokenizer.json";
    info.vocab_size = static_cast<std::int64_t>(fast->size());
    info.pad_id = fast->pad_id().value_or(-1);
    info.bos_id = fast->special_id("bos_token").value_or(-1);
    info.eos_id = fast->special_id("eos_token").value_or(-1);
    info.unk_id = fast->special_id("unk_token").value_or(-1);
    info.pretrained = PretrainedTokenizerInfo{.directory = dir,
                                              .tokenizer_class = fast->class_name(),
                                              .padding_left = fast->padding_left(),
                                              .truncation_left = fast->truncation_left(),
                                              .token_type_ids = fast->has_token_type_ids(),
                                              .model_max_length = fast->model_max_length(),
                                              .description = fast->description()};
    impl->hf = std::move(fast);
    return Tokenizer(std::move(impl));
  }
  std::unique_ptr<detail::HfTokenizer> hf = detail::HfTokenizer::load(dir);
  Tokenizer tokenizer = Tokenizer::from_file(hf->main_model_path());
  // Its identity is every file that decides the ids, not the SentencePiece file alone.
  std::call_once(tokenizer.impl_->sha256_once, [&] { tokenizer.impl_->sha256 = hf->files_digest(); });
  ModelInfo& info = tokenizer.impl_->info;
  info.source = dir;
  info.vocab_size = static_cast<std::int64_t>(hf->size());
  info.pad_id = hf->pad_id().value_or(-1);
  info.bos_id = hf->special_id("bos_token").value_or(-1);
  info.eos_id = hf->special_id("eos_token").value_or(-1);
  info.unk_id = hf->special_id("unk_token").value_or(-1);
  info.pretrained = PretrainedTokenizerInfo{.directory = dir,
                                            .tokenizer_class = hf->class_name(),
                                            .padding_left = hf->padding_left(),
                                            .truncation_left = hf->truncation_left(),
                                            .token_type_ids = hf->has_token_type_ids(),
                                            .model_max_length = hf->model_max_length()};
  tokenizer.impl_->hf = std::move(hf);
  return tokenizer;
}

EncodeOptions pretrained_encode_options(const Tokenizer& tokenizer) {
  EncodeOptions options;
  if (const auto& p = tokenizer.info().pretrained) {
    options.padding_side = p->padding_left ? Side::left : Side::right;
    options.truncation_side = p->truncation_left ? Side::left : Side::right;
  }
  return options;
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
