"""Reference: Capt_RL(f_j) by the recursion of paper 003, Eq. 13–15 (a test oracle and benchmark peer).

Written from the paper's text (not from the authors' code). Rules are conjunctions of literals
(attribute, value) over d binary attributes; num(f) = 2^(d − |attributes of f|) for a satisfiable
conjunction and 0 otherwise;

    Capt(f_l, g) = num(f_l ∧ g) − Σ_{h<l} Capt(f_h, f_l ∧ g)          (Eq. 13)
    Capt(f_j)    = num(f_j)     − Σ_{l<j} Capt(f_l, f_j)               (Eq. 14–15)

with the default rule f_{r'} = True. Implemented as written: no memoisation and no pruning of
unsatisfiable conjunctions, so computing every Capt of an r-rule list (plus the default) makes
2^(r+1) − 1 calls whatever the rules — the cost the paper calls factorial (Section IV-C).
"""

from __future__ import annotations


def paper_capture_counts(rules, n_vars: int, *, stats: dict | None = None) -> list[int]:
    """Capt of every rule and of the default rule, by Eq. 13–15. ``stats['calls']`` counts calls."""
    calls = 0

    def conj(a, b):
        if a is None or b is None:
            return None
        out = dict(a)
        for k, v in b.items():
            if out.setdefault(k, v) != v:
                return None
        return out

    def num(f):
        return 0 if f is None else 1 << (n_vars - len(f))

    def capt_pair(l, g):  # Eq. 13
        nonlocal calls
        calls += 1
        f = conj(fs[l], g)
        return num(f) - sum(capt_pair(h, f) for h in range(l))

    fs = []
    for rule in rules:
        f: dict | None = {}
        for k, v in rule:
            f = conj(f, {int(k): int(v)})
        fs.append(f)
    fs.append({})  # the default rule: True

    out = []
    for j in range(len(fs)):  # Eq. 14–15
        calls += 1
        out.append(num(fs[j]) - sum(capt_pair(l, fs[j]) for l in range(j)))
    if stats is not None:
        stats["calls"] = calls
    return out
