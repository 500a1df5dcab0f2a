"""A model card: one page a privacy officer can read about a published model file.

``model_card(model, audit=None, fmt="html")`` (``dpmodels card model.json [--audit audit.json] --out
card.html|card.md``) says, from the model file alone (post-processing: it reads no data and spends
nothing):

1. **the verdict in plain words** — what was released, its stated guarantee (ε, δ) and whether the file
   is private, with the reasons when it is not (the one verdict, :mod:`dpmodels.privacy.verdict`);
2. **the ledger in words** — each data access: what was released, by which mechanism, at which share of
   the budget, how it composes, and whether its guarantee is proven;
3. **the declared schema** — every public input with its source: ``user`` (declared), ``dp`` (a DP
   release, accounted in the ledger) or ``data`` (read from the records: a leak);
4. **the picture** of the model (drawn from the released values);
5. **the audit's summary** when an audit JSON (``dpmodels audit --json``) is given: the strongest
   attack, Dist_G, the empirical ε lower bound against the stated ε.

Every text from the file is escaped (HTML) or stripped of control characters (Markdown): a model file
is untrusted input.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
from pathlib import Path

__all__ = ["model_card", "write_model_card"]

_SOURCE_WORDS = {
    "user": "declared",
    "dp": "DP release (in the ledger)",
    "data": "READ FROM THE DATA (a leak)",
}


def _num(v, digits=3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return str(v)


def _clean(s) -> str:
    """Text from an untrusted file, for Markdown: control characters out, pipes escaped."""
    s = re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", str(s))
    return s.replace("|", "\\|")


def _what_was_released(m) -> str:
    kind = m.kind.replace("_", " ")
    n_feat = len(m.feature_names_in_)
    model = m.model_
    if m.kind in ("tree", "regression_tree"):
        leaves = int((model.feature < 0).sum()) if hasattr(model, "feature") else None
        shape = f"a decision tree with {leaves} leaves" if leaves is not None else "a decision tree"
    elif m.kind == "rule_list":
        shape = f"a rule list of {len(model.rules)} rules and a default rule"
    else:
        shape = f"a {kind} model"
    target = (
        f"predicting one of the classes {', '.join(map(str, m.classes_))}"
        if m.classes_ is not None
        else "predicting a number (regression)"
    )
    return f"{shape} ({m.estimator_name}), {target} from {n_feat} input columns"


def _privacy(m) -> dict:
    p = dict(m.privacy or {})
    led = m.privacy_ledger_
    return {
        "private": bool(p.get("is_private")),
        "verdict": list(p.get("verdict") or []),
        "epsilon": None if led is None else led.epsilon,
        "delta": None if led is None else led.delta,
        "spent": None if led is None else (led.epsilon_spent, led.delta_spent),
        "rows": [] if led is None else list(led.rows),
    }


def _row_words(r) -> str:
    comp = (
        f"parallel over {r.parts} disjoint parts (costs its ε once)"
        if r.composition == "parallel"
        else "not a DP release (a leak)"
        if r.composition == "leak"
        else "sequential (adds to the total)"
    )
    guarantee = {
        "proven": "proven",
        "claimed": "claimed by its authors, not proven",
        "none": "no DP guarantee",
    }.get(r.guarantee, r.guarantee)
    return (
        f"{r.what}: {r.mechanism}, sensitivity {_num(r.sensitivity)}, ε = {_num(r.epsilon)}, δ = {_num(r.delta)}; "
        f"{comp}; guarantee {guarantee}"
    )


def _schema_rows(m) -> list[tuple[str, str, str, str]]:
    """(name, kind, declaration, source) for the label and every column of the file's schema."""
    s = m.schema or {}
    out = []
    if s.get("classes") is not None:
        out.append(("label: classes", "label set", ", ".join(map(str, s["classes"])), s.get("classes_source", "user")))
    if s.get("label_bounds") is not None:
        lo, hi = s["label_bounds"]
        out.append(
            ("label: bounds", "regression label", f"[{_num(lo)}, {_num(hi)}]", s.get("label_bounds_source", "user"))
        )
    if s.get("n_public") is not None:
        out.append(("n (training-set size)", "count", str(s["n_public"]), s.get("n_public_source", "user")))
    cols = s.get("columns") or {}
    if not cols:  # older files: categories and bounds only
        cols = {c: {"kind": "categorical", "categories": v} for c, v in (s.get("categories") or {}).items()}
        cols.update({c: {"kind": "numerical", "bounds": v} for c, v in (s.get("bounds") or {}).items()})
    for name, spec in cols.items():
        kind = str(spec.get("kind", "?"))
        if spec.get("categories") is not None:
            cats = [str(v) for v in spec["categories"]]
            decl = ", ".join(cats[:12]) + (f", … ({len(cats)} in all)" if len(cats) > 12 else "")
        elif spec.get("cut_points") is not None:
            decl = "cut points " + ", ".join(_num(v) for v in spec["cut_points"])
        elif spec.get("bounds") is not None:
            lo, hi = spec["bounds"]
            decl = f"[{_num(lo)}, {_num(hi)}]" + (" integer" if spec.get("integer") else "")
        else:
            decl = "—"
        out.append((str(name), kind, decl, str(spec.get("source", "user"))))
    return out


