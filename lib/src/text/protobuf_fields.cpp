#include "protobuf_fields.h"

namespace embedpe::protobuf {
namespace {

bool read_varint(std::string_view in, std::size_t& pos, std::uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= in.size()) return false;
    auto byte = static_cast<unsigned char>(in[pos++]);
    out |= std::uint64_t(byte & 0x7F) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

bool read_fixed(std::string_view in, std::size_t& pos, int bytes, std::uint64_t& out) {
  if (in.size() - pos < static_cast<std::size_t>(bytes)) return false;
  out = 0;
  for (int i = 0; i < bytes; ++i) out |= std::uint64_t(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  pos += bytes;
  return true;
}

}  // namespace

bool next_field(std::string_view in, std::size_t& pos, Field& field) {
  std::uint64_t key;
  if (!read_varint(in, pos, key)) return false;
  field.number = static_cast<std::uint32_t>(key >> 3);
  field.wire_type = static_cast<int>(key & 7);
  if (field.number == 0 || (key >> 3) > 0x1FFFFFFF) return false;
  switch (field.wire_type) {
    case kVarint: return read_varint(in, pos, field.value);
    case kFixed64: return read_fixed(in, pos, 8, field.value);
    case kFixed32: return read_fixed(in, pos, 4, field.value);
    case kLengthDelimited: {
      std::uint64_t len;
      if (!read_varint(in, pos, len) || len > in.size() - pos) return false;
      field.bytes = in.substr(pos, len);
      pos += len;
      return true;
    }
    default: return false;
  }
}

std::vector<Field> fields(std::string_view message) {
  std::vector<Field> out;
  for_each_field(message, [&](const Field& f) { out.push_back(f); });
  return out;
}

bool well_formed(std::string_view message) {
  std::size_t pos = 0;
  Field field;
  while (pos < message.size()) {
    if (!next_field(message, pos, field)) return false;
  }
  return true;
}

}  // namespace embedpe::protobuf

namespace embedpe::protobuf {
namespace {

void append_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

}  // namespace

void append(std::string& message, const Field& field) {
  append_varint(message, (std::uint64_t(field.number) << 3) | static_cast<std::uint64_t>(field.wire_type));
  switch (field.wire_type) {
    case kVarint: append_varint(message, field.value); break;
    case kFixed64:
    case kFixed32:
      for (int i = 0; i < (field.wire_type == kFixed64 ? 8 : 4); ++i) {
        message += static_cast<char>((field.value >> (8 * i)) & 0xFF);
      }
      break;
    case kLengthDelimited:
      append_varint(message, field.bytes.size());
      message += field.bytes;
      break;
  }
}

std::string without_dummy_prefix(std::string_view model) {
  std::string spec;
  append(spec, Field{model_proto::kAddDummyPrefix, kVarint, 0, {}});
  std::string out(model);
  append(out, Field{model_proto::kNormalizerSpec, kLengthDelimited, 0, spec});
  return out;
}

}  // namespace embedpe::protobuf
