#!/usr/bin/env python3
"""torch_copy.py - the peer figure for hdsim's copy target: how fast a PyTorch
.to() copy of pinned memory runs on this GPU.

Times `pinned.to("cuda", non_blocking=True)` (H2D) and
`gpu.to("cpu")` into a pinned tensor via copy_ (D2H) with CUDA events, the
way the source texts' own snippets do, after warm-up; prints the median of
the samples in GB/s (10^9 B/s) per direction and size.

    python3 bench/torch_copy.py [--sizes 256MiB,1GiB] [--samples 20]
"""
import argparse
import json
import statistics
import sys

import torch


def parse_size(s):
    units = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "B": 1}
    for u, f in units.items():
        if s.endswith(u):
            return int(float(s[: -len(u)]) * f)
    return int(s)


def time_copy(fn, samples, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(samples):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)  # seconds
    return statistics.median(times), times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256MiB")
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch_copy.py: no CUDA GPU visible to PyTorch", file=sys.stderr)
        return 1
    out = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cuda": torch.version.cuda, "results": []}
    for s in args.sizes.split(","):
        n = parse_size(s)
        host = torch.empty(n, dtype=torch.uint8).pin_memory()
        host_back = torch.empty(n, dtype=torch.uint8).pin_memory()
        dev = torch.empty(n, dtype=torch.uint8, device="cuda")
        med, _ = time_copy(lambda: host.to("cuda", non_blocking=True), args.samples)
        out["results"].append({"dir": "H2D", "bytes": n, "median_s": med, "GBps": n / med / 1e9})
        med, _ = time_copy(lambda: host_back.copy_(dev, non_blocking=True), args.samples)
        out["results"].append({"dir": "D2H", "bytes": n, "median_s": med, "GBps": n / med / 1e9})
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"# {out['gpu']}, torch {out['torch']}, CUDA {out['cuda']}")
        for r in out["results"]:
            print(f"torch pinned {r['dir']} {r['bytes']} B: {r['GBps']:.2f} GB/s "
                  f"(median of {args.samples})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
