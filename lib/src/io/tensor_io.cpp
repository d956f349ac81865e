#include "embedpe/tensor_io.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "crc32.h"
#include "embedpe/error.h"
#include "memory.h"
#include "utf8.h"

namespace embedpe {

// ---------------------------------------------------------------- writing

std::string npy_header(const TensorRef& tensor, std::size_t min_size) {
  const char* descr = dtype_info(tensor.dtype).numpy_descr;
  if (!descr) {
    throw UsageError(std::string("tensor ") + tensor.name + " is " + dtype_name(tensor.dtype) +
                     ", which NumPy has no dtype for");
  }
  std::string dict = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < tensor.shape.size(); ++i) {
    dict += std::to_string(tensor.shape[i]);
    if (tensor.shape.size() == 1 || i + 1 < tensor.shape.size()) dict += tensor.shape.size() == 1 ? "," : ", ";
  }
  dict += "), }";
  // Version 1.0 has a 2-byte header length; longer headers need 2.0.
  const bool v2 = dict.size() + 1 + 10 + 64 > 0xFFFF;
  const std::size_t prefix = v2 ? 12 : 10;
  const std::size_t total = std::max(min_size, (prefix + dict.size() + 1 + 63) / 64 * 64);
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  const std::size_t len = dict.size();
  std::string header = "\x93NUMPY";
  header += static_cast<char>(v2 ? 2 : 1);
  header += '\0';
  header += static_cast<char>(len & 0xFF);
  header += static_cast<char>((len >> 8) & 0xFF);
  if (v2) {
    header += static_cast<char>((len >> 16) & 0xFF);
    header += static_cast<char>((len >> 24) & 0xFF);
  }
  return header + dict;
}

void write_npy(OutputFile& out, const TensorRef& tensor) {
  out.write(npy_header(tensor));
  out.write(tensor.data, tensor.bytes());
}

namespace {

void put16(std::string& s, std::uint32_t v) {
  s += static_cast<char>(v & 0xFF);
  s += static_cast<char>((v >> 8) & 0xFF);
}
void put32(std::string& s, std::uint32_t v) {
  put16(s, v & 0xFFFF);
  put16(s, v >> 16);
}

constexpr std::uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01: reproducible bytes
constexpr std::uint16_t kDosTime = 0;

// What a ZIP local header and its central directory entry both hold, from
// "version needed" on: a stored member, the fixed timestamp, its CRC-32 and
// sizes, its name's length, no extra field.
void put_member_fields(std::string& s, std::uint32_t crc, std::uint32_t size, std::size_t name_size) {
  put16(s, 20);  // version needed: 2.0
  put16(s, 0);   // flags
  put16(s, 0);   // stored
  put16(s, kDosTime);
  put16(s, kDosDate);
  put32(s, crc);
  put32(s, size);
  put32(s, size);
  put16(s, static_cast<std::uint32_t>(name_size));
  put16(s, 0);  // extra length
}

// UTF-32LE code points of valid UTF-8, as NumPy stores a "<Un" string.
std::string utf32le(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 4);
  for (std::size_t i = 0; i < text.size();) put32(out, utf8::next(text, i));
  return out;
}

}  // namespace

