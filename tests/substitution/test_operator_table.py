"""Each mention goes to the operator that declares its (label, strategy) pair in ``handles``; the
settings' choice of strategy per label is checked against those declarations (issue 34)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from deid.labels import KEPT_BY_DEFAULT, Category, Label
from deid.settings import PrivacySettings, Settings
from deid.store.base import Release
from deid.substitution import Substituter  # noqa: F401 - imports the modules that register operators
from deid.substitution.items import Item, NoteContext
from deid.substitution.operators import Operator, OperatorTable, claims
from deid.substitution.strategies import strategy_of


class _Stub(Operator):
    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        return None

    def draw(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str],
             eps: Mapping[str, float], cost: Mapping[str, int]) -> list[Release]:
        return []

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str]:
        return "", ""


def _stub(name: str, handles: frozenset[tuple[Label, str]]) -> Operator:
    op = _Stub()
    op.name, op.handles = name, handles
    return op


def test_two_operators_claiming_one_label_and_strategy_are_refused() -> None:
    a = _stub("a", claims([Label.CITY, Label.STREET], {"random"}))
    b = _stub("b", claims([Label.CITY], {"random"}))
    with pytest.raises(ValueError, match="both claim strategy 'random' for label CITY"):
        OperatorTable([a, b])


def test_one_label_may_go_to_different_operators_under_different_strategies() -> None:
    a = _stub("a", claims([Label.CITY], {"random"}))
    b = _stub("b", claims([Label.CITY], {"placeholder"}))
    table = OperatorTable([a, b])
    assert table.operator(Label.CITY, "random") is a
    assert table.operator(Label.CITY, "placeholder") is b
    assert table.strategies(Label.CITY) == {"random", "placeholder"}


def test_a_strategy_no_operator_declares_for_the_label_is_refused() -> None:
    table = OperatorTable([_stub("a", claims([Label.CITY], {"random"}))])
    with pytest.raises(ValueError, match="strategy 'geo' is not available for label CITY"):
        table.operator(Label.CITY, "geo")
    assert table.strategies(Label.PHONE) == frozenset()


def test_the_registered_operators_route_each_category_as_before() -> None:
    """The table the engine builds sends every label to the operator the former hard-coded
    mapping did (same groups, same draw order, same surrogates for a seed)."""
    table = OperatorTable.of_registered()
    expected_random = {Category.PER: "persons", Category.LOC: "places", Category.ORG: "places",
                       Category.TEL: "formats", Category.REF: "formats", Category.QID: "formats",
                       Category.OTHER: "formats"}
    for label in Label:
        assert table.operator(label, "placeholder").name == "placeholder"
        if label.category in expected_random:
            assert table.operator(label, "random").name == expected_random[label.category]
            assert table.operator(label, "neighbour").name == "neighbour"
        else:
            assert table.operator(label, "shift").name == "temporal"
            assert "neighbour" not in table.strategies(label)
    assert {lab for lab in Label if "keep" in table.strategies(lab)} == KEPT_BY_DEFAULT
    assert table.strategies(Label.AGE) == {"placeholder", "dp-laplace", "shift", "safe-harbor"}
    assert table.strategies(Label.HOSPITAL) == {"placeholder", "random", "neighbour"}
    assert table.strategies(Label.CITY) == {"placeholder", "random", "exponential", "geo", "neighbour",
                                            "safe-harbor"}


def test_strategy_resolution_by_label_then_category_then_defaults() -> None:
    table = OperatorTable.of_registered()
    s = Settings(strategies={"PATIENT": "placeholder", "LOC": "random"},
                 privacy=PrivacySettings(date_strategy="interval"))
    assert strategy_of(Label.PATIENT, s, table) == "placeholder"
    assert strategy_of(Label.STAFF, s, table) == "random"
    assert strategy_of(Label.CITY, s, table) == "random"
    assert strategy_of(Label.DATE, s, table) == "interval"
    assert strategy_of(Label.AGE, Settings(), table) == "dp-laplace"
    assert strategy_of(Label.CITY, Settings(), table) == "exponential"
    assert strategy_of(Label.SEX, Settings(), table) == "keep"
    assert strategy_of(Label.DATE, Settings(strategies={"DATE": "dp"}), table) == "dp-laplace"
    # a place mechanism asked for a whole category runs on cities only: the rest is random
    assert strategy_of(Label.STREET, Settings(strategies={"LOC": "exponential"}), table) == "random"
    with pytest.raises(ValueError, match="not available for label PHONE"):
        strategy_of(Label.PHONE, Settings(strategies={"TEL": "dp-laplace"}), table)
    with pytest.raises(ValueError, match="not available for label AGE"):
        strategy_of(Label.AGE, Settings(strategies={"AGE": "interval"}), table)


def test_an_operator_declaring_bare_strategy_names_is_refused() -> None:
    op = _stub("formats-like", frozenset({"random"}))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must declare"):
        OperatorTable([op])
