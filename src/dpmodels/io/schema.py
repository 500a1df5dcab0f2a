"""The public schema a model file carries: declared bounds, and the source (user, dp, data) of
every declaration (docs/privacy.md, "Sources travel with values")."""

from __future__ import annotations

from .._format import py_scalar
from .format import json_safe


def _bounds_dict(est, model):
    """Declared bounds as ``{feature: [lo, hi]}`` (public), or None when none were declared."""
    try:
        b = est.get_params(deep=False).get("bounds")
    except AttributeError:
        return None
    from ..gam.model import AdditiveModel
    from ..tree.model import Tree

    if b is not None and isinstance(model, AdditiveModel):
        return {model.feature_names[j]: [a, c] for j, (a, c) in model.bounds.items()}
    if b is None or not isinstance(model, Tree):
        return None
    from ..validation import resolve_bounds

    num = [j for j in range(model.n_features) if not model.categorical[j]]
    try:
        lo, hi = resolve_bounds(b, model.feature_names, num)
    except ValueError:  # bounds that name only some features (DPGDF drops numerical ones)
        return json_safe(b) if isinstance(b, dict) else None
    return {model.feature_names[j]: [float(a), float(c)] for j, a, c in zip(num, lo, hi)}


def _declaration_sources(est, model, ledger, bare: bool, kind: str, categories: dict, params: dict) -> dict:
    """The source (``user``, ``dp``, ``data``) of every declaration a model file's schema holds
    (docs/privacy.md, "Sources travel with values"): the source marked on the estimator's parameter
    (:func:`dpmodels.validation.declared`); ``data`` when a leak row of the ledger names it; and,
    for a value the parameters do not hold, ``data`` when there is no ledger to say otherwise (a
    non-private learner reads what it is not given without a leak row), ``user`` when there is one
    (a pandas ``CategoricalDtype`` is a declaration)."""
    from ..validation import leaked_declarations, source_of

    raw = {} if bare else est.get_params(deep=False)
    leaked = leaked_declarations(ledger.rows if ledger is not None else [])
    no_ledger = ledger is None

    def src(value, leak: bool, *, default_public: bool = False) -> str:
        if leak:
            return "data"
        if value is not None:
            return source_of(value)
        return "user" if (default_public or not no_ledger) else "data"

    out: dict = {}
    if kind != "regression_tree":
        binary_default = kind == "rule_list" and [py_scalar(c) for c in model.classes] == [0, 1]
        out["classes_source"] = src(raw.get("classes"), leaked["classes"], default_public=binary_default)
    else:
        out["label_bounds_source"] = src(raw.get("label_bounds"), leaked["label_bounds"])
    if raw.get("n_public") is not None:
        out["n_public_source"] = src(raw.get("n_public"), leaked["n_public"])
    if kind == "rule_list":
        return out

    def entry(decl, j, name):
        if isinstance(decl, dict):
            return decl.get(name, decl.get(j))
        return decl

    cols: dict = {}
    cat_decl, bounds_decl = raw.get("categories"), raw.get("bounds")
    for j, name in enumerate(model.feature_names):
        if name in categories:
            spec: dict = {"kind": "categorical", "categories": categories[name]}
            spec["source"] = src(entry(cat_decl, j, name), name in leaked["columns"])
        else:
            spec = {"kind": "numerical"}
            b = entry(bounds_decl, j, name)
            if b is not None:
                spec["source"] = src(b, name in leaked["columns"] or leaked["all_bounds"])
            else:  # no declared bounds: the kind only (numbers, by the learner's rule)
                spec["source"] = "data" if (no_ledger or name in leaked["columns"]) else "user"
        cols[name] = spec
    out["column_sources"] = {c: spec["source"] for c, spec in cols.items()}
    return out


def _merge_schema(schema: dict, extra: dict) -> None:
    """``schema_extra`` over a file's schema, keeping the worse source of each declaration (the
    caller's or what the estimator's parameters and ledger say)."""
    from ..validation import worst_source

    for k, v in extra.items():
        if k.endswith("_source") and k in schema:
            schema[k] = worst_source(schema[k], v)
        elif k == "columns" and isinstance(v, dict):
            known = schema.get("column_sources") or {}
            schema[k] = {
                c: (
                    {**spec, "source": worst_source(spec.get("source", "user"), known.get(c, "user"))}
                    if isinstance(spec, dict)
                    else spec
                )
                for c, spec in v.items()
            }
        else:
            schema[k] = v