void write_npz(OutputFile& out, const std::vector<TensorRef>& tensors, const std::vector<NpzText>& texts) {
  struct Entry {
    std::string name;
    std::uint32_t crc;
    std::uint32_t size;
    std::uint32_t offset;
  };
  struct Member {
    std::string name, header;
    const void* data;
    std::size_t bytes;
  };
  std::vector<Member> members;
  for (const TensorRef& t : tensors) members.push_back({t.name, npy_header(t), t.data, t.bytes()});
  std::vector<std::string> text_data;
  text_data.reserve(texts.size());
  for (const NpzText& t : texts) {
    text_data.push_back(utf32le(t.utf8));
    const std::size_t chars = std::max<std::size_t>(text_data.back().size() / 4, 1);  // NumPy's '' is <U1
    if (text_data.back().empty()) text_data.back().assign(4, '\0');
    std::string dict = "{'descr': '<U" + std::to_string(chars) + "', 'fortran_order': False, 'shape': (), }";
    const std::size_t total = (10 + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - 10 - dict.size() - 1, ' ');
    dict += '\n';
    std::string header = "\x93NUMPY";
    header += '\x01';
    header += '\0';
    put16(header, static_cast<std::uint32_t>(dict.size()));
    members.push_back({t.name, header + dict, text_data.back().data(), text_data.back().size()});
  }
  std::vector<Entry> entries;
  std::uint64_t offset = 0;
  for (const Member& m : members) {
    const std::string& header = m.header;
    const std::uint64_t size = header.size() + static_cast<std::uint64_t>(m.bytes);
    // Without ZIP64, members and offsets must stay below 4 GiB.
    if (size >= kMaxNpzBytes || offset + size + 4096 >= kMaxNpzBytes) {
      throw UsageError("tensor " + m.name + " makes the .npz larger than 4 GiB, which embedpe's .npz writer "
                       "does not support yet; write it with format npy",
                       {"format"});
    }
    Entry e{m.name + ".npy", 0, static_cast<std::uint32_t>(size), static_cast<std::uint32_t>(offset)};
    e.crc = Crc32().add(header).add(m.data, m.bytes).value();

    std::string local;
    put32(local, 0x04034b50);
    put_member_fields(local, e.crc, e.size, e.name.size());
    local += e.name;
    out.write(local);
    out.write(header);
    out.write(m.data, m.bytes);
    offset += local.size() + size;
    entries.push_back(std::move(e));
  }

  std::string central;
  for (const auto& e : entries) {
    put32(central, 0x02014b50);
    put16(central, 20);  // made by: 2.0, MS-DOS attributes
    put_member_fields(central, e.crc, e.size, e.name.size());
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);  // internal attributes
    put32(central, 0);  // external attributes
    put32(central, e.offset);
    central += e.name;
  }
  std::string end;
  put32(end, 0x06054b50);
  put16(end, 0);
  put16(end, 0);
  put16(end, static_cast<std::uint32_t>(entries.size()));
  put16(end, static_cast<std::uint32_t>(entries.size()));
  put32(end, static_cast<std::uint32_t>(central.size()));
  put32(end, static_cast<std::uint32_t>(offset));
  put16(end, 0);
  out.write(central);
  out.write(end);
}

// ---------------------------------------------------------------- reading

namespace {

// A cursor over the Python-literal dict of a .npy header.
struct DictParser {
  std::string_view s;
  std::size_t pos = 0;
  const std::string& source;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(source + ": malformed .npy header (" + what + "); the file is not a NumPy .npy array or is corrupt");
  }
  void skip_space() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r')) ++pos;
  }
  bool eat(char c) {
    skip_space();
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  std::string string_literal() {
    skip_space();
    if (pos >= s.size() || (s[pos] != '\'' && s[pos] != '"')) fail("expected a string");
    char quote = s[pos++];
    std::size_t end = s.find(quote, pos);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(s.substr(pos, end - pos));
    pos = end + 1;
    return out;
  }
  bool boolean() {
    skip_space();
    if (s.substr(pos, 4) == "True") { pos += 4; return true; }
    if (s.substr(pos, 5) == "False") { pos += 5; return false; }
    fail("expected True or False");
  }
  std::size_t integer() {
    skip_space();
    std::size_t start = pos;
    std::uint64_t v = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (v > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) fail("dimension too large");
      v = v * 10 + static_cast<std::uint64_t>(s[pos++] - '0');
    }
    if (pos == start) fail("expected a dimension");
    if (pos < s.size() && s[pos] == 'L') ++pos;  // Python 2 long
    return static_cast<std::size_t>(v);
  }
  std::vector<std::size_t> shape() {
    expect('(');
    std::vector<std::size_t> dims;
    if (eat(')')) return dims;
    while (true) {
      dims.push_back(integer());
      if (dims.size() > 32) fail("more than 32 dimensions");
      if (eat(')')) return dims;
      expect(',');
      if (eat(')')) return dims;
    }
  }
};

}  // namespace

