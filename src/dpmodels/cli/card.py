"""``dpmodels card MODEL.json [--audit AUDIT.json] --out card.html|card.md``: one page about a published
model for a privacy officer (what was released, its guarantee and verdict in words, the ledger, the
declared schema with each declaration's source, the picture, the audit's summary). It reads the model
file (and the audit JSON) only: no data, no budget (:mod:`dpmodels.export.card`).
"""

from __future__ import annotations

from ._common import UsageError, check_model_path, check_readable, one_line_errors

__all__ = ["add_parser", "cmd_card"]


def add_parser(sub) -> None:
    p = one_line_errors(
        sub.add_parser(
            "card",
            help="write a model card (HTML or Markdown) for a saved model",
            description="Write one page about a saved model: the verdict in words, the privacy ledger, the "
            "declared schema with each declaration's source, the picture, and an audit's summary (--audit). "
            "Reads the model file only: no data, no budget.",
        )
    )
    p.add_argument("model", metavar="MODEL.json", help="a model file written by dpmodels fit")
    p.add_argument("--audit", metavar="AUDIT.json", help="an audit written by `dpmodels audit --json` (default: none)")
    p.add_argument("--out", required=True, metavar="CARD", help="the card's file: .html or .md")
    p.set_defaults(func=cmd_card)


def cmd_card(args) -> int:
    from pathlib import Path

    from ..export.card import write_model_card

    out = Path(args.out)
    if out.suffix.lower() not in (".html", ".htm", ".md"):
        raise UsageError(f"--out must end in .html or .md, got {args.out!r}")
    if not out.parent.exists():
        raise UsageError(f"--out {args.out!r}: the folder {str(out.parent)!r} does not exist")
    check_model_path(args.model)
    if args.audit is not None:
        check_readable(args.audit)
    path = write_model_card(args.model, out, audit=args.audit)
    print(f"card written to {path}")
    return 0
