"""The learners of dpmodels, in one table: what the command line, model files, pictures and audits
know about each.

A :class:`Learner` entry says, for one estimator class: its command-line name, the kind of model it
releases (:data:`KINDS`), whether it is private, whether it predicts classes or numbers, the
constructor parameters the command line sets (from options and declarations), the ``fit`` options
it takes, their defaults and ranges, and whether it streams Parquet. A :class:`Kind` entry says, for
one kind of released model: the class that reads it back from a model file, whether each record
follows one path (a leaf, a rule: what the path audits measure), and which drawing function makes
its picture.

An :class:`Option` entry says, for one ``dpmodels fit`` option that some learners take and others
refuse: its value type, default, range and help; which learners take it follows from the learners'
entries (:attr:`Learner.all_options`). ``dpmodels fit`` builds these options, their help (grouped by
the learners that take them), their defaults and checks from :data:`OPTIONS`.

Readers: ``dpmodels fit`` builds its ``--model`` choices, option checks, defaults and estimators from
:data:`LEARNERS`; :mod:`dpmodels.io` takes its allow-list of classes and each class's model kind
from here (a loader imports nothing a file names: the classes are these, fixed in code);
:mod:`dpmodels.export` and :mod:`dpmodels.audit` ask :data:`KINDS` how to draw and audit a model.
Adding a learner is one :class:`Learner` entry, plus an :class:`Option` entry for each option no
other learner takes (``tests/test_catalog.py`` fits, saves, loads, predicts, shows, draws and audits
every entry; ``tests/cli/test_cli_options.py`` checks that every option is in the parser and refused,
in one line, by every learner that does not take it).

Classes are named by their import path and imported on first use: building the command line's
parser imports no scikit-learn.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Kind",
    "KINDS",
    "Learner",
    "LEARNERS",
    "Option",
    "OPTIONS",
    "MECHANISMS",
    "option",
    "takers",
    "family",
    "BARE_MODELS",
    "learner",
    "cli_learners",
    "class_path",
    "kind_of",
    "model_kind",
    "is_bare",
    "classes",
]

ModelKind = Literal["rule_list", "tree", "regression_tree", "additive"]


def _resolve(path: str) -> Any:
    """The object at a dotted path of this table (a constant of this module, never a file's text)."""
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def class_path(cls) -> str:
    """A class as a model file names it: ``module.qualname``."""
    return f"{cls.__module__}.{cls.__qualname__}"


# ---------------------------------------------------------------------------- model kinds
@dataclass(frozen=True)
class Kind:
    """One kind of released model."""

    name: ModelKind
    model: str  #: class path of the released model (its ``from_dict`` reads a file's ``model``)
    paths: bool  #: each record follows one path (a leaf, a rule): Dist_G and the path audits apply
    picture: str | None = None  #: the drawing function of its own package; None: dpmodels.export draws it
    compact: str | None = None  #: the printing option ``dpmodels show --compact`` turns on

    @property
    def model_class(self) -> Any:
        return _resolve(self.model)

    @property
    def picture_function(self):
        """Its own package's ``save_model_figure(model, path)``, or None (dpmodels.export draws it)."""
        return None if self.picture is None else _resolve(self.picture)


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("rule_list", "dpmodels.rulelist.model.RuleList", paths=True, compact="merge"),
        Kind("tree", "dpmodels.tree.model.Tree", paths=True, compact="prune"),
        Kind("regression_tree", "dpmodels.tree.regression_model.RegressionTree", paths=True),
        Kind(
            "additive", "dpmodels.gam.model.AdditiveModel", paths=False, picture="dpmodels.gam.plot.save_model_figure"
        ),
    )
}

#: bare released models a model file may hold without a learner (older files, ``save_model(tree)``)
BARE_MODELS: tuple[str, ...] = ("rule_list", "tree", "regression_tree")