def _audit_lines(audit: dict) -> list[str]:
    if audit.get("format") != "dpmodels.audit":
        raise ValueError("the audit file is not a dpmodels audit JSON (write one with dpmodels audit --json)")
    e = audit.get("epsilon") or {}
    numbers = audit.get("numbers") or {}
    mia = audit.get("membership") or {}
    best: tuple = max(mia.items(), key=lambda kv: kv[1].get("auc", 0.0), default=(None, {}))
    rec = audit.get("reconstruction")
    cons = e.get("consistent")
    lines = [
        "Strongest membership attack: "
        + (f"{best[0]}, AUC {_num(best[1].get('auc'))} (0.5 = guessing)" if best[0] else "none run"),
        "Reconstruction: "
        + (
            f"Dist_G {_num(rec.get('dist_g'))} (1 = the model tells nothing about a record beyond its public domain)"
            if rec
            else "not computed"
        ),
        f"Distributional overfitting V: {_num(numbers.get('V'))} against {_num(numbers.get('V_null_mean'))} for a model that "
        f"did not overfit (permutation null; p = {_num(numbers.get('V_p_value'), 2)}). A small p does not contradict DP: ε-DP lets "
        "each record shift the model's behaviour on it by up to a factor e^ε, so over many records an average "
        "difference is allowed and detectable; only the empirical ε bound below tests the claim",
        f"Empirical ε lower bound {_num(e.get('lower_bound'), 2)} at {_num(e.get('confidence'))} confidence vs stated ε = "
        f"{_num(e.get('stated'))}: "
        + (
            "the stated guarantee is not contradicted (an audit can refute a DP claim, never prove one)"
            if cons
            else "ABOVE the stated ε: the claim is refuted"
            if cons is False
            else "no stated ε"
        ),
        f"The audit read {_num((audit.get('data') or {}).get('n_train'))} training records: it is kept with the private data.",
    ]
    return lines


def _picture_png(m) -> bytes | None:
    try:
        import tempfile

        from . import save_model_figure
    except ImportError:  # pragma: no cover - matplotlib is an optional extra
        return None
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "model.png"
        try:
            save_model_figure(m, path)
        except (ImportError, ValueError, TypeError):
            return None
        return path.read_bytes()


