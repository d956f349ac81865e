// Tokenizer's batches: BOS/EOS as ModelInfo says or a pretrained tokenizer's template,
// truncation (longest_first for pairs) and padding on either side; ids given as input go
// through the same padding step.
#include <algorithm>
#include <iterator>

#include "embedpe/error.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"
#include "memory.h"
#include "parallel.h"
#include "pretrained_encoder.h"
#include "tokenizer_impl.h"

namespace embedpe {

namespace {

// Runs `encode` for text `i` of a batch: an error it raises names the text (TextError).
template <class F>
void encode_text(std::size_t i, F&& encode) {
  try {
    encode();
  } catch (const TextError&) {
    throw;
  } catch (const Error& e) {
    throw TextError(i, e);
  }
}

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
      encode_text(i, [&] { encoded[i] = encode(texts[i], pieces); });
    }
  });
  return encoded;
}

std::vector<Encoding> Tokenizer::encode_each(const std::vector<std::string>& texts, const EncodeOptions& options,
                                             std::size_t threads, Pieces pieces) const {
  if (options.seq_len) throw UsageError("encode_each neither truncates nor pads: seq_len needs encode_batch", {"seq_len"});
  if (impl_->encoder->pretrained()) {
    // Unpadded: a padded batch of long lines costs more than tokenizing them.
    std::vector<Encoding> out;
    hf_batch(texts, nullptr, options, threads, &out, pieces);
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
  if (impl_->encoder->pretrained()) return hf_batch(texts, nullptr, options, threads);
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
  if (impl_->encoder->pretrained()) return hf_batch(a, &b, options, threads);
  const ModelInfo& info = impl_->info;
  auto special = [&](const char* piece) {
    const int id = impl_->encoder->piece_to_id(piece);
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
      encode_text(i, [&] {
        first[i] = encode(a[i]);
        second[i] = encode(b[i]);
      });
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

namespace {

// HF tokenizers' longest_first for a pair of lengths a, b over max_length (truncation.rs
// truncate_encodings): the shorter whole if the longer can take the rest, else both halves, the
// longer (the second on a tie) keeping max_length's odd token.
void halve_pair(std::size_t& a, std::size_t& b, std::size_t max_length) {
  const bool swap = a > b;
  std::size_t n1 = swap ? b : a, n2 = swap ? a : b;
  n2 = n1 > max_length ? n1 : std::max(n1, max_length - n1);
  if (n1 + n2 > max_length) {
    n1 = max_length / 2;
    n2 = n1 + max_length % 2;
  }
  a = swap ? n2 : n1;
  b = swap ? n1 : n2;
}

// HF leaves the template longer than a shorter max_length; the core's template alone fills an
// equal one, a slow class's only with empty texts (checked text by text in hf_batch).
void check_room_for_template(const detail::PretrainedEncoder& hf, const EncodeOptions& options, std::size_t specials) {
  if (!options.seq_len || (*options.seq_len >= specials && *options.seq_len > 0)) return;
  const std::string why = specials == 0 ? " leaves no room for a text"
                                        : " is shorter than the " + std::to_string(specials) + " special tokens of " +
                                              hf.class_name() + "'s template (HF would return them all, longer than it)";
  throw UsageError("seq_len " + std::to_string(*options.seq_len) + why + "; use at least " +
                       (specials == 0 ? "1" : std::to_string(specials) + " (" + std::to_string(specials + 1) +
                                                  " to keep any of the text)") +
                       (hf.template_whole() ? ", or add_bos=false with add_eos=false (the template goes whole)"
                                            : ", or add_bos=false/add_eos=false"),
                   {"seq_len", "add_bos=false", "add_eos=false"});
}

}  // namespace

// prepare_for_model (longest_first truncation to max_length = seq_len), then _pad.
Batch Tokenizer::hf_batch(const std::vector<std::string>& a, const std::vector<std::string>* b,
                          const EncodeOptions& options, std::size_t threads, std::vector<Encoding>* each,
                          Pieces pieces) const {
  const detail::PretrainedEncoder& hf = *impl_->encoder->pretrained();
  const ModelInfo& info = impl_->info;
  const bool pair = b != nullptr;
  if (pair && (!options.add_bos || !options.add_eos) &&
      !(hf.pairs_without_special_tokens() && !options.add_bos && !options.add_eos)) {
    throw UsageError("add_bos=false/add_eos=false: pairs take " + hf.class_name() + "'s whole template; drop them",
                     {"add_bos=false", "add_eos=false"});
  }
  const std::size_t specials = hf.num_special_tokens_to_add(pair, options.add_bos, options.add_eos);
  const bool core = hf.truncation() == detail::PretrainedEncoder::Truncation::core;
  check_room_for_template(hf, options, specials);
  const int pad = pad_id(options);
  check_options(info, options, pad, 0);
  const std::size_t n = a.size();
  std::vector<detail::PretrainedEncoder::Sequence> first(n), second(pair ? n : 0);
  parallel_for(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      check_text(a[i], "text " + std::to_string(i + 1));
      encode_text(i, [&] { first[i] = pieces == Pieces::keep ? hf.encode(a[i]) : hf.encode_ids(a[i]); });
      if (pair) {
        check_text((*b)[i], "text pair " + std::to_string(i + 1));
        encode_text(i, [&] { second[i] = hf.encode((*b)[i]); });
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
        // A slow class leaves a text it cannot cut enough longer than max_length; embedpe cannot
        // pad it. The core cuts it to nothing.
        if (!core && x.size() <= remove) {
          throw UsageError("seq_len " + std::to_string(*options.seq_len) + " cannot hold text " + std::to_string(i + 1) +
                               ": its " + std::to_string(specials) + " special tokens and at least one of its " +
                               std::to_string(x.size()) + " tokens need more (HF would leave it longer than max_length)",
                           {"seq_len"});
        }
        cut(first[i], remove);
      } else {
        std::size_t lx = x.size(), ly = y->size();
        if (core) {
          halve_pair(lx, ly, *options.seq_len - specials);
        } else {
          // longest_first: the longer loses a token at a time, the second on a tie
          for (; remove > 0; --remove) {
            if (lx > ly) {
              --lx;
            } else if (ly > 0) {
              --ly;
            }
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
      if (pieces == Pieces::keep) (*each)[i].pieces = std::move(built[i].tokens);
    }
    return batch;
  }
  std::size_t seq_len = options.seq_len.value_or(longest);
  if (const auto m = options.pad_to_multiple_of; m && seq_len % *m != 0) seq_len = (seq_len / *m + 1) * *m;
  if (seq_len > longest) check_padded_size(n, seq_len, options);
  batch.input_ids = xt::xtensor<std::int64_t, 2>::from_shape({n, seq_len});
  batch.attention_mask = xt::zeros<std::int64_t>({n, seq_len});
  batch.input_ids.fill(pad);
  const bool types = hf.has_token_type_ids() || (pair && hf.has_pair_token_type_ids());
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

}  // namespace embedpe
