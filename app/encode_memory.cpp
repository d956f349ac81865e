// encode's memory estimate, checked before any work.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "memory.h"
#include "encode.h"

namespace embedpe::cli {

// Refuses, before any work, a run whose batches cannot fit in memory (or
// under ulimit -v), counting everything a batch holds: the texts, ids, mask
// and pieces, the float tensors (token_embeddings too when emitted, a copy
// in the output dtype), the PE rows kept by the layer and their copy, and
// the JSON text of the pieces. Without --seq-len a sequence is taken at its
// shortest (one token, plus BOS/EOS), so nothing that fits is refused; the
// layer checks again with the real length before its allocations.
void check_encode_memory(const Context& ctx, const std::vector<TextLine>& first, bool streaming) {
  const EncodeCommand& cmd = ctx.cmd;
  const std::size_t d = ctx.parts.table->d_model();
  std::size_t rows = first.size(), text_bytes = 0;
  if (!cmd.output_dir.empty()) rows = cmd.shard_rows;
  for (const auto& l : first) text_bytes += l.text.size();
  const std::size_t specials = std::size_t(!cmd.tokenize.no_bos) + std::size_t(!cmd.tokenize.no_eos);
  const std::size_t seq = cmd.tokenize.seq_len.value_or(1 + specials);
  // Streaming keeps two batches: one written while the next is computed.
  const std::size_t slots = streaming ? 2 : 1;
  const std::string what = "encoding " + std::to_string(rows) + (rows == 1 ? " line" : " lines") + " of " +
                           (cmd.tokenize.seq_len ? "" : "at least ") + std::to_string(seq) + " tokens at d_model " +
                           std::to_string(d);
  const std::size_t tokens = checked_product({rows, seq}, what);
  // Pieces are kept for real tokens only: at most a byte each, plus BOS/EOS.
  const std::size_t pieces = std::min(tokens, checked_sum({text_bytes, checked_product({rows, specials}, what)}, what));
  std::size_t floats_per_token = ctx.want_layer ? (ctx.want_tok ? 2 : 1) : 0;
  if (ctx.want_layer && cmd.dtype != DType::float32) floats_per_token *= 2;  // the converted copy
  const std::size_t per_slot = checked_sum(
      {checked_product({tokens, 2 * sizeof(std::int64_t)}, what),  // ids, mask
       checked_product({pieces, 40}, what),                         // piece strings
       checked_product({tokens, d, sizeof(float), floats_per_token}, what),
       ctx.want_layer ? checked_product({seq, d, sizeof(float), 2}, what) : 0,  // PE rows + positional_encoding
       ctx.want_rope ? checked_product({seq, cmd.rope_dim.value_or(d), sizeof(float), 2}, what) : 0},
      what);
  check_allocation(checked_sum({checked_product({per_slot, slots}, what), text_bytes}, what), what,
                   std::string(cmd.tokenize.seq_len ? "lower --seq-len or --d-model" : "lower --d-model") +
                       (streaming ? ", or a smaller --batch-size" : ", or encode fewer lines at a time"));
}

}  // namespace embedpe::cli
