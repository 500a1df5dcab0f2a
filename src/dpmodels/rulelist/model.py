"""The fitted rule-list model: ordered if-then rules and a default rule.

A rule list (r_1, …, r_k, r_0) classifies a record by its first rule whose antecedent holds; the
default rule r_0 catches the rest (paper 000, Section II-A). Each rule carries its consequent and
the (noisy, for private learners) class counts of the records it captured during training, from
which ``predict_proba`` is computed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from ..data.rules import literal_name

__all__ = ["Rule", "RuleList"]


@dataclass
class Rule:
    """One if-then rule: a conjunction of literals ``(feature, positive)`` and a prediction."""

    literals: list[tuple[str, bool]]
    prediction: int
    counts: tuple[float, float] = (0.0, 0.0)  # (class 0, class 1), noisy for private learners

    @property
    def antecedent(self) -> str:
        return " and ".join(literal_name(f, p) for f, p in self.literals) if self.literals else "True"


@dataclass
class RuleList:
    """Ordered rules followed by a default rule; feature names index the binary columns."""

    feature_names: list[str]
    rules: list[Rule] = field(default_factory=list)
    default: Rule = field(default_factory=lambda: Rule([], 0))
    classes: list = field(default_factory=lambda: [0, 1])
    counts_are_noisy: bool = False

    # --------------------------------------------------------------- evaluate
    def _column_index(self) -> dict[str, int]:
        return {str(f): i for i, f in enumerate(self.feature_names)}

    def apply(self, X) -> np.ndarray:
        """Index of the rule capturing each row; ``len(rules)`` for the default rule."""
        Xb = np.asarray(X).astype(bool, copy=False)
        col = self._column_index()
        out = np.full(Xb.shape[0], len(self.rules), dtype=np.int64)
        free = np.ones(Xb.shape[0], dtype=bool)
        for k, rule in enumerate(self.rules):
            m = free.copy()
            for f, pos in rule.literals:
                c = Xb[:, col[f]]
                m &= c if pos else ~c
            out[m] = k
            free &= ~m
        return out

    def _all_rules(self) -> list[Rule]:
        return [*self.rules, self.default]

    def predict_encoded(self, X) -> np.ndarray:
        preds = np.array([r.prediction for r in self._all_rules()], dtype=np.int64)
        return preds[self.apply(X)]

    def proba_table(self) -> np.ndarray:
        """P(class 1) per rule from the (noisy) counts: negatives clipped at 0; 0.5 if empty."""
        c = np.clip(np.array([r.counts for r in self._all_rules()], dtype=float), 0, None)
        tot = c.sum(axis=1)
        p1 = np.divide(c[:, 1], tot, out=np.full(len(c), 0.5), where=tot > 0)
        return np.column_stack([1 - p1, p1])

    def predict_proba_encoded(self, X) -> np.ndarray:
        return self.proba_table()[self.apply(X)]

    # ------------------------------------------------------------------ print
    def __len__(self) -> int:
        return len(self.rules) + 1

    def __str__(self) -> str:
        cls = self.classes
        tilde = "≈" if self.counts_are_noisy else "="

        def counts(r: Rule) -> str:
            c0, c1 = (int(round(v)) for v in r.counts)
            return f"[n{tilde}{c0 + c1}: {cls[0]}:{c0}, {cls[1]}:{c1}]"

        lines = []
        for k, r in enumerate(self.rules):
            kw = "if" if k == 0 else "else if"
            lines.append(f"{kw} {r.antecedent} then {cls[r.prediction]}   {counts(r)}")
        kw = "else" if self.rules else "always"
        lines.append(f"{kw} {cls[self.default.prediction]}   {counts(self.default)}")
        return "\n".join(lines)

    # ----------------------------------------------------------------- export
    def to_dict(self) -> dict:
        def rd(r: Rule) -> dict:
            return {
                "antecedent": [{"feature": f, "positive": bool(p)} for f, p in r.literals],
                "prediction": int(r.prediction),
                "counts": [float(r.counts[0]), float(r.counts[1])],
            }

        classes = [c.item() if isinstance(c, np.generic) else c for c in self.classes]
        return {
            "type": "rule_list",
            "feature_names": [str(f) for f in self.feature_names],
            "classes": classes,
            "counts_are_noisy": bool(self.counts_are_noisy),
            "rules": [rd(r) for r in self.rules],
            "default": rd(self.default),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "RuleList":
        def rr(x: dict) -> Rule:
            lits = [(a["feature"], bool(a["positive"])) for a in x["antecedent"]]
            return Rule(lits, int(x["prediction"]), tuple(float(v) for v in x["counts"]))

        if d.get("type") != "rule_list":
            raise ValueError("not a serialised rule list")
        return cls(
            list(d["feature_names"]),
            [rr(x) for x in d["rules"]],
            rr(d["default"]),
            list(d["classes"]),
            bool(d.get("counts_are_noisy", False)),
        )

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, s: str) -> "RuleList":
        return cls.from_dict(json.loads(s))
