"""What does a published model leak? One audit of a saved model file, as text, JSON and HTML.

:func:`audit_model` runs, on a model file (or a :class:`~dpmodels.io.LoadedModel`), its training
records and held-out records of the same distribution (and optionally population records):

* the reconstruction leak Dist_G (paper 003, Definition 4) with the per-record exposure
  distribution (:func:`~dpmodels.audit.reconstruction_leak`);
* distributional-overfitting V with its permutation null (paper 000, Sec. V-E;
  :func:`~dpmodels.audit.vulnerability`);
* membership inference: the loss-threshold attack always; shadow models, LiRA and RMIA when
  population records are given, their reference models rebuilt from the file's learner class and
  parameters (:meth:`~dpmodels.io.LoadedModel.unfitted_estimator`);
* the empirical ε lower bound of each attack (:meth:`MembershipInferenceResult.epsilon_lower_bound`),
  each at confidence 1 − α/k for k attacks (Bonferroni), so their maximum holds at 1 − α, next to
  the ε the file states.

:class:`ModelAudit` prints a short verdict (``str``), gives the numbers (:meth:`ModelAudit.to_dict`)
and writes a self-contained HTML page (:meth:`ModelAudit.to_html`: the model's picture, its
ledger, the ROC and the per-record exposure CDF as embedded PNG, no script and no external
resource). ``dpmodels audit`` is the command line for it.

**The audit is not a DP release.** It reads the training records and reports about them (their
positions among the most exposed, attack scores): keep its outputs with the private data.
"""

from __future__ import annotations

import base64
import html
import io
import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..catalog import KINDS
from ._summary import ESTIMATE_VS_BOUND, num, pct

if TYPE_CHECKING:
    from ..io import LoadedModel
    from .reconstruction import ReconstructionResult
    from .vulnerability import VulnerabilityResult

__all__ = ["ModelAudit", "audit_model", "default_domains", "DEFAULT_GRID", "POPULATION_ATTACKS"]

#: the attacks run when population records are given (besides "threshold")
POPULATION_ATTACKS = ("shadow", "lira", "rmia")


#: values per continuous feature in the default Dist_G domain (``grid=`` / ``--grid`` declare another)
DEFAULT_GRID = 101


def default_domains(model, grid: int | None = None):
    """Public domains V_k for Dist_G of a saved tree, from its declarations only. A numerical
    feature *declared* integer-valued (integer bounds in the file's parameters, as ``--integer`` or
    a schema's ``integer: true`` write them; or ``integer`` in the file's schema) gets every
    integer in [lo, hi]; any other — continuous, whatever its bounds look like: [0, 1] is not
    {0, 1} — gets ``grid`` evenly spaced values in [lo, hi] (default :data:`DEFAULT_GRID`), plus
    the midpoint of every interval between the tree's thresholds that no grid value falls in, so
    that every leaf is reachable. Returns ``(domains, note)``; ``domains`` is None for a rule list
    (0/1 columns) and ``note`` says, feature by feature, which domain was chosen and whether the
    grid was declared or the default, or why Dist_G cannot be computed (a numerical feature
    without declared bounds: ``domains`` is then ``False``)."""
    from .._format import declared_integer_features

    if model.kind not in ("tree", "regression_tree"):
        return None, "rule list: each binary column has the domain {0, 1}"
    declared_grid = grid is not None
    grid = DEFAULT_GRID if grid is None else int(grid)
    tree = model.model_
    schema = model.schema or {}
    bounds = dict(schema.get("bounds") or {})
    cols = schema.get("columns") or {}
    params = getattr(model, "params", None) or {}
    declared_int = set(declared_integer_features(params.get("bounds")))
    doms: dict = {}
    ints: list[str] = []
    grids: list[str] = []
    wide: list[str] = []
    feature = np.asarray(tree.feature)
    threshold = np.asarray(tree.threshold, dtype=float)
    for j, f in enumerate(tree.feature_names):
        if tree.categorical[j]:
            continue
        raw = cols.get(f)
        spec: dict = raw if isinstance(raw, dict) else {}
        b = bounds.get(f) or spec.get("bounds")
        if not b:
            return False, f"numerical feature {f!r} has no declared bounds: no public domain for Dist_G"
        lo, hi = float(b[0]), float(b[1])
        if (f in declared_int or spec.get("integer")) and hi - lo <= 10**6:
            doms[f] = np.arange(math.ceil(lo), math.floor(hi) + 1, dtype=float)
            ints.append(f)
            continue
        values = np.linspace(lo, hi, grid)
        cuts = np.unique(threshold[(feature == j) & np.isfinite(threshold)])
        cuts = cuts[(cuts > lo) & (cuts < hi)]
        if cuts.size:  # the cells (lo, t1], (t1, t2], …, (tk, hi]: one value in each empty one
            edges = np.concatenate([[lo], cuts, [hi]])
            cell = np.searchsorted(cuts, values, side="left")
            empty = np.setdiff1d(np.arange(edges.size - 1), cell)
            if empty.size:
                values = np.union1d(values, (edges[empty] + edges[empty + 1]) / 2)
        doms[f] = values
        (grids if (f not in declared_int and not spec.get("integer")) else wide).append(f)
    parts = ["categorical features: their declared categories"]
    if ints:
        parts.append(f"declared integer-valued, every integer within the declared bounds: {', '.join(ints)}")
    if grids:
        which = "the grid given" if declared_grid else "the default grid; --grid / grid= sets it"
        parts.append(
            f"continuous, {grid} evenly spaced values within the declared bounds ({which}; a value added "
            f"in each tree interval the grid misses): {', '.join(grids)}"
        )
    if wide:
        parts.append(f"declared integer-valued but over 10^6 integers, the grid instead: {', '.join(wide)}")
    return doms, "; ".join(parts) + " (Dist_G depends on this choice: docs/reconstruction.md)"


