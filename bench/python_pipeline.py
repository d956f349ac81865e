"""The Python way to do what `embedpe encode --input F --seq-len 64 --d-model 128 --format npy`
does: Python SentencePiece + the Annotated Transformer layer in PyTorch + np.save. bench/run.py times it."""
import pathlib
import sys

import numpy as np
import sentencepiece as spm
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools"))
from make_goldens import TransformerInput  # noqa: E402  (the Annotated Transformer layer)

model, corpus, out = sys.argv[1:4]
seq_len, d = 64, 128
torch.set_num_threads(2)
sp = spm.SentencePieceProcessor(model_file=model)
pad = sp.pad_id() if sp.pad_id() >= 0 else 0  # LLaMA-2 has no pad piece: embedpe pads with id 0 then
ids = []
for line in open(corpus, encoding="utf-8-sig").read().splitlines():
    t = [sp.bos_id()] + sp.encode(line)[: seq_len - 2] + [sp.eos_id()]
    ids.append(t + [pad] * (seq_len - len(t)))
layer = TransformerInput(sp.vocab_size(), d).eval()
with torch.no_grad():
    np.save(out, layer(torch.tensor(ids)).numpy())