# ---------------------------------------------------------------------------- learners
# options every learner of a trait takes (argparse destinations of ``dpmodels fit``)
_PRIVATE_OPTIONS = ("epsilon", "random_state")
_CLASSIFIER_OPTIONS = ("classes", "holdout")
_REGRESSOR_OPTIONS = ("label_bounds",)
_RULE_LIST_OPTIONS = ("max_rules", "min_support", "cut_points", "n_bins")


@dataclass(frozen=True)
class Learner:
    """One estimator of dpmodels, as the command line, model files, pictures and audits see it."""

    name: str  #: the command line's ``--model`` (``""`` for a learner the command line does not offer)
    estimator: str  #: class path
    kind: ModelKind  #: what it releases (:data:`KINDS`)
    private: bool  #: a DP learner (its fit spends ε and keeps a ledger)
    task: Literal["classification", "regression"] = "classification"
    params: tuple[str, ...] = ()  #: constructor parameters ``dpmodels fit`` sets
    options: tuple[str, ...] = ()  #: ``fit`` options beyond those its traits bring (:attr:`all_options`)
    defaults: dict[str, Any] = field(default_factory=dict)  #: option defaults for this learner
    ranges: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)  #: option ranges
    given_only: tuple[str, ...] = ()  #: parameters passed only when their option is given
    binary_only: str | None = None  #: why it takes exactly two labels (None: K >= 2)
    streams: bool = False  #: fits Parquet data by count passes
    cli: bool = True  #: offered by ``dpmodels fit``

    @property
    def cls(self) -> Any:
        """The estimator class (imported now)."""
        return _resolve(self.estimator)

    @property
    def model_kind(self) -> Kind:
        return KINDS[self.kind]

    @property
    def classifier(self) -> bool:
        return self.task == "classification"

    @property
    def audit_paths(self) -> bool:
        """Its models route each record along one path: the path audits (Dist_G) apply."""
        return self.model_kind.paths

    @property
    def all_options(self) -> frozenset[str]:
        """Every ``fit`` option it takes: its own and those of its traits."""
        out = set(self.options)
        if self.private:
            out.update(_PRIVATE_OPTIONS)
        out.update(_CLASSIFIER_OPTIONS if self.classifier else _REGRESSOR_OPTIONS)
        if self.kind == "rule_list":
            out.update(_RULE_LIST_OPTIONS)
        return frozenset(out)


_TREE_PARAMS = ("epsilon", "max_depth", "classes", "categories", "random_state")
_GAM_PARAMS = ("epsilon", "delta", "max_rounds", "max_bins", "bounds", "categories", "n_public", "random_state")

