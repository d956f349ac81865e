// A minimal reader of the protobuf wire format, enough to check that a file
// is a well-formed message and to read a few scalar fields of a
// SentencePiece ModelProto that the processor does not expose.
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

namespace embedpe::protobuf {

// Appends `field` to `message` in the wire format (tests build model
// variants with it).
void append(std::string& message, const Field& field);

}  // namespace embedpe::protobuf