@dataclass
class ModelAudit:
    """The results of :func:`audit_model` (see the module docstring)."""

    model: LoadedModel
    source: str
    reconstruction: ReconstructionResult | None
    domains_note: str
    vulnerability: VulnerabilityResult | None  # None: not defined for the model (a regressor)
    membership: dict
    epsilon_lower_bounds: dict
    alpha: float
    n_train: int
    n_test: int
    n_population: int | None
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)
    #: records of one set equal to a record of another (features and label): {"held-out in training": k, …}
    overlaps: dict = field(default_factory=dict)
    #: why a section was not computed: {"vulnerability": reason, "population attacks": reason}
    skipped: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ numbers
    @property
    def stated(self) -> dict:
        p = self.model.privacy or {}
        return {
            "epsilon": p.get("epsilon"),
            "delta": p.get("delta"),
            "is_private": p.get("is_private"),
            "verdict": list(p.get("verdict") or []),
        }

    @property
    def epsilon_lower_bound(self) -> float | None:
        """The largest per-attack lower bound (each at 1 − α/k: the maximum holds at 1 − α)."""
        vals = [v for v in self.epsilon_lower_bounds.values() if v is not None]
        return max(vals) if vals else None

    def numbers(self) -> dict:
        """Every headline number under a flat key (what the HTML's number table shows)."""
        out = {}
        rec = self.reconstruction
        if rec is not None:
            s = rec.summary()
            out["dist_g"] = s["dist_g"]
            for k in ("min", "median", "max"):
                if k in s:
                    out[f"exposure_{k}"] = s[k]
        if self.vulnerability is not None:
            v = self.vulnerability.summary()
            out["V"] = v["V"]
            out["V_null_mean"] = v["null_mean"]
            out["V_p_value"] = v["p_value"]
        for a, r in self.membership.items():
            out[f"auc.{a}"] = r.auc
            out[f"tpr@1%fpr.{a}"] = r.tpr_at(0.01)
            out[f"tpr@0.1%fpr.{a}"] = r.tpr_at(0.001)
            out[f"epsilon_estimate.{a}"] = r.epsilon_estimate(0.01)
            out[f"epsilon_lower_bound.{a}"] = self.epsilon_lower_bounds.get(a)
        out["epsilon_lower_bound"] = self.epsilon_lower_bound
        out["stated_epsilon"] = self.stated["epsilon"]
        out["stated_delta"] = self.stated["delta"]
        return {k: (None if isinstance(x, float) and math.isnan(x) else x) for k, x in out.items()}

    def to_dict(self) -> dict:
        """The audit as JSON-safe data: ``numbers`` (flat), and per section the details."""
        rec = self.reconstruction
        return {
            "format": "dpmodels.audit",
            "model": {
                "source": self.source,
                "learner": self.model.estimator_name,
                "kind": self.model.kind,
                **self.stated,
            },
            "data": {
                "n_train": self.n_train,
                "n_test": self.n_test,
                "n_population": self.n_population,
                "identical_records": dict(self.overlaps),
            },
            "numbers": self.numbers(),
            "reconstruction": None
            if rec is None
            else {
                **{k: v for k, v in rec.summary().items()},
                "domains": self.domains_note,
                "exposure": rec.exposure(5),
                "text": str(rec.summary()),
            },
            "reconstruction_skipped": self.domains_note if rec is None else None,
            "vulnerability": None
            if self.vulnerability is None
            else {**self.vulnerability.summary(), "text": str(self.vulnerability.summary())},
            "skipped": dict(self.skipped),
            "membership": {
                a: {
                    **_jsonable(r.summary(self.alpha / max(len(self.membership), 1))),
                    "epsilon_lower_bound": self.epsilon_lower_bounds.get(a),
                    "text": self._attack_text(a),
                }
                for a, r in self.membership.items()
            },
            "epsilon": {
                "lower_bound": self.epsilon_lower_bound,
                "confidence": 1 - self.alpha,
                "per_attack_confidence": 1 - self.alpha / max(len(self.membership), 1),
                "stated": self.stated["epsilon"],
                "consistent": self._consistent(),
                "estimate_vs_bound": ESTIMATE_VS_BOUND,
            },
            "settings": self.settings,
            "seconds": self.seconds,
            "verdict": self.verdict(),
            "not_a_dp_release": "this audit reads the training records: keep it with the private data",
        }

    # ------------------------------------------------------------------ words
    def _consistent(self) -> bool | None:
        lb, eps = self.epsilon_lower_bound, self.stated["epsilon"]
        if lb is None or eps is None:
            return None
        return bool(lb <= eps + 1e-12)

    def _attack_text(self, a) -> str:
        r = self.membership[a]
        lb = self.epsilon_lower_bounds.get(a)
        conf = f"{100 * (1 - self.alpha / max(len(self.membership), 1)):.3g} %"
        return (
            f"{a}: AUC {num(r.auc)}; TPR {pct(r.tpr_at(0.01))} at 1 % FPR; "
            f"ε ≥ {num(lb, 2)} at {conf} confidence (lower bound); ε ≈ {num(r.epsilon_estimate(0.01), 2)} "
            "(point estimate at 1 % FPR)"
        )

    def _vulnerability_text(self) -> str:
        if self.vulnerability is None:
            return "V not computed: " + self.skipped.get("vulnerability", "not run")
        return str(self.vulnerability.summary())

    def _overlap_text(self) -> list[str]:
        """One sentence per pair of sets with records equal in every audited column."""
        sizes = {"held-out": self.n_test, "population": self.n_population}
        out = []
        for pair, k in self.overlaps.items():
            if k:
                a, b = pair.split(" in ")
                out.append(
                    f"{k:,} of the {sizes[a]:,} {a} records equal a {b} record in every audited column "
                    "(features and label): no attack can tell such a pair apart (records repeat in real "
                    "data; a large share means the sets are not disjoint)"
                )
        return out

    def verdict(self) -> str:
        """A short text verdict (what ``dpmodels audit`` prints)."""
        st = self.stated
        eps = (
            "no stated ε (not a private learner)"
            if st["epsilon"] is None
            else (f"stated ε = {num(st['epsilon'])}, δ = {num(st['delta'])}")
        )
        lines = [
            f"Audit of {self.source}: {self.model.estimator_name} ({self.model.kind.replace('_', ' ')}), {eps}",
            f"  the file says: {' '.join(st['verdict']) or 'no privacy verdict'}",
            f"  audited on {self.n_train:,} training records, {self.n_test:,} held-out records"
            + (f", {self.n_population:,} population records" if self.n_population else ""),
        ]
        lines += [f"  {t}" for t in self._overlap_text()]
        rec = self.reconstruction
        lines.append(
            "Reconstruction: "
            + (str(rec.summary()) if rec is not None else f"Dist_G not computed: {self.domains_note}")
        )
        lines.append(f"Distributional overfitting: {self._vulnerability_text()}")
        k = len(self.membership)
        lines.append(
            f"Membership inference ({k} attack{'s' if k > 1 else ''}"
            + (
                f"; {self.skipped['population attacks']}"
                if "population attacks" in self.skipped
                else ("" if self.n_population else "; give --population for shadow, LiRA and RMIA")
            )
            + "):"
        )
        lines += [f"  {self._attack_text(a)}" for a in self.membership]
        best = max(self.membership.values(), key=lambda r: r.auc)
        lb = self.epsilon_lower_bound
        ok = self._consistent()
        conf = f"{100 * (1 - self.alpha):g} %"
        word = (
            "the model's stated ε is not contradicted (an audit can refute a DP claim, never prove one)"
            if ok
            else "ABOVE the stated ε: the DP claim is refuted (or the records are not independent trials)"
            if ok is False
            else "no stated ε to compare with"
        )
        lines.append(
            f"Empirical ε: lower bound {num(lb, 2)} at {conf} confidence (the largest over {k} "
            f"attack{'s' if k > 1 else ''}, each at 1 − {self.alpha:g}/{k}) vs "
            f"{'stated ε = ' + num(st['epsilon']) if st['epsilon'] is not None else 'no stated ε'}: {word}."
        )
        lines.append(f"  {ESTIMATE_VS_BOUND}")
        dg = "n/a" if rec is None else num(rec.dist_g)
        lines.append(
            f"Verdict: strongest attack AUC {num(best.auc)} ({best.attack}); Dist_G {dg}; "
            f"ε lower bound {num(lb, 2)}"
            + (f" of stated {num(st['epsilon'])}" if st["epsilon"] is not None else "")
            + ". This audit reads the training records: it is not a DP release."
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.verdict()

    # ------------------------------------------------------------------ HTML
    def to_html(self) -> str:
        """A self-contained HTML page: no script, no external resource (figures as PNG data URIs,
        a Content-Security-Policy forbidding anything else); every text from the model file or the
        data is escaped."""
        e = html.escape
        d = self.to_dict()
        figs = _figures(self)
        parts = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
            "style-src 'unsafe-inline'\">",
            f"<title>dpmodels audit: {e(self.source)}</title>",
            f"<style>{_CSS}</style></head><body>",
            f"<h1>What does <code>{e(self.source)}</code> leak?</h1>",
            _plain_summary(self),
            "<h2>The verdict as printed by <code>dpmodels audit</code></h2>",
            f'<pre id="verdict">{e(self.verdict())}</pre>',
            "<h2>Numbers</h2>",
            '<table id="numbers"><tr><th>quantity</th><th>value</th><th>what it means</th></tr>',
        ]
        for key, val in d["numbers"].items():
            words = e(_number_words(key))
            if val is None:
                parts.append(f'<tr><td>{e(key)}</td><td data-key="{e(key)}">n/a</td><td>{words}</td></tr>')
            else:
                parts.append(
                    f'<tr><td>{e(key)}</td><td data-key="{e(key)}" data-value="{e(repr(float(val)))}">'
                    f"{e(num(val, 4))}</td><td>{words}</td></tr>"
                )
        parts.append("</table>")
        parts.append("<h2>The model</h2>")
        if "model" in figs:
            parts.append(_img("model", figs["model"], "the released model"))
        parts.append(f'<pre id="model-text">{e(self.model.to_text())}</pre>')
        parts.append("<h2>Privacy ledger</h2>")
        parts.append(_ledger_table(self.model))
        parts.append("<h2>Membership inference</h2>")
        parts.append(_img("roc", figs["roc"], "ROC of the membership attacks (log-log)"))
        parts.append("<ul>" + "".join(f"<li>{e(self._attack_text(a))}</li>" for a in self.membership) + "</ul>")
        parts.append(f"<p>{e(ESTIMATE_VS_BOUND)}</p>")
        parts.append("<h2>Reconstruction (Dist_G) and per-record exposure</h2>")
        rec = self.reconstruction
        if rec is None:
            parts.append(f"<p>Dist_G not computed: {e(self.domains_note)}</p>")
        else:
            parts.append(f"<p>{e(str(rec.summary()))}. Domains: {e(self.domains_note)}.</p>")
            parts.append(_img("exposure", figs["exposure"], "per-record exposure CDF"))
            ex = rec.exposure(5)
            for title, key in (
                ("Most exposed training records", "most_exposed"),
                ("Least exposed training records", "least_exposed"),
            ):
                parts.append(
                    f'<h3>{title}</h3><table class="{key}"><tr><th>record (row of the training '
                    "CSV, from 0)</th><th>ratio</th><th>path</th></tr>"
                )
                parts += [
                    f"<tr><td>{r['record']}</td><td>{num(r['ratio'], 4)}</td><td>{e(r['path'])}</td></tr>"
                    for r in ex.get(key, [])
                ]
                parts.append("</table>")
        parts.append("<h2>Distributional overfitting</h2>")
        parts.append(f"<p>{e(self._vulnerability_text())}</p>")
        if "null" in figs:
            parts.append(_img("null", figs["null"], "V against its permutation null"))
        parts.append(
            '<p class="note">This audit reads the training records and reports about them: it is '
            "not a differentially private release. Keep it with the private data.</p>"
        )
        parts.append("</body></html>")
        return "\n".join(parts)


