// The SentencePiece .model source format (token_encoder.h): a file or bytes read, checked,
// and given to the algorithm that reproduces the model (SegmentUnigram, SegmentBpe, else
// SentencePiece whole); and what the three SentencePiece encoders share (sp_encoders.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/tokenizer.h"
#include "parallel.h"
#include "protobuf_fields.h"
#include "sha256.h"
#include "sp_encoders.h"

// Exported by libsentencepiece but declared only in its private common.h:
// the lowest severity it logs to stderr (0 INFO .. 3 FATAL).
namespace sentencepiece::logging {
void SetMinLogLevel(int v);
}  // namespace sentencepiece::logging

namespace embedpe::detail {

std::string load_failure(const sentencepiece::util::Status& status) {
  const std::string text = status.ToString();
  if (text.find("Self-test failures") != std::string::npos) {
    return "its self-test samples do not encode as it records";
  }
  return text;
}

sentencepiece::util::Status load_without_dummy_prefix(sentencepiece::SentencePieceProcessor& sp,
                                                      std::string_view serialized) {
  return sp.LoadFromSerializedProto(protobuf::without_dummy_prefix(serialized));
}

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

std::string SentencePieceEncoder::digest() const { return sha256_hex(serialized_); }

const sentencepiece::SentencePieceProcessor& SentencePieceEncoder::lazy(bool without_dummy_prefix) const {
  std::call_once(lazy_once_, [&] {
    const auto status = without_dummy_prefix ? load_without_dummy_prefix(lazy_, serialized_)
                                             : lazy_.LoadFromSerializedProto(serialized_);
    if (!status.ok()) {
      throw Error("model " + source_ + " is not a usable SentencePiece model (" + load_failure(status) + ")");
    }
  });
  return lazy_;
}

std::string SentencePieceEncoder::decode_with(const sentencepiece::SentencePieceProcessor& sp,
                                              const std::vector<int>& ids) {
  std::string text;
  const auto status = sp.Decode(ids, &text);
  if (!status.ok()) throw Error("cannot decode: " + status.ToString());
  return text;
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

template <class Model>
void set_special_ids(const Model& model, ModelInfo& info) {
  info.vocab_size = static_cast<int>(model.size());
  info.pad_id = model.special_ids().pad;
  info.bos_id = model.special_ids().bos;
  info.eos_id = model.special_ids().eos;
  info.unk_id = model.special_ids().unk;
}

const char* const kHint = "; give a SentencePiece .model file (the one spm_train writes)";

// The model loaded by SentencePiece now: without the dummy prefix when `rules` (segments) may
// be used and SentencePiece loads it so; otherwise as it is, `rules` then dropped.
std::unique_ptr<sentencepiece::SentencePieceProcessor> load_now(std::string_view serialized, const std::string& source,
                                                                std::optional<SegmentRules>& rules, ModelInfo& info) {
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  sentencepiece::util::Status status;
  if (rules) status = load_without_dummy_prefix(*sp, serialized);
  if (!rules || !status.ok()) {
    rules.reset();
    status = sp->LoadFromSerializedProto(serialized);
  }
  if (!status.ok()) {
    throw Error("model " + source + " is not a usable SentencePiece model (" + load_failure(status) + ")" + kHint);
  }
  info.vocab_size = sp->GetPieceSize();
  if (info.vocab_size <= 0) throw Error("model " + source + " has no pieces" + kHint);
  info.pad_id = sp->pad_id();
  info.bos_id = sp->bos_id();
  info.eos_id = sp->eos_id();
  info.unk_id = sp->unk_id();
  return sp;
}

}  // namespace

LoadedEncoder load_model_proto(std::string owned, std::string_view serialized, const std::string& source) {
  // Read bytes go to the heap once, before anything takes a view of them: the encoder and
  // its segment models keep views into them (sp_encoders.h, OwnedModel).
  OwnedModel held;
  if (!owned.empty()) {
    held = std::make_unique<const std::string>(std::move(owned));
    serialized = *held;
  }
  // SentencePiece reports every failure through the Status it returns, which
  // becomes one Error; its own stderr lines (a failed self-test's samples,
  // "Returns default value") would be a second account of the same thing.
  static std::once_flag quiet;
  std::call_once(quiet, [] { sentencepiece::logging::SetMinLogLevel(3); });
  if (serialized.empty()) throw Error("model " + source + " is empty" + kHint);
  // SentencePiece parses the protobuf itself, but checking the wire format
  // first turns truncated or foreign files into one clear message.
  if (!protobuf::well_formed(serialized)) {
    throw Error("model " + source + " is not a SentencePiece model (truncated or corrupt protobuf)" + kHint);
  }
  // A BPE model whose segments SegmentBpe encodes needs SentencePiece only
  // for the texts it leaves to it (see segment_bpe.h): its loading, the
  // costliest part of a short run, waits for one. The segment tables are
  // built on two cores when there are two and a thread may start (a pids
  // or process limit can forbid it): a speed-up, never a reason to fail.
  std::optional<SegmentRules> rules;
  std::optional<SegmentBpe> bpe;
  const bool segments = SegmentRules::spec_allows(serialized);
  if (segments) {
    const std::size_t threads = usable_threads(std::min<std::size_t>(2, available_cores()));
    parallel_for(2, threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t task = begin; task < end; ++task) {
        if (task == 0) rules = SegmentRules::from_model(serialized);
        if (task == 1) bpe = SegmentBpe::from_model(serialized);
      }
    });
  }
  LoadedEncoder out;
  ModelInfo& info = out.info;
  info.source = source;
  // A unigram model SegmentUnigram reproduces: SentencePiece waits too.
  std::optional<SegmentUnigram> unigram;
  if (!segments) unigram = SegmentUnigram::from_model(serialized);
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp;
  if (unigram) {
    set_special_ids(*unigram, info);
  } else if (rules && bpe) {
    set_special_ids(*bpe, info);
  } else {
    sp = load_now(serialized, source, rules, info);
    bpe.reset();
  }
  info.size_bytes = serialized.size();
  read_spec_fields(serialized, info);
  info.segment_cache = rules || unigram;
  if (unigram) {
    out.encoder = std::make_unique<SegmentUnigramEncoder>(std::move(held), serialized, source, std::move(*unigram));
  } else if (rules) {
    // The runs SentencePiece merges are of the model's UNKNOWN piece, whatever unk_piece names.
    const int unknown = bpe ? bpe->unknown_id() : info.unk_id;
    auto encoder = std::make_unique<SegmentEncoder>(std::move(*rules), unknown, std::move(bpe));
    out.encoder = std::make_unique<SegmentBpeEncoder>(std::move(held), serialized, source, std::move(encoder),
                                                      std::move(sp));
  } else {
    out.encoder = std::make_unique<WholeSentencePiece>(std::move(held), serialized, source, std::move(sp));
  }
  return out;
}

LoadedEncoder load_model_file(const std::string& path) { return load_model_proto(read_file(path), {}, path); }

}  // namespace embedpe::detail