#: every learner, in the order of the command line's ``--model`` choices
LEARNERS: tuple[Learner, ...] = (
    Learner(
        "greedy-rulelist",
        "dpmodels.rulelist.greedy.GreedyRuleListClassifier",
        "rule_list",
        private=False,
        params=("max_rules", "min_support", "max_width", "classes"),
        options=("max_width", "max_candidates", "max_memory"),
        streams=True,
    ),
    Learner(
        "dp-rulelist",
        "dpmodels.rulelist.private.DPRuleListClassifier",
        "rule_list",
        private=True,
        params=(
            "epsilon",
            "max_rules",
            "min_support",
            "max_width",
            "classes",
            "n_public",
            "random_state",
            "mechanism",
            "delta",
        ),
        options=("delta", "mechanism", "max_width", "binarizer_share", "max_candidates", "max_memory"),
        given_only=("mechanism", "delta"),
        streams=True,
    ),
    Learner(
        "optimal-rulelist",
        "dpmodels.rulelist.optimal.OptimalRuleListClassifier",
        "rule_list",
        private=False,
        params=("max_rules", "min_support", "time_limit", "classes"),
        options=("time_limit",),
        defaults={"min_support": 0.01},
        binary_only="its bounds are two-class",
    ),
    Learner(
        "privatree",
        "dpmodels.tree.privatree.estimator.PrivaTreeClassifier",
        "tree",
        private=True,
        params=(*_TREE_PARAMS, "max_bins", "bounds", "n_public"),
        options=("max_depth", "max_bins", "max_memory"),
        defaults={"max_depth": "auto"},
        ranges={"max_depth": (None, 20), "max_bins": (2, 255)},
        streams=True,
    ),
    Learner(
        "bdpt",
        "dpmodels.tree.baselines.bdpt.BDPTClassifier",
        "tree",
        private=True,
        params=(*_TREE_PARAMS, "max_bins", "bounds"),
        options=("max_depth", "max_bins", "max_memory"),
        ranges={"max_depth": (1, None), "max_bins": (2, None)},
    ),
    Learner(
        "dpgdf",
        "dpmodels.tree.baselines.dpgdf.DPGDFClassifier",
        "tree",
        private=True,
        params=_TREE_PARAMS,
        options=("max_depth", "max_memory"),
        ranges={"max_depth": (1, None)},
    ),
    Learner(
        "dp-gam",
        "dpmodels.gam.estimator.DPAdditiveClassifier",
        "additive",
        private=True,
        params=(*_GAM_PARAMS, "classes"),
        options=("delta", "max_bins", "max_rounds"),
        defaults={"max_bins": 32, "delta": 0.0},
        ranges={"max_bins": (2, 1024), "max_rounds": (None, 1000)},
        streams=True,
    ),
    Learner(
        "privatree-regressor",
        "dpmodels.tree.privatree.regressor.PrivaTreeRegressor",
        "regression_tree",
        private=True,
        task="regression",
        params=("epsilon", "max_depth", "max_bins", "bounds", "label_bounds", "categories", "n_public", "random_state"),
        options=("max_depth", "max_bins", "max_memory"),
        defaults={"max_depth": "auto"},
        ranges={"max_depth": (None, 20), "max_bins": (2, 255)},
    ),
    Learner(
        "dp-gam-regressor",
        "dpmodels.gam.estimator.DPAdditiveRegressor",
        "additive",
        private=True,
        task="regression",
        params=(*_GAM_PARAMS, "label_bounds"),
        options=("delta", "max_bins", "max_rounds", "max_memory"),
        defaults={"max_bins": 32, "delta": 0.0},
        ranges={"max_bins": (2, 1024), "max_rounds": (None, 1000)},
        streams=True,
    ),
    Learner(
        "",
        "dpmodels.tree.optimal.DL85Classifier",
        "tree",
        private=False,
        cli=False,
    ),
)


# ---------------------------------------------------------------------------- options
#: dpmodels.rulelist.MECHANISMS, written out so that building the parser imports no scikit-learn
#: (`dpmodels --help` and argument errors answer in ~0.1 s); tests/cli/test_cli_fit.py checks it
MECHANISMS = (
    "permute-and-flip",
    "sm-laplace",
    "sm-cauchy",
    "gl-laplace",
    "gl-gaussian",
    "gl-exponential",
    "noisy-counts",
)

#: the kinds of values an option takes (``dpmodels.cli._common.OPTION_TYPES`` parses each)
OptionType = Literal[
    "epsilon",  # a finite number > 0
    "delta",  # a number in [0, 1)
    "count",  # an integer >= 1
    "count0",  # an integer >= 0
    "seconds",  # a finite number of seconds > 0
    "share",  # a number in (0, 1)
    "share0",  # a number in [0, 1)
    "int",  # any integer
    "text",  # a string (a choice, a label, a size such as 16G)
    "lo:hi",  # finite numbers LO <= HI
    "col=cuts",  # COL=C1,C2: a column and finite numbers
]


