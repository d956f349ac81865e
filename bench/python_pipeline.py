"""The Python way to do what `embedpe encode --input F --seq-len 64 --d-model 128 --format npy`
does: Python SentencePiece + seed 000's layer in PyTorch + np.save. bench/run.py times it."""
import math
import sys

import numpy as np
import sentencepiece as spm
import torch
import torch.nn as nn

model, corpus, out = sys.argv[1:4]
seq_len, d = 64, 128
torch.set_num_threads(2)
sp = spm.SentencePieceProcessor(model_file=model)
lines = open(corpus, encoding="utf-8-sig").read().splitlines()
ids = []
for line in lines:
    t = sp.encode(line)[: seq_len - 2]
    t = [sp.bos_id()] + t + [sp.eos_id()]
    ids.append(t + [sp.pad_id()] * (seq_len - len(t)))
emb = nn.Embedding(sp.vocab_size(), d)
pe = torch.zeros(5000, d)
position = torch.arange(0, 5000).unsqueeze(1).float()
div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
pe[:, 0::2] = torch.sin(position * div)
pe[:, 1::2] = torch.cos(position * div)
with torch.no_grad():
    x = emb(torch.tensor(ids)) * math.sqrt(d) + pe[:seq_len]
np.save(out, x.numpy())