# what each key of the numbers table means, by its prefix (the suffix names the attack)
_NUMBER_WORDS = (
    (
        "dist_g",
        "reconstruction leak Dist_G: 1 = the model tells nothing about a training record beyond its public domain, 0 = it pins every record down",
    ),
    (
        "exposure_min",
        "the most exposed training record: the share of its uncertainty the model leaves (lower = more exposed)",
    ),
    ("exposure_median", "the median training record's remaining share of uncertainty"),
    ("exposure_max", "the least exposed training record's remaining share of uncertainty"),
    ("V_null_mean", "V expected from a model that did not overfit (mean of the permutation null)"),
    ("V_p_value", "chance of a V at least this large if membership did not matter (permutation test)"),
    (
        "V",
        "distributional-overfitting vulnerability: how differently the model treats members and non-members, on average",
    ),
    ("auc.", "membership attack's ROC AUC: 0.5 = guessing, 1 = tells members from non-members perfectly"),
    ("tpr@1%fpr.", "members found when at most 1 % of non-members are wrongly accused"),
    ("tpr@0.1%fpr.", "members found when at most 0.1 % of non-members are wrongly accused"),
    ("epsilon_estimate.", "a point estimate of ε from this attack at 1 % FPR (not a bound)"),
    (
        "epsilon_lower_bound.",
        "an ε this attack proves at the stated confidence (a guarantee of ε below it would be false)",
    ),
    ("epsilon_lower_bound", "the largest ε any attack proves: a stated ε below it is refuted"),
    ("stated_epsilon", "the ε the model file states"),
    ("stated_delta", "the δ the model file states"),
)

