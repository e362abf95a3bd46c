"""The strategy of one label: what the settings choose for it, checked against what the operators
run (``OperatorTable``, built from their ``handles``).

Resolution order: ``Settings.strategies[fine label]``, then ``Settings.strategies[category]``,
then the default of the category, where DATE follows ``privacy.date_strategy`` and CITY follows
``privacy.place_strategy``. A profile is laid over ``Settings.strategies`` before any of this
(``deid.substitution.profiles``).
"""

from __future__ import annotations

from deid.labels import KEPT_BY_DEFAULT, Category, Label
from deid.settings import Settings
from deid.substitution.operators import OperatorTable

_DATE = {"dp": "dp-laplace", "interval": "interval", "shift": "shift", "placeholder": "placeholder"}

DEFAULTS: dict[Category, str] = {
    Category.PER: "random",
    Category.AGE: "dp-laplace",
    Category.LOC: "random",
    Category.ORG: "random",
    Category.TEL: "random",
    Category.REF: "random",
    Category.QID: "random",
    Category.OTHER: "placeholder",
}


def chosen_strategy(label: Label, settings: Settings) -> str:
    """What the settings ask for ``label``, unchecked ("dp" is short for "dp-laplace")."""
    chosen = settings.strategies.get(label.value) or settings.strategies.get(label.category.value)
    if chosen is None:
        if label in KEPT_BY_DEFAULT:
            chosen = "keep"
        elif label.category is Category.DATE:
            chosen = _DATE[settings.privacy.date_strategy]
        elif label is Label.CITY:
            chosen = settings.privacy.place_strategy
        else:
            chosen = DEFAULTS[label.category]
    return "dp-laplace" if chosen == "dp" else chosen


def strategy_of(label: Label, settings: Settings, table: OperatorTable) -> str:
    """The strategy ``label`` runs under: the settings' choice, refused (ValueError) unless an
    operator of ``table`` runs it for the label."""
    chosen = chosen_strategy(label, settings)
    if chosen not in table.strategies(label):
        raise ValueError(f"strategy {chosen!r} is not available for label {label.value}")
    if chosen in ("exponential", "geo") and label is not Label.CITY:
        chosen = "random"  # only cities have a table with coordinates and features
    return chosen