NpyHeader parse_npy_header(std::string_view file, const std::string& source) {
  if (file.size() < 10 || file.substr(0, 6) != "\x93NUMPY") {
    throw Error(source + ": not a .npy file (no \\x93NUMPY magic); save it with numpy.save");
  }
  NpyHeader h;
  h.major_version = static_cast<unsigned char>(file[6]);
  std::size_t len = 0, prefix = 0;
  auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(file[i])); };
  if (h.major_version == 1) {
    len = byte(8) | byte(9) << 8;
    prefix = 10;
  } else if (h.major_version == 2 || h.major_version == 3) {
    if (file.size() < 12) throw Error(source + ": truncated .npy header");
    len = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    prefix = 12;
  } else {
    throw Error(source + ": unsupported .npy format version " + std::to_string(h.major_version));
  }
  if (len > file.size() - prefix) throw Error(source + ": truncated .npy header");
  h.data_offset = prefix + len;

  DictParser p{file.substr(prefix, len), 0, source};
  bool has_descr = false, has_order = false, has_shape = false;
  p.expect('{');
  while (!p.eat('}')) {
    std::string key = p.string_literal();
    p.expect(':');
    if (key == "descr") {
      h.descr = p.string_literal();
      has_descr = true;
    } else if (key == "fortran_order") {
      h.fortran_order = p.boolean();
      has_order = true;
    } else if (key == "shape") {
      h.shape = p.shape();
      has_shape = true;
    } else {
      p.fail("unexpected key '" + key + "'");
    }
    if (!p.eat(',')) {
      p.expect('}');
      break;
    }
  }
  if (!has_descr || !has_order || !has_shape) p.fail("descr, fortran_order and shape are required");
  return h;
}

bool npy_holds_text(std::string_view file, const std::string& source) {
  const std::string descr = parse_npy_header(file, source).descr;
  return descr.size() > 2 && (descr[0] == '<' || descr[0] == '|') && descr[1] == 'U';
}

std::string npy_text(std::string_view file, const std::string& source) {
  const NpyHeader h = parse_npy_header(file, source);
  std::size_t chars = 0;
  const bool text = h.descr.size() > 2 && h.descr[0] == '<' && h.descr[1] == 'U' &&
                    std::all_of(h.descr.begin() + 2, h.descr.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
                    h.descr.size() < 12 && (chars = std::stoul(h.descr.substr(2))) > 0;
  if (!text || !h.shape.empty() || chars > (file.size() - h.data_offset) / 4) {
    throw Error(source + " is not a string that embedpe wrote (a 0-d unicode array)");
  }
  std::string out;
  for (std::size_t i = 0; i < chars; ++i) {
    std::uint32_t c = 0;
    for (int k = 3; k >= 0; --k) c = c << 8 | static_cast<unsigned char>(file[h.data_offset + 4 * i + k]);
    if (c == 0) break;  // NumPy pads shorter strings with NULs
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) throw Error(source + " holds an invalid code point");
    utf8::append(out, c);
  }
  return out;
}

// ---------------------------------------------------------------- reading .npz