# the traffic lights' thresholds (stated on the page): a membership AUC below .55 is green, below .6 amber
_AUC_GREEN, _AUC_AMBER = 0.55, 0.60


def _number_words(key: str) -> str:
    for prefix, words in _NUMBER_WORDS:
        if key == prefix or (prefix.endswith(".") and key.startswith(prefix)):
            return words
    return ""


def _plain_summary(audit) -> str:
    """The page's opening: what was published, its guarantee, whether an attack contradicts it, how
    exposed the most exposed records are, and what V's p-value means for a DP model, in plain words
    with a traffic light each (green, amber, red; grey where there is nothing to compare)."""
    e = html.escape
    st = audit.stated
    model = audit.model
    private = bool((model.privacy or {}).get("is_private"))
    eps = st["epsilon"]
    lights = []
    guarantee = (
        "no privacy guarantee (a non-private learner)"
        if eps is None
        else f"differential privacy at ε = {num(eps)}, δ = {num(st['delta'])}"
    )
    lights.append(
        (
            "green" if private else "red",
            f"Published: {model.estimator_name} ({model.kind.replace('_', ' ')}), stating {guarantee}. "
            f"The file's own verdict: {'PRIVATE' if private else 'NOT PRIVATE'}.",
        )
    )
    lb, ok = audit.epsilon_lower_bound, audit._consistent()
    if ok is None:
        lights.append(("grey", "No stated ε to test: the attacks below measure the leak, nothing can refute."))
    else:
        lights.append(
            (
                "green" if ok else "red",
                f"Does any attack contradict the guarantee? {'No' if ok else 'YES'}: the strongest proves ε ≥ "
                f"{num(lb, 2)} at {100 * (1 - audit.alpha):g} % confidence, against the stated ε = {num(eps)}"
                + (". An audit can refute a DP claim, never prove one." if ok else ": the claim is refuted."),
            )
        )
    best = max(audit.membership.values(), key=lambda r: r.auc)
    colour = "green" if best.auc < _AUC_GREEN else "amber" if best.auc < _AUC_AMBER else "red"
    lights.append(
        (
            colour,
            f"Membership: the strongest attack ({best.attack}) reaches AUC {num(best.auc)} (0.5 = guessing) and "
            f"finds {100 * best.tpr_at(0.01):.1f} % of members at 1 % false alarms.",
        )
    )
    rec = audit.reconstruction
    if rec is not None:
        ex = rec.exposure(1).get("most_exposed") or []
        worst = f"; the most exposed training record keeps {num(ex[0]['ratio'])} of its uncertainty" if ex else ""
        colour = "green" if rec.dist_g >= 0.8 else "amber" if rec.dist_g >= 0.5 else "red"
        lights.append((colour, f"Reconstruction: Dist_G {num(rec.dist_g)} (1 = nothing learnt about a record){worst}."))
    else:
        lights.append(("grey", f"Reconstruction not computed: {audit.domains_note or 'not defined for this model'}."))
    v = audit.vulnerability
    if v is not None:
        p = float(v.p_value) if getattr(v, "p_value", None) is not None else float("nan")
        small = p == p and p < 0.05
        text = f"Distributional overfitting: V = {num(float(v))}, p = {num(p, 2)}. "
        if eps is not None and small:
            text += (
                f"A small p does not contradict ε = {num(eps)}-DP: DP lets each record change the model's behaviour "
                f"on it by up to a factor e^ε ≈ {num(math.exp(eps), 3)}, so over many records an average "
                "difference between members and non-members is allowed and can be detected; only the ε bound "
                "above tests the claim."
            )
        elif small:
            text += "The model treats members and non-members differently on average."
        else:
            text += "No evidence that the model treats members and non-members differently."
        lights.append(("amber" if small else "green", text))
    items = "".join(f'<li class="light {c}"><span class="dot"></span>{e(t)}</li>' for c, t in lights)
    return (
        '<section id="summary"><h2>In short</h2><ul class="lights">'
        + items
        + '</ul><p class="note-small">Lights: membership AUC below .55 green, below .60 amber; Dist_G at least .8 '
        "green, at least .5 amber; V amber when p &lt; .05. They summarise; the numbers below decide.</p></section>"
    )


