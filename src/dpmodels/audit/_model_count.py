"""Exact model counting for rule lists: how many 0/1 assignments each rule captures.

For a rule list f_1, …, f_r (conjunctions of literals over d binary attributes) followed by the
default rule, ``capture_counts`` returns, for every j,

    Capt_j = #{x ∈ {0,1}^d : f_j(x) and not f_l(x) for every l < j}        (paper 003, Eq. 12)

and for the default rule the number of assignments that no rule captures. The counts are exact
Python integers (2^d can be astronomically large) and they partition the 2^d assignments.

Method. Eq. 12 is a model-counting problem (counting the models of a negated DNF is #P-hard in
general), but rule lists mention few attributes per rule, so the structure is exploited:

1. Attributes no rule mentions are free: a factor 2 each, for every rule.
2. Rules are grouped into connected components of the "shares an attribute" relation. Each
   component is counted on its own, as a vector ``v[j]`` = number of assignments of its
   attributes whose *first* satisfied rule is j (or none). Components are independent, so the
   vectors combine exactly: the first rule satisfied overall is the minimum of the components'
   first rules (``_combine_first``, O(r) per component).
3. Within a component, a dynamic program runs over its attributes in a fixed order (a frontier /
   path-decomposition DP, like building a decision diagram level by level). Its state is
   (first rule already satisfied, set of started-but-unfinished earlier rules whose literals all
   held so far); rules placed after the first satisfied one are dropped from the state, and a
   rule whose attributes are all assigned either fires or leaves the state. Equal states merge.

Complexity: O(Σ_components V_c · S_c · o) where V_c is the number of attributes of the component,
o the number of rules an attribute occurs in and S_c ≤ (r_c + 1) · 2^w the number of distinct
states, w being the frontier width of the order (the number of rules started but not finished,
and at most the number of assigned attributes still shared with an unfinished rule). The order
is chosen greedily to keep the frontier small (a second greedy order is tried when the first
one's estimated cost is large). Exponential only in that width: a rule list whose rules form
small or path-like overlap groups is counted in time linear in its size, e.g. 30 random width-2
rules over 100 attributes in well under a millisecond; dense overlap of many wide rules over few
attributes is the hard case (see ``docs/benchmarks.md``). The recursion of paper 003
(Eq. 13–15) instead makes 2^r − 1 calls whatever the structure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

__all__ = ["capture_counts", "estimate_work"]

# Estimated number of DP state visits above which a second variable order is also tried.
_RETRY_ORDER_COST = 4096


def capture_counts(rules: Sequence[Sequence[tuple[int, int]]], n_vars: int) -> list[int]:
    """Number of assignments of ``n_vars`` binary attributes captured by each rule, then the default.

    Parameters
    ----------
    rules : sequence of rules, each a sequence of literals ``(attribute index, value)`` with value
        0 or 1, meaning "attribute == value". A rule with no literal is always satisfied; a rule
        with contradictory literals (``(k, 0)`` and ``(k, 1)``) never is; repeated literals count
        once.
    n_vars : number of binary attributes d (indices in ``range(n_vars)``).

    Returns
    -------
    list of ``len(rules) + 1`` Python ints: Capt_1, …, Capt_r and the default rule's count. They
    sum to ``2**n_vars``.
    """
    n_vars = int(n_vars)
    terms, occ, always, r = _parse(rules, n_vars)
    acc = {always: 1}
    for comp_vars in _components(terms, occ):
        acc = _combine_first(acc, _count_component(comp_vars, terms, occ, always), always)
    free = n_vars - len(occ)
    out = [0] * (r + 1)
    for j, c in acc.items():  # keys: rules before `always`, and `always` (the default if r)
        out[j] = c << free
    return out


def _parse(rules, n_vars):
    """``(terms, occ, always, r)``: the satisfiable rules before the first always-true one as
    {attribute: value}, each attribute's (rule, value) occurrences, that rule's index (r: none)."""
    n_vars = int(n_vars)
    if n_vars < 0:
        raise ValueError("n_vars must be >= 0")
    r = len(rules)
    terms: dict[int, dict[int, int]] = {}  # rule index -> {attribute: value}, satisfiable rules only
    always = r  # index of the first rule that is always satisfied (r: none, i.e. the default)
    for j, rule in enumerate(rules):
        lits: dict[int, int] = {}
        contradictory = False
        for k, b in rule:
            k, b = int(k), int(b)
            if not 0 <= k < n_vars or b not in (0, 1):
                raise ValueError(f"rule {j}: literal ({k}, {b}) is not (attribute in [0, {n_vars}), 0 or 1)")
            if lits.setdefault(k, b) != b:
                contradictory = True
        if contradictory:
            continue
        if not lits:
            always = j
            break
        terms[j] = lits
    # `always` catches everything the rules before it leave: it plays the default rule's part.
    occ: dict[int, list[tuple[int, int]]] = defaultdict(list)  # attribute -> [(rule, value)]
    for j, lits in terms.items():
        for k, b in lits.items():
            occ[k].append((j, b))
    return terms, occ, always, r


def estimate_work(rules: Sequence[Sequence[tuple[int, int]]], n_vars: int) -> tuple[int, int]:
    """``(visits, peak)`` of :func:`capture_counts` on these rules, from their structure alone:
    the bound of :func:`_order_cost` (Σ over the attribute steps of 2^min(open rules, live
    attributes)) summed over the components with the order the counter would use, and the largest
    single step's bound (the states held at once). Cheap: O(attributes · occurrences) per order."""
    terms, occ, always, _ = _parse(rules, int(n_vars))
    visits = peak = 0
    for comp_vars in _components(terms, occ):
        _, cost, top = _component_order(comp_vars, terms, occ)
        visits += cost
        peak = max(peak, top)
    return visits, peak


