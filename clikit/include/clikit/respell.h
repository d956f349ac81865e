// A library's messages name its parameters ("raise max_len"); a command line
// shows the flags that set them ("raise --max-len"). respell() turns the one
// into the other, leaving the user's own words (paths, quoted values) alone.
//
//   clikit::respell("seq_len 80 exceeds max_len 64", {"seq_len", "max_len"}, {}, clikit::kebab_flag)
//   // "--seq-len 80 exceeds --max-len 64"
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clikit {

// "--" and the name with '_' as '-': max_len → --max-len.
std::string kebab_flag(std::string_view parameter);

// `text` with each mention of one of `parameters` replaced by flag_for(it).
// A mention opens the text or follows a space, bracket or comma, and ends
// the text or is followed by a space, punctuation, "'s" or '/' ("a/b" names
// alternatives, so a mention may also follow '/' right after another). The
// same name inside a path ("/tmp/pad_id"), a quoted value or a longer name
// stays as it is, and so does every (begin, size) span in `verbatim` (in
// order, not overlapping): those are the user's words.
std::string respell(const std::string& text, const std::vector<std::string>& parameters,
                    const std::vector<std::pair<std::size_t, std::size_t>>& verbatim,
                    const std::function<std::string(std::string_view)>& flag_for);

// (parameter, value) pairs as a command line spells them: each flag_for(name),
// then its value (none for a switch) as a POSIX shell reads it back, quoted
// where it has to be: "--d-model 768 --weights 'my dir/model.safetensors'".
std::string command_line(const std::vector<std::pair<std::string, std::string>>& parameters,
                         const std::function<std::string(std::string_view)>& flag_for);

}  // namespace clikit