@dataclass(frozen=True)
class Option:
    """One ``dpmodels fit`` option that some learners take and others refuse (the learners that take
    it: :func:`takers`). The command line adds to ``help`` who takes it, its defaults and ranges."""

    name: str  #: argparse destination; the flag is ``--`` and the name with dashes
    type: OptionType  #: the kind of value
    metavar: str
    help: str  #: what it sets (one sentence, no default: those come from the table)
    default: Any = None  #: the default of every learner taking it but those with their own (Learner.defaults)
    says: dict[Any, str] = field(default_factory=dict)  #: a default that is a rule, not a value: {value: words}
    range: tuple[int | None, int | None] | None = None  #: [lo, hi] every learner accepts (Learner.ranges narrows)
    choices: tuple[str, ...] = ()  #: the values accepted, if a fixed list
    aliases: tuple[str, ...] = ()  #: other flags for it (older spellings)
    many: bool = False  #: takes one or more values
    repeatable: bool = False  #: repeated flags add up (default: an empty list)
    why: str = ""  #: said to a learner that refuses it

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


#: every option of ``dpmodels fit`` that not every learner takes, in the order of its help
OPTIONS: tuple[Option, ...] = (
    Option("epsilon", "epsilon", "EPS", "total privacy budget ε > 0 of the model", default=1.0,
           why="the others spend no budget"),
    Option("random_state", "int", "S",
           "seed the privacy noise (reproducible research); NOT private against whoever knows the seed",
           says={None: "none (OS entropy)"}, why="the others draw no noise"),
    Option("delta", "delta", "DELTA",
           "δ in [0, 1): dp-rulelist's mechanisms that need it; dp-gam / dp-gam-regressor: δ > 0 switches "
           "to Gaussian noise under zCDP",
           says={None: "0, or the mechanism's default with --n-public", 0.0: "0 (pure ε-DP)"},
           why="the trees are pure ε-DP"),
    Option("mechanism", "text", "MECH", "the rule selection mechanism", choices=MECHANISMS,
           says={None: "permute-and-flip (pure ε-DP)"}),
    Option("binarizer_share", "share", "S",
           "share of ε spent on the Binarizer's private quantiles when numerical columns have --bounds and no "
           "--cut-points", default=0.1),
    Option("classes", "text", "LABEL",
           "the label set, in order: K >= 2 labels (two: negative then positive; optimal-rulelist and the "
           "dp-rulelist mechanisms sm-laplace, sm-cauchy, noisy-counts take exactly 2). Labels compare as "
           "values (0.0 matches 0)", many=True,
           says={None: "rule lists {0, 1}; the others read it from the data (a leak)"},
           why="a regressor's labels are numbers: --label-bounds LO:HI"),
    Option("holdout", "share", "F",
           "hold out a share F of the rows, chosen row by row by a keyed hash of each row's cells, and print "
           "a DP held-out accuracy (noisy counts of right and wrong predictions)", aliases=("--test-size",),
           says={None: "fit on every row"}, why="its DP evaluation counts right and wrong predictions"),
    Option("label_bounds", "lo:hi", "LO:HI",
           "public bounds of the numeric label (labels outside are clipped; a negative LO is written "
           "--label-bounds=-5:30)", says={None: "read from the data (a leak)"}, why="classifiers take --classes"),
    Option("max_rules", "count", "K", "rule list length, the default rule included", default=5),
    Option("min_support", "share0", "λ", "minimum support of a rule, in [0, 1)", default=0.05),
    Option("cut_points", "col=cuts", "COL=C1,C2",
           "a numerical column and public thresholds (no privacy cost); repeatable", many=True, repeatable=True,
           why="trees choose their own thresholds"),
    Option("n_bins", "count", "K",
           "bins per numerical column without cut points: private quantiles within --bounds (dp-rulelist), "
           "else the data's quantiles (a leak)", default=3, range=(2, 256)),
    Option("max_width", "count", "W", "literals per rule", default=2),
    Option("max_candidates", "count", "N", "raise the rule-candidate limit",
           says={None: "500000, or DPMODELS_MAX_CANDIDATES"}),
    Option("time_limit", "seconds", "S", "seconds before returning the best list found with its gap",
           says={None: "none (search to optimality)"}),
    Option("max_depth", "count0", "D", "maximum depth", default=4,
           says={"auto": "a public rule on ε, n and the number of columns"}),
    Option("max_bins", "count", "B",
           "bins per numerical column (a tree's candidate thresholds; an additive model's uniform bins within "
           "the bounds)", default=10),
    Option("max_rounds", "count0", "R", "boosting rounds after the histogram pass",
           says={None: "a public rule on ε, δ, the number of columns and --n-public"}),
    Option("max_memory", "text", "SIZE",
           "raise the memory limit of the fit, e.g. 16G; a CSV is read in batches of about 1/16 of it",
           says={None: "half the RAM, at most 8G, or DPMODELS_MAX_MEMORY"}),
)  # fmt: skip


