"""The Annotated Transformer's TransformerInput forward (eval) on batch × seq ids, timed: the
PyTorch baseline of bench/run.py. Prints seconds (best of 5)."""
import pathlib
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools"))
from make_goldens import TransformerInput  # noqa: E402  (the Annotated Transformer layer, as the goldens use it)

batch, seq, d, threads = (int(a) for a in sys.argv[1:5])
torch.set_num_threads(threads)
layer = TransformerInput(8000, d).eval()
ids = torch.randint(0, 8000, (batch, seq))
best = 1e30
with torch.no_grad():
    for _ in range(5):
        t0 = time.perf_counter()
        layer(ids)
        best = min(best, time.perf_counter() - t0)
print(best)
