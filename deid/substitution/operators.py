"""The operator interface and its registry: how one family of mentions is substituted.

Detection finds spans; operators replace them (Presidio's split between recognizers and
operators). Each operator owns a family of strategies (``handles``) and takes part in the four
steps the engine runs per note:

1. ``plan``: read each mention, set its memo key(s), say whether its first release is costed;
2. ``draw``: surrogates for the values the memo does not hold yet, with the epsilon the
   engine's accounting gave each new costed value (``eps``: key -> epsilon, per ``item.unit``);
3. (the engine commits the draws of every operator of the note in one atomic store call)
4. ``render``: the text of each mention from the memo, in the mention's own shape.

Operators are registered by name (spaCy's registry idea) and hold no per-note state: what a note's
operators share lives in ``NoteContext.shared``, what a patient's notes share lives in the store.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence

from deid.labels import Category
from deid.store.base import CommitResult, PatientStore, Release
from deid.substitution.items import Item, NoteContext


class Operator(abc.ABC):
    name: str = ""
    handles: frozenset[str] = frozenset()  # strategy names this operator runs

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


def registered() -> dict[str, Callable[[], Operator]]:
    return dict(_REGISTRY)


def family_of(category: Category, strategy: str) -> str:
    """Which registered operator runs ``strategy`` for a mention of ``category``."""
    if strategy == "placeholder":
        return "placeholder"
    if strategy == "keep":
        return "keep"
    if strategy == "neighbour":
        return "neighbour"
    if category in (Category.DATE, Category.AGE):
        return "temporal"
    if category is Category.PER:
        return "persons"
    if category in (Category.LOC, Category.ORG):
        return "places"
    return "formats"
