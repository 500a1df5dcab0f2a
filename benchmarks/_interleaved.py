"""Interleaved CPU-time comparisons for the ``bench_*.py`` scripts (shared machines: compare
ratios measured in the same rounds, never single wall-clock numbers).

A script defines ``cases()`` (name -> zero-argument call) and ``PEER`` (name -> the case it is
compared with). :func:`run` starts one worker process per code version (this checkout's ``src``,
optionally another's), then each round calls every case once, the order rotating from round to
round, and prints the median CPU time (``time.process_time``) of each case and the median and
range of the per-round ratios peer ÷ case.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def serve(cases: dict) -> None:
    """The worker: warm every case up, then answer each case named on stdin with its CPU time."""
    for f in cases.values():
        f()
    print(json.dumps(sorted(cases)), flush=True)
    for line in sys.stdin:
        c = time.process_time()
        cases[line.strip()]()
        print(json.dumps(time.process_time() - c), flush=True)


def run(
    script: str, rounds: int, base_src: str | None, peer: dict, *, peer_label: str = "peer", base_cases=None
) -> None:
    """``base_cases``: the cases the other checkout runs (default: those compared with a peer)."""
    here = Path(script).resolve()

    def start(src):
        env = dict(os.environ, PYTHONPATH=str(src), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        p = subprocess.Popen(
            [sys.executable, str(here), "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        assert p.stdout is not None
        return p, json.loads(p.stdout.readline())

    workers = {"this": start(here.parents[1] / "src")}
    if base_src:
        workers["base"] = start(Path(base_src).resolve())
    in_base = set(peer if base_cases is None else base_cases)
    jobs = [(w, n) for w, (_, names) in workers.items() for n in names if w == "this" or n in in_base]
    res: dict = {j: [] for j in jobs}
    loads = []
    for r in range(rounds):
        for w, n in jobs[r % len(jobs) :] + jobs[: r % len(jobs)]:
            p = workers[w][0]
            assert p.stdin is not None and p.stdout is not None
            p.stdin.write(n + "\n")
            p.stdin.flush()
            res[(w, n)].append(json.loads(p.stdout.readline()))
        loads.append(os.getloadavg()[0])
    for p, _ in workers.values():
        assert p.stdin is not None
        p.stdin.close()
        p.wait()
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"{rounds} rounds, {stamp}, 1-min load average min {min(loads):.1f} / median {np.median(loads):.1f}")
    before = "| base ÷ this (median of per-round ratios, range) " if base_src else ""
    print(f"| version | case | median CPU | {peer_label} ÷ case (median of per-round ratios, range) {before}|")
    print("|---|---|---|---|" + ("---|" if base_src else ""))
    for (w, n), t in res.items():
        ratio = ""
        if n in peer:
            per_round = np.array(res[("this", peer[n])]) / np.array(t)
            ratio = _ratio(per_round)
        cells = [w, n, f"{1e3 * np.median(t):.1f} ms", ratio]
        if base_src:
            cells.append(_ratio(np.array(res[("base", n)]) / np.array(t)) if w == "this" and ("base", n) in res else "")
        print("| " + " | ".join(cells) + " |")


def _ratio(per_round: np.ndarray) -> str:
    return f"{np.median(per_round):.2f}× ({per_round.min():.2f}–{per_round.max():.2f})"


def main(script: str, cases, peer: dict, description: str, **kw) -> None:
    import argparse

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--base", default=None, help="the src/ folder of another checkout, measured in the same rounds")
    a, _ = ap.parse_known_args()  # the calling script may read options of its own
    if a.worker:
        serve(cases())
    else:
        run(script, a.rounds, a.base, peer, **kw)
