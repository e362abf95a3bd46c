"""The operator interface and the table that routes each mention to one operator.

Detection finds spans; operators replace them (Presidio's split between recognizers and
operators). Each operator declares what it substitutes (``handles``: the (label, strategy) pairs it
runs, a strategy being the choice for one label; the profile is the whole choice, laid over the
settings by ``deid.substitution.profiles``) and takes part in the four steps the engine runs per
note:

1. ``plan``: read each mention, set its memo key(s), say whether its first release is costed;
2. ``draw``: surrogates for the values the memo does not hold yet, with the epsilon the
   engine's accounting gave each new costed value (``eps``: key -> epsilon, per ``item.unit``);
3. (the engine commits the draws of every operator of the note in one atomic store call)
4. ``render``: the text of each mention from the memo, in the mention's own shape.

Operators are registered by name (spaCy's registry idea) and hold no per-note state: what a note's
operators share lives in ``NoteContext.shared``, what a patient's notes share lives in the store.
``OperatorTable`` is built from the registered operators' ``handles`` alone: a pair no operator
claims is a strategy the label cannot take, and two operators claiming one pair are refused.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Mapping, Sequence

from deid.labels import Category, Label
from deid.store.base import CommitResult, PatientStore, Release
from deid.substitution.items import Item, NoteContext

# One thing an operator substitutes: a label under one strategy.
Claim = tuple[Label, str]


def labels_of(*categories: Category) -> frozenset[Label]:
    """The fine labels of ``categories``."""
    return frozenset(lab for lab in Label if lab.category in categories)


def claims(labels: Iterable[Label], strategies: Iterable[str]) -> frozenset[Claim]:
    """Every (label, strategy) pair of ``labels`` and ``strategies``: an operator's ``handles``."""
    chosen = tuple(strategies)
    return frozenset((lab, strategy) for lab in labels for strategy in chosen)


class Operator(abc.ABC):
    name: str = ""
    # the (label, strategy) pairs this operator runs: the table routes on them alone
    handles: frozenset[Claim] = frozenset()

    async def prepare(self, store: PatientStore, ctxs: Sequence[NoteContext],
                      items: Sequence[Sequence[Item]]) -> None:
        """Read per-patient state once per batch (``items``: this operator's, note by note),
        after the memo lookup; the state goes into each context's ``shared``."""
        return None

    @abc.abstractmethod
    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        """Set keys (and ``costed``/``unit``) of ``items``; may turn an item into a placeholder."""

    def extra_lookups(self, ctx: NoteContext, items: Sequence[Item]) -> set[str]:
        """Memo keys this operator reads besides the items' own (per-patient records)."""
        return set()

    def new_costed(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str]) -> dict[str, Item]:
        """The distinct costed values of the note that the memo does not hold: what must be paid."""
        return {it.key: it for it in items if it.costed and it.key and it.key not in memo}

    @abc.abstractmethod
    def draw(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str],
             eps: Mapping[str, float], cost: Mapping[str, int]) -> list[Release]:
        """New releases for values absent from ``memo`` (free ones with cost 0)."""

    def committed(self, ctx: NoteContext, result: CommitResult) -> None:  # noqa: B027 - optional hook
        """Learn what the store kept of this note's draws (a racer's surrogate wins)."""

    @abc.abstractmethod
    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str] | None:
        """(surrogate text, strategy) of ``item``, or None when its value was refused (over the cap)."""


_REGISTRY: dict[str, Callable[[], Operator]] = {}


def register(name: str) -> Callable[[Callable[[], Operator]], Callable[[], Operator]]:
    def deco(factory: Callable[[], Operator]) -> Callable[[], Operator]:
        _REGISTRY[name] = factory
        return factory
    return deco


def _claims_of(op: Operator) -> frozenset[Claim]:
    if not all(isinstance(h, tuple) for h in op.handles):
        raise TypeError(f"operator {op.name!r} must declare (label, strategy) pairs, not strategy names")
    return op.handles


class OperatorTable:
    """Label -> strategy -> operator, from the operators' own ``handles``; two operators that
    claim one (label, strategy) pair are refused when the table is built, not on the first note."""

    def __init__(self, operators: Iterable[Operator]) -> None:
        self.by_name: dict[str, Operator] = {}
        self._routes: dict[Label, dict[str, Operator]] = {lab: {} for lab in Label}
        for op in operators:
            if op.name in self.by_name:
                raise ValueError(f"two operators named {op.name!r}")
            self.by_name[op.name] = op
            for label, strategy in sorted(_claims_of(op)):
                other = self._routes[label].setdefault(strategy, op)
                if other is not op:
                    raise ValueError(f"operators {other.name!r} and {op.name!r} both claim strategy "
                                     f"{strategy!r} for label {label.value}")

    @classmethod
    def of_registered(cls) -> OperatorTable:
        """One instance of every registered operator (the modules that define them imported)."""
        return cls(make() for make in _REGISTRY.values())

    def strategies(self, label: Label) -> frozenset[str]:
        """The strategies some operator runs for ``label``."""
        return frozenset(self._routes[label])

    def operator(self, label: Label, strategy: str) -> Operator:
        """The operator that runs ``strategy`` for ``label``."""
        got = self._routes[label].get(strategy)
        if got is None:
            raise ValueError(f"strategy {strategy!r} is not available for label {label.value}")
        return got