def option(name: str) -> Option:
    """The option whose destination is ``name`` (a ``KeyError`` for any other)."""
    return _options()[name]


@functools.cache
def _options() -> dict[str, Option]:
    return {o.name: o for o in OPTIONS}


def takers(name: str) -> tuple[Learner, ...]:
    """The command-line learners that take option ``name``, in the order of ``--model``'s choices."""
    return tuple(entry for entry in cli_learners() if name in entry.all_options)


#: named sets of learners, by which the command line names who takes an option
FAMILIES: tuple[tuple[str, Any], ...] = (
    ("private models", lambda e: e.private),
    ("classifiers", lambda e: e.classifier),
    ("regressors", lambda e: not e.classifier),
    ("rule lists", lambda e: e.kind == "rule_list"),
    ("trees", lambda e: e.kind in ("tree", "regression_tree")),
    ("additive models", lambda e: e.kind == "additive"),
)


def family(learners) -> str | None:
    """The name of the family (:data:`FAMILIES`) that is exactly ``learners`` (command-line learners),
    or None."""
    names = {e.name for e in learners}
    for word, member in FAMILIES:
        if names == {e.name for e in cli_learners() if member(e)}:
            return word
    return None


def cli_learners() -> tuple[Learner, ...]:
    """The learners ``dpmodels fit`` offers, in the order of its ``--model`` choices."""
    return tuple(entry for entry in LEARNERS if entry.cli)


def learner(name: str) -> Learner:
    """The command-line learner called ``name`` (a ``KeyError`` for any other name)."""
    return _by_name()[name]


@functools.cache
def _by_name() -> dict[str, Learner]:
    return {entry.name: entry for entry in LEARNERS if entry.cli}


@functools.cache
def _by_class() -> dict[str, ModelKind]:
    out: dict[str, ModelKind] = {entry.estimator: entry.kind for entry in LEARNERS}
    out.update({KINDS[k].model: KINDS[k].name for k in BARE_MODELS})
    return out


def kind_of(cls_path: str) -> ModelKind | None:
    """The model kind the class at ``cls_path`` releases (a learner) or is (a bare model); None for
    a class outside this table."""
    return _by_class().get(cls_path)


def model_kind(obj) -> ModelKind | None:
    """The kind of the model ``obj`` holds or is: a loaded model file, a fitted learner of this
    table, a Pipeline ending with one, or a bare released model; None for anything else."""
    if getattr(type(obj), "_dpmodels_loaded_model", False) is True:
        return obj.kind
    steps = getattr(obj, "steps", None)
    if isinstance(steps, list) and steps:
        obj = steps[-1][1]
    return kind_of(class_path(type(obj)))


def is_bare(cls_path: str) -> bool:
    """Is the class at ``cls_path`` a bare released model (no learner recorded)?"""
    return cls_path in {KINDS[k].model for k in BARE_MODELS}


def classes() -> dict[str, type]:
    """``{class path: class}`` of every learner and bare model of this table (imported now)."""
    return {path: _resolve(path) for path in _by_class()}
