"""Save a fitted model with its guarantee, load it back as a light predictor.

:func:`save_model` writes one JSON file holding everything a reader needs to use the model and
to know what it promises:

``format``, ``format_version``, ``dpmodels_version``
    ``"dpmodels.model"``, an integer (this module reads versions up to :data:`FORMAT_VERSION`).
``estimator``
    ``class`` (the class path: one of :func:`estimator_classes`, a fixed table — a loader
    imports nothing a file names), ``name`` and ``params`` (JSON-safe). ``random_state`` is **never
    written**: a seeded release is not private against whoever knows the seed, so the file only
    says whether the noise was seeded (``privacy.noise_seeded``).
``privacy``
    ``private_learner``, ``epsilon``, ``delta`` (the budget), ``epsilon_spent``, ``delta_spent``,
    ``is_private`` and ``verdict`` (the ledger's, in words), ``noise_seeded``, and the full
    ``ledger`` (one row per data access, each with its guarantee: proven / claimed / none).
``schema``
    The public inputs: ``classes``, ``input_features`` (the columns a raw frame must hold),
    ``categories`` (categorical feature -> public list), ``bounds`` (numerical feature ->
    [lo, hi], when declared), ``n_public``, and ``preprocessing`` (e.g. the Binarizer's
    ``to_dict()``: its cut points are part of the released model); and the **source** of every
    declaration (``classes_source``, ``label_bounds_source``, ``n_public_source``,
    ``column_sources``: ``user``, ``dp`` or ``data``; docs/privacy.md, "Sources travel with
    values"), so that reusing the file as a schema never turns a value read from the data into a
    declaration. The command line adds ``label``, ``columns`` (each column's declaration with its
    source) and a DP draft's ``draft`` block (its ledger).
``model``
    :meth:`RuleList.to_dict` or :meth:`Tree.to_dict` (raw noisy counts, exact thresholds).
``extra``
    Learner-specific public facts (an optimality certificate, PrivaTree's budget shares).

:func:`load_model` treats the file as untrusted input (docs/privacy.md, "Model files are
untrusted input"): classes only from :func:`estimator_classes` / :func:`preprocessor_classes`,
every size within :data:`CAPS` before anything is built, version, keys and types checked; it
raises :class:`ModelFileError` (a ``ValueError``) with one line saying what is wrong, and no
other exception. It returns a
:class:`LoadedModel` with ``predict`` / ``predict_proba`` / ``apply`` on **raw** frames (through
the saved preprocessing), ``get_rules()``, ``privacy_ledger_`` and printing. Predictions are
identical to the estimator's (``tests/io/test_io.py`` checks every learner).
"""

from .format import FORMAT, FORMAT_VERSION, ModelFileError, estimator_classes, preprocessor_classes
from .limits import CAPS, read_model_json
from .loaded import LoadedModel
from .read import load_model, model_from_dict
from .write import check_output_path, model_to_dict, save_model

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "ModelFileError",
    "LoadedModel",
    "model_to_dict",
    "model_from_dict",
    "save_model",
    "load_model",
    "read_model_json",
    "estimator_classes",
    "preprocessor_classes",
    "CAPS",
    "check_output_path",
]