def model_card(
    model, audit=None, fmt: str = "html", *, picture: bytes | None | bool = True, source: str | None = None
) -> str:
    """The card of ``model`` (a model file's path or a loaded model) as HTML or Markdown text.

    ``audit``: an audit JSON's path or its dict (``dpmodels audit --json``). ``picture``: True to draw
    the model (inlined as a PNG in HTML), False for none, or PNG bytes; in Markdown the picture is
    referenced as ``model.png`` beside the card (:func:`write_model_card` writes it).
    """
    from ..io import LoadedModel, load_model

    if fmt not in ("html", "md"):
        raise ValueError(f"fmt must be 'html' or 'md', got {fmt!r}")
    src = source or (str(model) if not isinstance(model, LoadedModel) else "the model")
    m = model if isinstance(model, LoadedModel) else load_model(model)
    if audit is not None and not isinstance(audit, dict):
        try:
            audit = json.loads(Path(audit).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read the audit file {str(audit)!r}: {exc}") from None
    audit_lines = _audit_lines(audit) if audit is not None else None
    pv = _privacy(m)
    png = _picture_png(m) if picture is True else (picture or None)
    released = _what_was_released(m)
    if pv["epsilon"] is None:
        guarantee = "no privacy guarantee: a non-private learner"
    else:
        pure = " (pure ε-DP)" if not pv["delta"] else ""
        guarantee = f"differential privacy at ε = {_num(pv['epsilon'])}, δ = {_num(pv['delta'])}{pure}"
    status = "PRIVATE" if pv["private"] else "NOT PRIVATE"
    data_sourced = [r for r in _schema_rows(m) if r[3] == "data"]
    plain = [
        f"Published: {released}.",
        f"Guarantee: {guarantee}. Verdict: {status}.",
        *pv["verdict"],
    ]
    if data_sourced:
        plain.append(
            f"{len(data_sourced)} declaration(s) were read from the data instead of declared: "
            + ", ".join(r[0] for r in data_sourced)
            + "."
        )
    if fmt == "md":
        return _markdown(m, src, status, plain, pv, audit_lines, png is not None)
    return _html(m, src, status, plain, pv, audit_lines, png)


def _markdown(m, src, status, plain, pv, audit_lines, has_png) -> str:
    c = _clean
    lines = [
        f"# Model card: {c(m.estimator_name)}",
        "",
        f"*From `{c(src)}`. A card reads the model file only: no data, no budget.*",
        "",
    ]
    lines += ["## Verdict", "", *[f"- {c(x)}" for x in plain], ""]
    if audit_lines:
        lines += ["## Audit", "", *[f"- {c(x)}" for x in audit_lines], ""]
    lines += ["## Privacy ledger", ""]
    if pv["rows"]:
        lines += [f"{i}. {c(_row_words(r))}" for i, r in enumerate(pv["rows"], 1)]
        eps, dl = pv["spent"]
        lines += ["", f"Total: ε = {_num(eps)} of {_num(pv['epsilon'])}, δ = {_num(dl)} of {_num(pv['delta'])}."]
    else:
        lines.append("No ledger: the learner is not private.")
    lines += ["", "## Declared schema", "", "| input | kind | declaration | source |", "|---|---|---|---|"]
    lines += [f"| {c(a)} | {c(b)} | {c(d)} | {_SOURCE_WORDS.get(s, c(s))} |" for a, b, d, s in _schema_rows(m)]
    if has_png:
        lines += ["", "## The model", "", "![the model](model.png)"]
    return "\n".join(lines) + "\n"


_CSS = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
.verdict{padding:.8rem 1rem;border-radius:.4rem;border:2px solid}.ok{border-color:#2e7d32;background:#e8f5e9}
.bad{border-color:#c62828;background:#ffebee}.status{font-weight:700;font-size:1.1rem}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
.src-data{color:#c62828;font-weight:700}.src-dp{color:#1565c0}img{max-width:100%;height:auto}
.note{color:#555;font-size:.9rem}"""


def _html(m, src, status, plain, pv, audit_lines, png) -> str:
    e = html.escape
    ok = pv["private"]
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>Model card: {e(m.estimator_name)}</title><style>{_CSS}</style></head><body>",
        f"<h1>Model card: {e(m.estimator_name)}</h1>",
        f"<p class='note'>From <code>{e(src)}</code>. A card reads the model file only: no data, no budget.</p>",
        f"<div class='verdict {'ok' if ok else 'bad'}'><div class='status'>{e(status)}</div><ul>",
        *[f"<li>{e(x)}</li>" for x in plain],
        "</ul></div>",
    ]
    if audit_lines:
        parts += ["<h2>Audit</h2><ul>", *[f"<li>{e(x)}</li>" for x in audit_lines], "</ul>"]
    if png:
        parts += [
            "<h2>The model</h2>",
            f"<img alt='the model' src='data:image/png;base64,{base64.b64encode(png).decode()}'>",
        ]
    parts.append("<h2>Privacy ledger</h2>")
    if pv["rows"]:
        parts.append("<ol>" + "".join(f"<li>{e(_row_words(r))}</li>" for r in pv["rows"]) + "</ol>")
        eps, dl = pv["spent"]
        parts.append(f"<p>Total: ε = {_num(eps)} of {_num(pv['epsilon'])}, δ = {_num(dl)} of {_num(pv['delta'])}.</p>")
    else:
        parts.append("<p>No ledger: the learner is not private.</p>")
    parts.append(
        "<h2>Declared schema</h2><table><tr><th>input</th><th>kind</th><th>declaration</th><th>source</th></tr>"
    )
    for a, b, d, s in _schema_rows(m):
        parts.append(
            f"<tr><td>{e(a)}</td><td>{e(b)}</td><td>{e(d)}</td>"
            f"<td class='src-{e(s)}'>{e(_SOURCE_WORDS.get(s, s))}</td></tr>"
        )
    parts.append("</table></body></html>")
    return "\n".join(parts) + "\n"


def write_model_card(model, out, audit=None) -> Path:
    """Write the card of ``model`` to ``out`` (``.html`` or ``.md``; Markdown gets ``model.png`` beside it)."""
    out = Path(out)
    fmt = {".html": "html", ".htm": "html", ".md": "md"}.get(out.suffix.lower())
    if fmt is None:
        raise ValueError(f"the card's file must end in .html or .md, got {out.name!r}")
    from ..io import LoadedModel, load_model

    m = model if isinstance(model, LoadedModel) else load_model(model)
    png = _picture_png(m)
    text = model_card(m, audit, fmt, picture=png if png is not None else False, source=str(model))
    if fmt == "md" and png is not None:
        (out.parent / "model.png").write_bytes(png)
    out.write_text(text, encoding="utf-8")
    return out
