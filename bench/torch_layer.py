"""Seed 000's TransformerInput forward (eval) on batch × seq ids, timed: the
PyTorch baseline of bench/run.py. Prints seconds (best of 5)."""
import math
import sys
import time

import torch
import torch.nn as nn

batch, seq, d, threads = (int(a) for a in sys.argv[1:5])
torch.set_num_threads(threads)


class TransformerInput(nn.Module):
    def __init__(self, vocab_size, d_model, max_len=5000):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.embedding(x) * math.sqrt(self.d_model) + self.pe[:, : x.size(1), :]


layer = TransformerInput(8000, d).eval()
ids = torch.randint(0, 8000, (batch, seq))
best = 1e30
with torch.no_grad():
    for _ in range(5):
        t0 = time.perf_counter()
        layer(ids)
        best = min(best, time.perf_counter() - t0)
print(best)