namespace {

std::uint64_t get_le(std::string_view bytes, std::size_t at, int size) {
  std::uint64_t v = 0;
  for (int i = size - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

std::string inflate_raw(std::string_view in, std::uint64_t size, const std::string& where) {
  std::string out(size, '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw Error(where + ": cannot start zlib");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  const bool whole = rc == Z_STREAM_END && z.total_out == size;
  inflateEnd(&z);
  if (!whole) throw Error(where + " is corrupt (its deflated data does not inflate to its recorded size)");
  return out;
}

}  // namespace

std::vector<NpzEntry> npz_entries(std::string_view file, const std::string& source) {
  auto corrupt = [&](const std::string& why) -> Error { return Error(source + " is not a valid .npz: " + why); };
  // The end-of-central-directory record: the last 22 bytes, or before a comment.
  constexpr std::size_t kEnd = 22;
  if (file.size() < kEnd) throw corrupt("too short for a zip archive");
  std::size_t end = file.size() - kEnd;
  const std::size_t lowest = file.size() > kEnd + 0xFFFF ? file.size() - kEnd - 0xFFFF : 0;
  while (get_le(file, end, 4) != 0x06054b50) {
    if (end == lowest) throw corrupt("no zip end-of-central-directory record");
    --end;
  }
  std::uint64_t count = get_le(file, end + 10, 2);
  std::uint64_t dir_size = get_le(file, end + 12, 4);
  std::uint64_t dir_offset = get_le(file, end + 16, 4);
  if ((count == 0xFFFF || dir_offset == 0xFFFFFFFF) && end >= 20 && get_le(file, end - 20, 4) == 0x07064b50) {
    const std::uint64_t z64 = get_le(file, end - 20 + 8, 8);  // the ZIP64 end record
    if (z64 > file.size() || file.size() - z64 < 56 || get_le(file, z64, 4) != 0x06064b50) {
      throw corrupt("bad ZIP64 end record");
    }
    count = get_le(file, z64 + 32, 8);
    dir_size = get_le(file, z64 + 40, 8);
    dir_offset = get_le(file, z64 + 48, 8);
  }
  if (dir_offset > file.size() || dir_size > file.size() - dir_offset) throw corrupt("central directory out of range");

  std::vector<NpzEntry> entries;
  std::size_t at = dir_offset;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (dir_offset + dir_size - at < 46 || get_le(file, at, 4) != 0x02014b50) throw corrupt("bad central directory");
    const auto method = get_le(file, at + 10, 2);
    const auto crc = static_cast<std::uint32_t>(get_le(file, at + 16, 4));
    std::uint64_t packed = get_le(file, at + 20, 4);
    std::uint64_t size = get_le(file, at + 24, 4);
    const std::size_t name_len = get_le(file, at + 28, 2);
    const std::size_t extra_len = get_le(file, at + 30, 2);
    const std::size_t comment_len = get_le(file, at + 32, 2);
    std::uint64_t local = get_le(file, at + 42, 4);
    const std::size_t next = at + 46 + name_len + extra_len + comment_len;
    if (next > dir_offset + dir_size) throw corrupt("bad central directory");
    std::string name(file.substr(at + 46, name_len));
    // ZIP64: the sizes and offset that are 0xFFFFFFFF above, in this order.
    for (std::size_t e = at + 46 + name_len; e + 4 <= at + 46 + name_len + extra_len;) {
      const auto id = get_le(file, e, 2), len = get_le(file, e + 2, 2);
      if (e + 4 + len > at + 46 + name_len + extra_len) throw corrupt("bad extra field in " + name);
      if (id == 0x0001) {
        std::size_t f = e + 4;
        for (std::uint64_t* v : {&size, &packed, &local}) {
          if (*v != 0xFFFFFFFF) continue;
          if (f + 8 > e + 4 + len) throw corrupt("bad ZIP64 field in " + name);
          *v = get_le(file, f, 8);
          f += 8;
        }
      }
      e += 4 + len;
    }
    at = next;

    if (local > file.size() || file.size() - local < 30 || get_le(file, local, 4) != 0x04034b50) {
      throw corrupt("bad local header for " + name);
    }
    const std::uint64_t data = local + 30 + get_le(file, local + 26, 2) + get_le(file, local + 28, 2);
    if (data > file.size() || packed > file.size() - data) throw corrupt(name + " runs past the end of the file");
    if (name.size() > 4 && name.ends_with(".npy")) name.resize(name.size() - 4);
    // A reader that takes the first (or last) of two members of one name
    // would silently pick one of two arrays.
    for (const NpzEntry& seen : entries) {
      if (seen.name == name) throw corrupt("the member " + name + ".npy is in the archive twice");
    }
    entries.push_back({std::move(name), file.substr(data, packed), static_cast<std::uint16_t>(method), size, crc});
  }
  return entries;
}

std::vector<NpzMember> read_npz(std::string_view file, const std::string& source,
                                const std::vector<std::string>& only) {
  std::vector<NpzMember> members;
  for (NpzEntry& e : npz_entries(file, source)) {
    if (!only.empty() && std::find(only.begin(), only.end(), e.name) == only.end()) continue;
    const std::string where = source + ": " + e.name;
    std::string bytes;
    if (e.method == 0) {
      if (e.data.size() != e.size)
        throw Error(source + " is not a valid .npz: " + e.name + " is stored with two different sizes");
      bytes.assign(e.data);
    } else if (e.method == 8) {
      // A deflated member inflates to at most ~1032× its size.
      if (e.size / 1032 > e.data.size() + 1) {
        throw Error(source + " is not a valid .npz: " + e.name + " claims an impossible inflated size");
      }
      if (e.data.size() >= 0xFFFFFFFF || e.size >= 0xFFFFFFFF)
        throw Error(where + " is deflated and over 4 GiB, which is not read");
      bytes = inflate_raw(e.data, e.size, where);
    } else {
      throw Error(where + " uses zip compression method " + std::to_string(e.method) +
                  "; only stored and deflated members are read");
    }
    if (Crc32().add(bytes).value() != e.crc32) throw Error(where + " is corrupt (CRC-32 mismatch)");
    members.push_back({std::move(e.name), std::move(bytes)});
  }
  return members;
}

void check_npz_entry(const NpzEntry& entry, const std::string& source) {
  if (entry.method == 0 && Crc32().add(entry.data).value() != entry.crc32) {
    throw Error(source + ": " + entry.name + " is corrupt (CRC-32 mismatch)");
  }
}

}  // namespace embedpe
