// What a file's name says about it, for the readers that choose a format by
// extension (decode's ids, diff's inputs).
#pragma once

#include <cctype>
#include <string>

namespace embedpe {

// The extension of the last path component, with its dot and in lower case
// (".npz"); "" when it has none.
inline std::string lower_extension(const std::string& path) {
  const std::size_t slash = path.rfind('/'), dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace embedpe
