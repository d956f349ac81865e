// A minimal reader of the protobuf wire format, enough to check that a file
// is a well-formed message and to read the fields of a SentencePiece
// ModelProto that the tokenizer reads itself, and those fields' numbers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace embedpe::protobuf {

enum WireType : int { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

struct Field {
  std::uint32_t number = 0;
  int wire_type = 0;
  std::uint64_t value = 0;  // kVarint, kFixed64, kFixed32
  std::string_view bytes;   // kLengthDelimited
};

// Reads the field at `pos` and moves past it; false if it is malformed.
bool next_field(std::string_view message, std::size_t& pos, Field& field);

// Calls visit(field) for each top-level field of a message, in order, without
// allocating; stops at the first malformed field.
template <class Visit>
void for_each_field(std::string_view message, Visit&& visit) {
  std::size_t pos = 0;
  Field field;
  while (pos < message.size() && next_field(message, pos, field)) visit(field);
}

// The top-level fields of a message; stops at the first malformed field.
std::vector<Field> fields(std::string_view message);

// True if the whole buffer parses as a sequence of fields (groups and
// unknown wire types count as malformed: SentencePiece models use neither).
bool well_formed(std::string_view message);

}  // namespace embedpe::protobuf

// The ModelProto fields embedpe reads, as sentencepiece_model.proto numbers
// them (SentencePiece v0.1.97): the one home of these numbers.
namespace embedpe::model_proto {

// ModelProto
constexpr std::uint32_t kPieces = 1, kTrainerSpec = 2, kNormalizerSpec = 3, kSelfTestData = 4, kDenormalizerSpec = 5;
// ModelProto.SentencePiece, and its Type
constexpr std::uint32_t kPiece = 1, kScore = 2, kType = 3;
enum PieceType : std::uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };
// TrainerSpec; model_type's values (UNIGRAM = 1, BPE, WORD, CHAR); the
// special ids unk_id .. pad_id are 40 to 43, their pieces' names unk_piece ..
// pad_piece 45 to 48
constexpr std::uint32_t kModelType = 3, kVocabSize = 4, kTreatWhitespaceAsSuffix = 24, kSplitDigits = 25,
                        kByteFallback = 35, kUnkId = 40, kBosId = 41, kEosId = 42, kPadId = 43, kUnkPiece = 45,
                        kBosPiece = 46, kEosPiece = 47, kPadPiece = 48;
constexpr std::uint64_t kModelBpe = 2;
// NormalizerSpec (and the denormalizer's, the same message)
constexpr std::uint32_t kName = 1, kCharsmap = 2, kAddDummyPrefix = 3, kRemoveExtraWhitespaces = 4,
                        kEscapeWhitespaces = 5;

// unk_id .. pad_id as SentencePieceProcessor gives them (-1 where the model has none).
struct SpecialIds {
  int unk = -1, bos = -1, eos = -1, pad = -1;
};
// SentencePieceProcessor's unk_id() .. pad_id() for the pieces unk_piece .. pad_piece name
// (`names`): the named piece's id (`piece_to_id`) if its type (`type_of(id)`) is UNKNOWN for
// unk and CONTROL for the others, else -1 (SegmentBpe's and SegmentUnigram's).
template <class PieceToId, class TypeOf>
SpecialIds special_ids(const std::string_view (&names)[4], PieceToId piece_to_id, TypeOf type_of) {
  const auto special = [&](std::string_view name, std::uint8_t type) {
    const int id = piece_to_id(name);
    return type_of(id) == type ? id : -1;
  };
  return {special(names[0], kUnknown), special(names[1], kControl), special(names[2], kControl),
          special(names[3], kControl)};
}

}  // namespace embedpe::model_proto

namespace embedpe::protobuf {

// Appends `field` to `message` in the wire format (tests build model
// variants with it).
void append(std::string& message, const Field& field);

// A serialized ModelProto with normalizer_spec.add_dummy_prefix set to
// false: a second normalizer_spec appended to the message is merged into the
// first by the protobuf parser, so this is the same model without the ' '
// SentencePiece puts before each text.
std::string without_dummy_prefix(std::string_view model);

}  // namespace embedpe::protobuf
