"""Peak memory of ``dpmodels fit`` and ``dpmodels predict`` on a large CSV (docs/benchmarks.md,
"Reading a CSV in batches").

    python benchmarks/csv_memory.py --rows 1000000 --dir /tmp/csv-mem --src src [--src OTHER/src]

Writes (once) ``rows`` rows of 5 numerical + 5 categorical columns and a 0/1 label as one CSV,
then for each ``--src`` (a checkout's ``src`` folder: compare two versions of the code) runs, under
``/usr/bin/time -v``, a PrivaTree fit with the whole schema declared and a fixed seed, and a
prediction of the same file to a CSV, and prints the peak RSS and CPU seconds of each. The model
files of the runs are compared (same seed: the same model). Not part of any test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

CATS = {f"c{i}": [f"v{j}" for j in range(k)] for i, k in enumerate((3, 4, 5, 6, 7))}
NUM = [f"x{i}" for i in range(5)]


def write(path: Path, rows: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({c: np.round(rng.normal(size=rows), 4) for c in NUM})
    for c, vals in CATS.items():
        df[c] = np.asarray(vals)[rng.integers(0, len(vals), rows)]
    df["label"] = ((df["x0"] + (df["c0"] == "v1") + rng.normal(scale=0.7, size=rows)) > 0.5).astype(int)
    df.to_csv(path, index=False)


def timed(cmd, env) -> tuple[float, float]:
    """(peak RSS in MB, user + system CPU seconds) of ``cmd`` from /usr/bin/time -v."""
    r = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1)) / 1024
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", r.stderr))
    return rss, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dir", type=Path, required=True)
    ap.add_argument("--src", action="append", required=True, help="a checkout's src folder (repeatable)")
    a = ap.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    data = a.dir / f"big-{a.rows}.csv"
    if not data.exists():
        write(data, a.rows)
    fit = ["fit", "--data", str(data), "--label", "label", "--model", "privatree", "--classes", "0", "1"]
    fit += ["--bounds", *(f"{c}=-5:5" for c in NUM), "--categories", *(f"{c}={','.join(v)}" for c, v in CATS.items())]
    fit += ["--random-state", "0", "--quiet"]
    models = []
    for k, src in enumerate(a.src):
        env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()), DPMODELS_PROGRESS="0")
        model = a.dir / f"model-{k}.json"
        rss, cpu = timed([sys.executable, "-m", "dpmodels", *fit, "--out", str(model)], env)
        print(f"{src}: fit      peak {rss:7.0f} MB  CPU {cpu:6.1f} s")
        rss, cpu = timed(
            [sys.executable, "-m", "dpmodels", "predict", str(model), str(data), "--out", str(a.dir / f"pred-{k}.csv")],
            env,
        )
        print(f"{src}: predict  peak {rss:7.0f} MB  CPU {cpu:6.1f} s")
        models.append(json.loads(model.read_text())["model"])
    if len(models) > 1:
        same = all(m == models[0] for m in models)
        preds = {(a.dir / f"pred-{k}.csv").read_bytes() for k in range(len(models))}
        print(f"same model for every --src: {same}; same predictions: {len(preds) == 1}")


if __name__ == "__main__":
    main()
