#!/usr/bin/env python3
"""torch_allreduce.py - the peer figure for hdsim's all-reduce target: the
busBw torch.distributed's all_reduce (NCCL) reaches on all GPUs of this machine.

One process per GPU (torch.multiprocessing), NCCL_NVLS_ENABLE=0 unless set.
Per size, the nccl-tests way: warm-up, a barrier, `iters` all_reduces back to
back on float32 tensors timed by the host clock around them and a
synchronize; the time per all-reduce is the maximum over ranks (nccl-tests
-a 3), and also the median of per-iteration CUDA-event times (max over
ranks).  algBw = size / time, busBw = algBw * 2(n-1)/n; GB/s = 10^9 B/s.
Prints nccl-tests style rows (or JSON with --json).

    python3 bench/torch_allreduce.py [--sizes 64MiB,256MiB,1GiB] [--iters 20]
        [--samples 5] [--ranks N] [--json]
"""
import argparse
import json
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def parse_size(s):
    units = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "B": 1}
    for u, f in units.items():
        if s.endswith(u):
            return int(float(s[: -len(u)]) * f)
    return int(s)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, n, port, args, queue):
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=n)
    rows = []
    for s in args.sizes.split(","):
        size = parse_size(s)
        x = torch.ones(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(args.warmup):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        host, event = [], []
        for _ in range(args.samples):
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(args.iters):
                dist.all_reduce(x)
            torch.cuda.synchronize()
            host.append((time.perf_counter() - t0) / args.iters)
            evs = [torch.cuda.Event(enable_timing=True) for _ in range(args.iters + 1)]
            dist.barrier()
            evs[0].record()
            for i in range(args.iters):
                dist.all_reduce(x)
                evs[i + 1].record()
            torch.cuda.synchronize()
            event.extend(evs[i].elapsed_time(evs[i + 1]) / 1e3 for i in range(args.iters))
        # the slowest rank's figures, as nccl-tests -a 3 reports
        t = torch.tensor([statistics.median(host), statistics.median(event)],
                         dtype=torch.float64, device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        rows.append({"size": size, "count": size // 4, "host_s": t[0].item(),
                     "event_s": t[1].item(), "iters": args.iters, "samples": args.samples})
        del x
    if rank == 0:
        queue.put(rows)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="64MiB,256MiB,1GiB")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--ranks", type=int, default=0, help="GPUs to use (default: all)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch_allreduce.py: no CUDA GPU visible to PyTorch", file=sys.stderr)
        return 1
    n = args.ranks or torch.cuda.device_count()
    if n < 2:
        print(f"torch_allreduce.py: all-reduce needs 2 GPUs; PyTorch sees {n}",
              file=sys.stderr)
        return 1
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    mp.spawn(worker, args=(n, free_port(), args, queue), nprocs=n, join=True)
    rows = queue.get()
    factor = 2.0 * (n - 1) / n
    for r in rows:
        for k in ("host", "event"):
            alg = r["size"] / r[k + "_s"] / 1e9
            r[k + "_algbw_GBps"] = alg
            r[k + "_busbw_GBps"] = alg * factor
    info = {"gpu": torch.cuda.get_device_name(0), "ranks": n, "torch": torch.__version__,
            "cuda": torch.version.cuda, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
            "NCCL_NVLS_ENABLE": os.environ.get("NCCL_NVLS_ENABLE", "0 (set by this script)"),
            "results": rows}
    if args.json:
        print(json.dumps(info, indent=1))
        return 0
    print(f"# torch.distributed all_reduce, {n} x {info['gpu']}, torch {info['torch']}, "
          f"NCCL {info['nccl']}, NCCL_NVLS_ENABLE={info['NCCL_NVLS_ENABLE']}")
    print(f"# {args.iters} back-to-back all_reduces per sample, {args.samples} samples; "
          "time = median per all-reduce, max over ranks")
    print("#        size       count  type  redop   time(us)  algbw(GB/s)  busbw(GB/s)"
          "   event-time(us)  event-busbw(GB/s)")
    for r in rows:
        print(f"{r['size']:13d} {r['count']:11d} float    sum {r['host_s'] * 1e6:10.1f} "
              f"{r['host_algbw_GBps']:12.2f} {r['host_busbw_GBps']:12.2f} "
              f"{r['event_s'] * 1e6:16.1f} {r['event_busbw_GBps']:18.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
