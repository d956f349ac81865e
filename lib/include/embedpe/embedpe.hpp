// Everything a user of the embedpe library needs, in one include.
//
//   #include <embedpe/embedpe.hpp>
//
//   auto tok = embedpe::Tokenizer::default_model();
//   auto batch = tok.encode_batch({"Hello"}, {});                      // input_ids (batch, seq_len)
//   embedpe::RandomNormalTable table(tok.info().vocab_size, 512, 0);   // (vocab, d_model)
//   embedpe::SinusoidalEncoding pe({.d_model = 512});                  // (max_len, d_model)
//   auto out = embedpe::InputLayer(table, pe, {}).forward(batch.input_ids).output;  // (batch, seq_len, d_model)
//
// It includes every installed header; each can also be included on its own.
// The library's helpers (half floats, threads, memory checks, SHA-256, the
// JSON writer) are private to it and not installed.
#pragma once

#include "embedpe/alibi.h"
#include "embedpe/diff.h"
#include "embedpe/dims.h"
#include "embedpe/dtype.h"
#include "embedpe/embedding.h"
#include "embedpe/projection.h"
#include "embedpe/encode_command.h"
#include "embedpe/encoder.h"
#include "embedpe/encode_request.h"
#include "embedpe/error.h"
#include "embedpe/heatmap.h"
#include "embedpe/heatmap_look.h"
#include "embedpe/id_rows.h"
#include "embedpe/input_layer.h"
#include "embedpe/layer_spec.h"
#include "embedpe/mapped_file.h"
#include "embedpe/message.h"
#include "embedpe/model_info.h"
#include "embedpe/model_source.h"
#include "embedpe/pretrained_model.h"
#include "embedpe/pretrained_tensor.h"
#include "embedpe/output_file.h"
#include "embedpe/param_table.h"
#include "embedpe/parts_dir.h"
#include "embedpe/shards.h"
#include "embedpe/pe_analysis.h"
#include "embedpe/pe_command.h"
#include "embedpe/pe_kind.h"
#include "embedpe/pe_view.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/progress.h"
#include "embedpe/quantize.h"
#include "embedpe/report.h"
#include "embedpe/report_commands.h"
#include "embedpe/rope.h"
#include "embedpe/sink.h"
#include "embedpe/tensor_io.h"
#include "embedpe/text_input.h"
#include "embedpe/threads.h"
#include "embedpe/tokenizer.h"
#include "embedpe/version.h"
#include "embedpe/weights.h"
