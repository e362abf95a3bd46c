"""Strategy names and how one is chosen per fine label or category (Presidio-like operators).

Resolution order: ``Settings.strategies[fine label]``, then ``Settings.strategies[category]``,
then the default of the category, where DATE follows ``privacy.date_strategy`` and CITY follows
``privacy.place_strategy``.
"""

from __future__ import annotations

from deid.labels import KEPT_BY_DEFAULT, Category, Label
from deid.settings import Settings

STRATEGIES = ("keep", "placeholder", "random", "dp-laplace", "interval", "shift", "safe-harbor",
              "exponential", "geo", "neighbour")

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

# Which strategies each category can run; anything else is refused at configuration time.
ALLOWED: dict[Category, frozenset[str]] = {
    Category.DATE: frozenset({"placeholder", "dp-laplace", "interval", "shift", "safe-harbor"}),
    Category.AGE: frozenset({"placeholder", "dp-laplace", "shift", "safe-harbor"}),
    Category.LOC: frozenset({"placeholder", "random", "exponential", "geo", "neighbour", "safe-harbor"}),
}
# embedding-neighbour pseudonymisation (deid.neighbours) is word-level: any non-temporal category
_OTHERS = frozenset({"placeholder", "random", "neighbour"})
# "keep" leaves a quasi-identifier in clear and says so in the event (kept_labels): only for the
# labels a policy may keep (the patient's sex), never for a direct identifier
_KEEPABLE = KEPT_BY_DEFAULT


def resolve_strategy(label: Label, settings: Settings) -> str:
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
    if chosen == "dp":
        chosen = "dp-laplace"
    allowed = ALLOWED.get(label.category, _OTHERS) | ({"keep"} if label in _KEEPABLE else set())
    if chosen not in allowed:
        raise ValueError(f"strategy {chosen!r} is not available for label {label.value}")
    if chosen in ("exponential", "geo") and label is not Label.CITY:
        chosen = "random"  # only cities have a table with coordinates and features
    return chosen
