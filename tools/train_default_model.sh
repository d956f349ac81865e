#!/usr/bin/env bash
# Re-trains data/default.model, the SentencePiece model embedded in embedpe.
#
#   tools/train_default_model.sh [CORPORA_DIR]   (default: ../shared/corpora)
#
# Training text: botchan.txt (public domain) and both sides of the Tatoeba
# English–Chinese pairs in tatoeba-cmn.tsv (CC-BY 2.0 FR; see README.md).
# Line endings are normalised and botchan's UTF-8 BOM is dropped so that '\r'
# and U+FEFF do not become pieces. Byte fallback keeps any character outside
# the vocabulary (rare Chinese, emoji) from becoming <unk>. One thread and a
# fixed seed keep the result reproducible.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
corpora=${1:-$here/../shared/corpora}
out=$here/data/default.model

for f in botchan.txt tatoeba-cmn.tsv; do
  [ -r "$corpora/$f" ] || { echo "train_default_model: cannot read $corpora/$f" >&2; exit 1; }
done
command -v spm_train >/dev/null || { echo "train_default_model: spm_train not found (apt-get install sentencepiece)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{
  sed -e '1s/^\xEF\xBB\xBF//' -e 's/\r$//' "$corpora/botchan.txt"
  cut -f1 "$corpora/tatoeba-cmn.tsv"
  cut -f2 "$corpora/tatoeba-cmn.tsv"
} | grep -v '^[[:space:]]*$' > "$work/train.txt"

# Relative names: the model records its training input path, which must not
# depend on the temporary directory.
(cd "$work" && spm_train \
  --input=train.txt \
  --model_prefix=default \
  --model_type=unigram \
  --vocab_size=8000 \
  --character_coverage=0.9995 \
  --byte_fallback=true \
  --split_digits=true \
  --pad_id=0 --bos_id=1 --eos_id=2 --unk_id=3 \
  --num_threads=1 \
  --random_seed=20261129 \
  --input_sentence_size=0 \
  --minloglevel=1)

install -m 0644 "$work/default.model" "$out"
echo "wrote $out ($(wc -c < "$out") bytes, sha256 $(sha256sum "$out" | cut -c1-64))"
