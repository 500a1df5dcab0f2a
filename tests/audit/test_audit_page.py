"""The audit page opens in plain words: what was published, whether an attack contradicts it, how
exposed records are, and what a small V p-value means for a DP model (traffic lights)."""

from types import SimpleNamespace

from dpmodels.audit.report import _number_words, _plain_summary


class _Attack:
    def __init__(self, name, auc):
        self.attack, self.auc = name, auc

    def tpr_at(self, fpr):
        return 0.02


class _V(float):
    p_value = 0.03


class _Rec:
    dist_g = 0.9

    def exposure(self, k):
        return {"most_exposed": [{"record": 3, "ratio": 0.61, "path": "x"}]}


def _audit(*, private=True, eps=1.0, lb=0.0, auc=0.52, v_p=0.03):
    v = _V(0.52)
    v.p_value = v_p
    model = SimpleNamespace(privacy={"is_private": private}, estimator_name="PrivaTreeClassifier", kind="tree")
    return SimpleNamespace(
        stated={"epsilon": eps, "delta": 0.0},
        model=model,
        epsilon_lower_bound=lb,
        _consistent=lambda: None if eps is None else lb <= eps,
        alpha=0.05,
        membership={"lira": _Attack("lira", auc)},
        reconstruction=_Rec(),
        domains_note="",
        vulnerability=v,
    )


def test_a_private_model_with_a_small_v_p_value_is_explained_not_flagged():
    page = _plain_summary(_audit())
    assert page.count('class="light ') == 5
    assert "Does any attack contradict the guarantee? No" in page
    assert "A small p does not contradict ε = 1-DP" in page and 'class="light amber"' in page
    assert "keeps 0.61 of its uncertainty" in page


def test_a_refuted_claim_and_a_strong_attack_are_red():
    page = _plain_summary(_audit(lb=2.5, auc=0.7))
    assert "YES" in page and "the claim is refuted" in page and page.count('class="light red"') == 2


def test_a_non_private_model_has_nothing_to_refute():
    page = _plain_summary(_audit(private=False, eps=None, v_p=0.5))
    assert 'class="light red"' in page and 'class="light grey"' in page and "No stated ε" in page
    assert "No evidence that the model treats members and non-members differently" in page


def test_every_number_key_is_explained():
    for key in ("dist_g", "V", "V_p_value", "auc.lira", "tpr@1%fpr.threshold", "epsilon_lower_bound.rmia",
                "epsilon_lower_bound", "stated_epsilon"):  # fmt: skip
        assert _number_words(key), key