def _components(terms, occ) -> list[list[int]]:
    """Attributes grouped by connected component of the rule/attribute incidence (union-find)."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for lits in terms.values():
        it = iter(lits)
        a = next(it)
        parent.setdefault(a, a)
        ra = find(a)
        for k in it:
            if k not in parent:
                parent[k] = ra
            else:
                rk = find(k)
                if rk != ra:
                    parent[rk] = ra
    groups: dict[int, list[int]] = defaultdict(list)
    for k in occ:
        groups[find(k)].append(k)
    return list(groups.values())


def _combine_first(a: dict, b: dict, none: int) -> dict:
    """Vectors over "first satisfied rule" of two independent attribute sets -> of their union.

    first(x ∪ y) = min(first(x), first(y)); a rule belongs to one component only, so
    c[k] = a[k]·#(b's first > k) + b[k]·#(a's first > k), and c[none] = a[none]·b[none].
    """
    keys = sorted(set(a) | set(b), reverse=True)
    out = {}
    a_after = b_after = 0  # assignments whose first rule comes after the current key
    for k in keys:
        ak, bk = a.get(k, 0), b.get(k, 0)
        out[k] = ak * bk if k == none else ak * b_after + bk * a_after
        a_after += ak
        b_after += bk
    return {k: v for k, v in out.items() if v}


def _greedy_order(comp_vars, occ, size, prefer_touching: bool) -> list[int]:
    """Attribute order that keeps few rules open: pick the attribute opening the fewest new rules
    net of those it closes; ties by most rules closed (or by most already-open rules touched)."""
    started: set[int] = set()
    rem = dict(size)
    left = set(comp_vars)
    order = []
    while left:
        best, best_key = None, None
        for k in left:
            new = fin = touch = 0
            for j, _ in occ[k]:
                if j in started:
                    touch += 1
                else:
                    new += 1
                if rem[j] == 1:
                    fin += 1
            key = (new - fin, -touch if prefer_touching else -fin, k)
            if best_key is None or key < best_key:
                best, best_key = k, key
        assert best is not None  # `left` is not empty
        left.discard(best)
        order.append(best)
        for j, _ in occ[best]:
            started.add(j)
            rem[j] -= 1
    return order


def _order_cost(order, occ, terms, size, *, with_peak=False):
    """Upper bound on the DP's state visits for an order: Σ_steps 2^min(open rules, live attributes).

    The alive mask ranges over the open (started, unfinished) rules, and it is a function of the
    values of the *live* attributes (assigned, and in some open rule), hence the minimum.
    """
    rem = dict(size)
    open_uses: dict[int, int] = {}  # assigned attribute -> number of its rules still open
    opened = live = cost = peak = 0
    for k in order:
        for j, _ in occ[k]:
            if rem[j] == size[j]:
                opened += 1
            rem[j] -= 1
        open_uses[k] = sum(1 for j, _ in occ[k] if rem[j] > 0)
        live += open_uses[k] > 0
        for j, _ in occ[k]:
            if rem[j] == 0:  # j closes: its other attributes hold one open rule fewer
                opened -= 1
                for kk in terms[j]:
                    if kk != k:
                        open_uses[kk] -= 1
                        live -= open_uses[kk] == 0
        step = 1 << min(opened, live)
        cost += step
        peak = max(peak, step)
    return (cost, peak) if with_peak else cost


def _component_order(comp_vars, terms, occ):
    """``(order, cost, peak)``: the attribute order the counter uses for a component (the greedy
    one, or the second greedy order when the first one's cost is large and the second's lower),
    with its :func:`_order_cost` bound and largest step."""
    rules_here = sorted({j for k in comp_vars for j, _ in occ[k]})
    size = {j: len(terms[j]) for j in rules_here}
    if len(rules_here) == 1:
        return list(comp_vars), 1, 1
    order = _greedy_order(comp_vars, occ, size, prefer_touching=False)
    cost, peak = _order_cost(order, occ, terms, size, with_peak=True)
    if cost > _RETRY_ORDER_COST:
        other = _greedy_order(comp_vars, occ, size, prefer_touching=True)
        other_cost, other_peak = _order_cost(other, occ, terms, size, with_peak=True)
        if other_cost < cost:
            order, cost, peak = other, other_cost, other_peak
    return order, cost, peak


def _count_component(comp_vars, terms, occ, none) -> dict[int, int]:
    """{first satisfied rule (or ``none``): number of assignments of ``comp_vars``}."""
    rules_here = sorted({j for k in comp_vars for j, _ in occ[k]})
    size = {j: len(terms[j]) for j in rules_here}
    if len(rules_here) == 1:  # one rule: it fires on one assignment of its attributes
        (j,) = rules_here
        return {j: 1, none: (1 << size[j]) - 1}
    order, _, _ = _component_order(comp_vars, terms, occ)

    rem = dict(size)
    states: dict[tuple[int, int], int] = {(none, 0): 1}  # (first rule satisfied, alive mask) -> count
    for k in order:
        here = occ[k]
        for j, _ in here:
            rem[j] -= 1
        # per rule touched by k: its bit, whether it started before k, whether k finishes it
        touched = [(j, b, 1 << j, rem[j] + 1 < size[j], rem[j] == 0) for j, b in here]
        new: dict[tuple[int, int], int] = defaultdict(int)
        for (first, mask), cnt in states.items():
            for value in (0, 1):
                m, fired = mask, None
                for j, b, bit, was_started, finishes in touched:
                    if j >= first:
                        continue  # an earlier rule already fired: j is irrelevant
                    alive = (mask & bit) if was_started else True
                    if b != value or not alive:
                        m &= ~bit
                    elif finishes:
                        m &= ~bit
                        if fired is None or j < fired:
                            fired = j
                    else:
                        m |= bit
                if fired is None:
                    new[(first, m)] += cnt
                else:  # rules after the one that fired no longer matter
                    new[(fired, m & ((1 << fired) - 1))] += cnt
        states = new
    out: dict[int, int] = defaultdict(int)
    for (first, _mask), cnt in states.items():
        out[first] += cnt
    return dict(out)