_CSS = """
body { font-family: sans-serif; max-width: 1100px; margin: 1em auto; padding: 0 1em; color: #222; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; white-space: pre-wrap; font-size: 12px; }
table { border-collapse: collapse; margin: .5em 0; font-size: 13px; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
img { max-width: 100%; border: 1px solid #eee; }
ul.lights { list-style: none; padding: 0; } li.light { margin: .4em 0; padding: .4em .6em; border-radius: 4px; }
li.light .dot { display: inline-block; width: .8em; height: .8em; border-radius: 50%; margin-right: .6em; }
li.green { background: #e8f5e9; } li.green .dot { background: #2e7d32; }
li.amber { background: #fff8e1; } li.amber .dot { background: #f9a825; }
li.red { background: #ffebee; } li.red .dot { background: #c62828; }
li.grey { background: #f2f2f2; } li.grey .dot { background: #888; }
.note-small { color: #555; font-size: 12px; }
figure { margin: .5em 0; }
.note { color: #933; }
"""


def _img(fig_id: str, png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<figure id="fig-{fig_id}"><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></figure>'


def _ledger_table(model) -> str:
    e = html.escape
    led = (model.privacy or {}).get("ledger")
    if not led:
        return '<table id="ledger"><tr><td>no privacy ledger (a non-private learner)</td></tr></table>'
    rows = [
        '<table id="ledger"><tr><th>#</th><th>what</th><th>mechanism</th><th>Δ</th><th>ε</th><th>δ</th>'
        "<th>guarantee</th><th>composition</th></tr>"
    ]
    for i, r in enumerate(led.get("rows") or [], 1):
        comp = r.get("composition", "")
        if comp == "parallel" and r.get("parts", 1) > 1:
            comp = f"parallel ×{r['parts']}"
        rows.append(
            f"<tr><td>{i}</td><td>{e(str(r.get('what', '')))}</td><td>{e(str(r.get('mechanism', '')))}</td>"
            f"<td>{e(num(r.get('sensitivity'), 4))}</td><td>{e(num(r.get('epsilon'), 4))}</td>"
            f"<td>{e(num(r.get('delta'), 4))}</td><td>{e(str(r.get('guarantee', '')))}</td>"
            f"<td>{e(comp)}</td></tr>"
        )
    rows.append(
        f'<tr><td colspan="8">total spent: ε = {e(num(led.get("epsilon_spent"), 4))} of '
        f"{e(num(led.get('epsilon'), 4))}, δ = {e(num(led.get('delta_spent'), 4))} of "
        f"{e(num(led.get('delta'), 4))}</td></tr></table>"
    )
    rows.append("<p>" + e(" ".join((model.privacy or {}).get("verdict") or [])) + "</p>")
    return "\n".join(rows)


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def _figures(audit: ModelAudit) -> dict:
    """PNG bytes of the report's figures (no pyplot state: private Agg canvases)."""
    import tempfile
    from pathlib import Path

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..export import save_model_figure
    from .reconstruction import plot_per_record_cdf

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        # the picture of its kind (dpmodels.catalog.KINDS: an additive model's shape functions)
        p = save_model_figure(audit.model, Path(tmp) / "model.png", dpi=90)
        out["model"] = p.read_bytes()

    fig = Figure(figsize=(5.5, 5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for r in audit.membership.values():
        r.plot_roc(ax=ax)
    ax.set_title("membership inference ROC", fontsize=10)
    out["roc"] = _png(fig)

    if audit.reconstruction is not None:
        fig = Figure(figsize=(6, 4), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        plot_per_record_cdf(audit.reconstruction, ax=ax)
        ax.axvline(audit.reconstruction.dist_g, ls="--", color="grey", lw=0.8)
        ax.set_title(f"per-record exposure (Dist_G {num(audit.reconstruction.dist_g)}, dashed)", fontsize=10)
        out["exposure"] = _png(fig)

    v = audit.vulnerability
    if v is not None and v.null is not None and len(v.null):
        fig = Figure(figsize=(6, 3.2), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.hist(v.null, bins=30, color="0.7")
        ax.axvline(v.V, color="C3", lw=1.5, label=f"observed V {num(v.V)}")
        ax.set_xlabel("V under random re-assignment of membership")
        ax.set_ylabel("permutations")
        ax.legend(fontsize="small")
        out["null"] = _png(fig)
    return out


def _jsonable(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, (np.floating, np.integer)):
            v = v.item()
        if isinstance(v, float) and math.isnan(v):
            v = None
        if isinstance(v, dict):
            v = _jsonable(v)
        out[k] = v
    return out


# ---------------------------------------------------------------------------- the audit
def _row_hashes(X, y) -> np.ndarray:
    """A 64-bit hash of every record: its audited columns and its label, compared as text."""
    import pandas as pd

    frame = X.reset_index(drop=True) if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X, dtype=object))
    frame = frame.astype(str)
    frame.columns = [str(c) for c in frame.columns]
    frame["\0label"] = pd.Series(np.asarray(y, dtype=object)).astype(str).to_numpy()
    return pd.util.hash_pandas_object(frame, index=False).to_numpy()


def _identical_records(sets, labels) -> dict:
    """How many records of the held-out (and population) set equal a record of an earlier set.
    Members and non-members must be different records: when one set lies wholly inside another
    (the same file given twice, ``--population`` = the training file) the audit would compare a
    set with itself and find "no evidence" — refused here, in one line, before any attack runs.
    A partial overlap is normal (identical records recur in real data) and goes in the verdict."""
    h = {name: _row_hashes(X, labels[name]) for name, X, _ in sets}
    out = {}
    names = [name for name, _, _ in sets]
    for i, a in enumerate(names):
        for b in names[:i]:
            inside_a = np.isin(h[a], h[b])
            if inside_a.all() or np.isin(h[b], h[a]).all():
                small, big = (a, b) if inside_a.all() else (b, a)
                raise ValueError(
                    f"every {small} record is also a {big} record (same columns and label): members and "
                    "non-members must be different records (the same file given twice?)"
                )
            out[f"{a} in {b}"] = int(inside_a.sum())
    return out


def audit_model(
    model,
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    X_pop=None,
    y_pop=None,
    domains=None,
    grid=None,
    n_permutations=200,
    n_reference=32,
    alpha=0.05,
    random_state=None,
    n_jobs=None,
    source=None,
) -> ModelAudit:
    """Audit a published model (a saved file's path or a :class:`~dpmodels.io.LoadedModel`).

    Parameters
    ----------
    X_train, y_train : the model's training records (raw columns, as the file reads them) and
        labels (values of the file's classes).
    X_test, y_test : held-out records of the same distribution, not used in training.
    X_pop, y_pop : optional population records (disjoint from both) for the shadow, LiRA and RMIA
        attacks, whose reference models are the file's learner rebuilt from its class and parameters.
    domains : public domains for Dist_G (:func:`reconstruction_leak`); default
        :func:`default_domains` from the file's declarations (``grid`` values per continuous
        numerical feature; None: :data:`DEFAULT_GRID`, and the report says it is the default).
    n_permutations : permutations of the V null. n_reference : reference models per set.
    alpha : one minus the confidence of the ε lower bound (split over the attacks).
    random_state : seeds the attacks' splits, reference fits and permutations (the audit's own
        randomness: it releases nothing).

    Notes
    -----
    Every input is checked (labels within the file's classes, every class among the training
    and the held-out records) before any attack runs; a problem raises one ``ValueError``.
    """
    from ..privacy.samplers import check_random_state
    from ._references import as_model
    from .membership import membership_inference_suite
    from .vulnerability import vulnerability

    t0 = time.perf_counter()
    src = source if source is not None else (str(model) if not hasattr(model, "kind") else "the model")
    model = as_model(model)
    if not hasattr(model, "unfitted_estimator"):
        raise TypeError("audit_model audits a saved model: a file path or a dpmodels.io.LoadedModel")
    regression = getattr(model, "classes_", None) is None  # a regressor (a tree or an additive model)
    classes = [] if regression else list(np.asarray(model.classes_).tolist())
    sets = [("training", X_train, y_train), ("held-out", X_test, y_test)]
    if X_pop is not None:
        sets.append(("population", X_pop, y_pop))
    labels = {name: _checked_labels(name, X, y, None if regression else classes) for name, X, y in sets}
    if not (isinstance(n_permutations, int) and n_permutations >= 0):
        raise ValueError(f"n_permutations must be an integer >= 0, got {n_permutations!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if regression:
        return _audit_regression(
            model,
            src,
            sets,
            labels,
            t0,
            alpha=alpha,
            domains=domains,
            grid=grid,
            n_permutations=n_permutations,
            n_reference=n_reference,
            random_state=random_state,
        )
    for c in classes:
        if (labels["training"] == c).any() != (labels["held-out"] == c).any():
            raise ValueError(
                f"class {c!r} occurs in only one of the training and held-out records: V "
                "compares members and non-members per class"
            )
    overlaps = _identical_records(sets, labels)
    rng = check_random_state(random_state)
    y_tr, y_te = labels["training"], labels["held-out"]
    rec, note = _reconstruction(model, X_train, y_tr, domains, grid)
    vul = vulnerability(model, X_train, y_tr, X_test, y_te, n_permutations=n_permutations, random_state=rng)
    attacks = ("threshold",) + (POPULATION_ATTACKS if X_pop is not None else ())
    kw = {} if X_pop is None else {"X_pop": X_pop, "y_pop": labels["population"], "n_reference": n_reference}
    mia = membership_inference_suite(
        model, X_train, y_tr, X_test, y_te, attacks=attacks, random_state=rng, n_jobs=n_jobs, **kw
    )
    return _model_audit(
        model,
        src,
        labels,
        overlaps,
        t0,
        (rec, note, vul, mia),
        alpha=alpha,
        bound_random_state=rng,
        n_permutations=n_permutations,
        n_reference=n_reference if X_pop is not None else None,
        grid=grid,
    )


def _model_audit(
    model,
    src,
    labels,
    overlaps,
    t0,
    found,
    *,
    alpha,
    bound_random_state,
    n_permutations,
    n_reference,
    grid,
    skipped=None,
    more_settings=None,
) -> ModelAudit:
    """The :class:`ModelAudit` of what was ``found`` (Dist_G, its domains note, V, the attacks):
    each attack's ε lower bound at α split over the attacks (None where it has too few records
    for one), the sizes of the checked ``labels``' sets, and the settings (``more_settings``: the
    model kind's own, last)."""
    rec, note, vul, mia = found
    bounds: dict[str, float | None] = {}
    for a, r in mia.items():
        try:
            bounds[a] = r.epsilon_lower_bound(alpha=alpha / len(mia), random_state=bound_random_state)
        except ValueError:
            bounds[a] = None
    return ModelAudit(
        model=model,
        source=src,
        reconstruction=rec,
        domains_note=note,
        vulnerability=vul,
        membership=mia,
        epsilon_lower_bounds=bounds,
        alpha=alpha,
        n_train=len(labels["training"]),
        n_test=len(labels["held-out"]),
        n_population=len(labels["population"]) if "population" in labels else None,
        seconds=time.perf_counter() - t0,
        overlaps=overlaps,
        skipped=dict(skipped or {}),
        settings={
            "n_permutations": n_permutations,
            "n_reference": n_reference,
            "alpha": alpha,
            "grid": DEFAULT_GRID if grid is None else grid,
            "grid_declared": grid is not None,
            "attacks": list(mia),
            **(more_settings or {}),
        },
    )


def _checked_labels(name: str, X, y, classes) -> np.ndarray:
    """The labels of one set of records, checked: as many as rows, at least 2, each one of
    ``classes`` (a classifier) or a finite number (``classes=None``: a regressor)."""
    if y is None:
        raise ValueError(f"the {name} records have no labels")
    yv = np.asarray(y, dtype=object).ravel()
    if len(yv) != len(X):
        raise ValueError(f"the {name} records: {len(X)} rows but {len(yv)} labels")
    if len(yv) < 2:
        raise ValueError(f"the {name} records: at least 2 rows are needed")
    if classes is None:
        try:
            yf = np.asarray(yv, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"the {name} labels of a regression model must be numbers") from None
        if not np.isfinite(yf).all():
            raise ValueError(f"the {name} labels of a regression model must be finite numbers")
        return yf
    bad = [v for v in yv if v not in classes]
    if bad:
        raise ValueError(f"the {name} labels hold {bad[0]!r}, which is not one of the model's classes {classes}")
    return yv


def _reconstruction(model, X_train, y_train, domains, grid):
    """``(Dist_G result or None, note on the domains)``: the declared domains (or the caller's),
    or why Dist_G is not computed (an additive model has no path per record; a numerical column
    without bounds has no public domain; the domains miss a training record)."""
    from .reconstruction import reconstruction_leak

    kind = KINDS.get(getattr(model, "kind", ""))
    if kind is not None and not kind.paths:
        # Dist_G measures what a record's path (leaf, rule) reveals; an additive model has no path
        return None, "Dist_G is defined for trees and rule lists, not for additive models (no path per record)"
    if domains is None:
        domains, note = default_domains(model, grid)
    else:
        note = "declared by the caller"
    if domains is False:
        return None, note
    try:
        return reconstruction_leak(model, X_train, y_train, domains=domains), note
    except ValueError as exc:  # e.g. records on a path no value of the declared domains reaches
        return None, f"{str(exc).splitlines()[0]} ({note})"


#: why the classifier-only parts of the audit are not run on a regression model (in its report)
REGRESSION_SKIPS = {
    "population attacks": (
        "the shadow, LiRA and RMIA attacks score a class probability; a regression model gets the "
        "loss-threshold attack on its squared error"
    ),
}


def _audit_regression(
    model, src, sets, labels, t0, *, alpha, domains, grid, n_permutations, n_reference, random_state
) -> ModelAudit:
    """:func:`audit_model` of a regression tree: Dist_G over the features from the released leaf
    counts, V on the loss (:mod:`dpmodels.audit.regression`), membership inference on the squared
    error (:func:`~dpmodels.audit.membership.regression_loss_attack`) with its ε lower bound; the
    report states why the reference-model attacks are not run."""
    from ..privacy.samplers import check_random_state
    from .membership import regression_loss_attack
    from .regression import DEFAULT_LOSS_BINS, regression_vulnerability

    overlaps = _identical_records(sets, labels)
    X_train, X_test = sets[0][1], sets[1][1]
    y_tr, y_te = labels["training"], labels["held-out"]
    rng = check_random_state(random_state)
    rec, note = _reconstruction(model, X_train, None, domains, grid)
    vul = regression_vulnerability(model, X_train, y_tr, X_test, y_te, n_permutations=n_permutations, random_state=rng)
    mia = {"threshold": regression_loss_attack(model, X_train, y_tr, X_test, y_te)}
    skipped = dict(REGRESSION_SKIPS)
    if len(sets) < 3:
        skipped.pop("population attacks")
    return _model_audit(
        model,
        src,
        labels,
        overlaps,
        t0,
        (rec, note, vul, mia),
        alpha=alpha,
        bound_random_state=0,
        n_permutations=n_permutations,
        n_reference=None,
        grid=grid,
        skipped=skipped,
        more_settings={"loss": "squared error", "loss_bins": DEFAULT_LOSS_BINS},
    )
