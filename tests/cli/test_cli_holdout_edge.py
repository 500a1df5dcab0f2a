"""``--holdout`` when every row hashes to the held-out part (issue 23 #6).

The training part is chosen by a per-record rule, so it can be empty while the file is not. The
composition must be defined on every dataset: D (every row held out) and D′ = D + one row that
hashes to the training part both fit and print a verdict (before: D exited 2, D′ printed PRIVATE,
a refusal that told the two apart with certainty)."""

import numpy as np
import pandas as pd

from dpmodels.cli import build_parser, main
from dpmodels.cli.fit import _declarations, _fill_defaults, _load_fit_data, holdout_mask

OPTS = ["--label", "y", "--model", "privatree", "--classes", "0", "1", "--categories", "job=a,b"]
OPTS += ["--bounds", "age=18:90", "--max-depth", "2", "--holdout", "0.5", "--seed", "3"]


def _held_out(path):
    """Which rows of ``path`` the command holds out (its own parsing and hash)."""
    args = build_parser().parse_args(["fit", "--data", str(path), *OPTS])
    _fill_defaults(args)
    X, y, _, _ = _load_fit_data(args, _declarations(args))
    return holdout_mask(X.assign(**{"\x00label": y}), args.holdout, args.seed)


def test_an_empty_training_part_is_a_valid_dp_fit(tmp_path, capsys):
    rng = np.random.default_rng(0)
    pool = pd.DataFrame({"age": rng.integers(18, 90, 40), "job": rng.choice(["a", "b"], 40)})
    pool["y"] = (pool["age"] > 50).astype(int)
    pool.to_csv(tmp_path / "pool.csv", index=False)
    held = _held_out(tmp_path / "pool.csv")
    assert held.any() and not held.all()
    d, d2 = tmp_path / "d.csv", tmp_path / "d2.csv"
    pool[held].to_csv(d, index=False)  # D: every row held out
    pool[held | (np.arange(len(pool)) == np.flatnonzero(~held)[0])].to_csv(d2, index=False)  # D + one training row
    assert _held_out(d).all() and (~_held_out(d2)).sum() == 1
    for path in (d, d2):
        assert main(["fit", "--data", str(path), *OPTS]) == 0
        out = capsys.readouterr().out
        assert "held-out accuracy (DP" in out and "     PRIVATE: every release" in out
