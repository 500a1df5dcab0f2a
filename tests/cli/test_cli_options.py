"""`dpmodels fit`'s learner options come from the learner table (dpmodels.catalog.OPTIONS): each is in
the parser, in the help group of the learners that take it, and refused in one line (exit 2) by
every other learner, before anything is read or spent. A new option or learner is covered here
without a line added."""

from __future__ import annotations

import argparse

import pandas as pd
import pytest

from dpmodels.catalog import LEARNERS, OPTIONS, cli_learners, family, takers
from dpmodels.cli import fit as cli_fit
from dpmodels.cli import main

# a valid value of each kind (dpmodels.catalog.OptionType): the refusal must not be a parse error
SAMPLE = {
    "epsilon": "1",
    "delta": "0.1",
    "count": "3",
    "count0": "2",
    "seconds": "5",
    "share": "0.5",
    "share0": "0.1",
    "int": "3",
    "text": "1G",
    "lo:hi": "0:1",
    "col=cuts": "x=0.5",
}


def _values(opt) -> list[str]:
    if opt.choices:
        return [opt.choices[0]]
    return ["0", "1"] if opt.many and opt.type == "text" else [SAMPLE[opt.type]]


def _parser():
    p = argparse.ArgumentParser()
    cli_fit.add_parser(p.add_subparsers())
    return p._subparsers._group_actions[0].choices["fit"]


def test_every_option_of_the_table_is_in_the_parser_in_its_learners_group():
    fit = _parser()
    actions = {a.dest: a for a in fit._actions}
    group_of = {a.dest: g.title for g in fit._action_groups for a in g._group_actions}
    for opt in OPTIONS:
        who = takers(opt.name)
        assert who, f"no learner takes {opt.flag}"
        a = actions[opt.name]
        assert opt.flag in a.option_strings and set(opt.aliases) <= set(a.option_strings)
        assert tuple(a.choices or ()) == opt.choices
        names = ", ".join(e.name for e in who)
        assert group_of[opt.name] in (f"{family(who)} ({names})", f"options of {names}")
        assert "Default: " in a.help
        for e in who:  # a learner's own default is written under its name
            if opt.name in e.defaults and len({repr(x.defaults.get(opt.name, opt.default)) for x in who}) > 1:
                assert e.name in a.help.split("Default: ")[1]
    # and every option a learner takes has its table entry
    known = {o.name for o in OPTIONS}
    for entry in LEARNERS:
        assert entry.all_options <= known, entry.name


REFUSALS = [(opt, e) for opt in OPTIONS for e in cli_learners() if opt.name not in e.all_options]


@pytest.fixture(scope="module")
def csv(tmp_path_factory):
    p = tmp_path_factory.mktemp("opts") / "d.csv"
    pd.DataFrame({"x": [0.1, 0.9, 0.4], "y": [0, 1, 1]}).to_csv(p, index=False)
    return p


@pytest.mark.parametrize("opt, entry", REFUSALS, ids=[f"{o.name}-{e.name}" for o, e in REFUSALS])
def test_an_option_the_learner_does_not_take_is_one_line_before_anything_is_spent(opt, entry, csv, tmp_path, capsys):
    out = tmp_path / "m.json"
    args = ["fit", "--data", str(csv), "--label", "y", "--model", entry.name, "--out", str(out)]
    code = main([*args, opt.flag, *_values(opt)])
    got = capsys.readouterr()
    assert code == 2, got.err
    lines = got.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpmodels: error: "), got.err
    assert f"{opt.flag} applies to " in lines[0] and f"not to {entry.name}" in lines[0]
    assert got.out == "" and not out.exists()  # nothing fitted, printed or saved


def test_refusals_cover_every_learner_and_option():
    """Each learner refuses something and each option is refused by someone, but those every
    learner takes (none today)."""
    assert {e.name for _, e in REFUSALS} == {e.name for e in cli_learners()}
    assert {o.name for o, _ in REFUSALS} == {o.name for o in OPTIONS if len(takers(o.name)) < len(cli_learners())}


def test_every_default_is_a_value_the_option_accepts_or_a_rule_in_words():
    """A default in the table parses as the option's type and lies in each learner's range, or it is
    a rule the help describes in words (privatree's "auto" depth): a typo in the table fails here."""
    from dpmodels.cli._common import OPTION_TYPES

    for opt in OPTIONS:
        parse = OPTION_TYPES[opt.type] or str
        for e in takers(opt.name):
            d = e.defaults.get(opt.name, opt.default)
            if d is None or d in opt.says:  # no value ("none"), or the table's words for it
                continue
            assert parse(str(d)) == d, (opt.name, e.name, d)
            lo, hi = e.ranges.get(opt.name, opt.range) or (None, None)
            assert (lo is None or d >= lo) and (hi is None or d <= hi), (opt.name, e.name, d)
