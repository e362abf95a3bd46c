"""CoNLL concept corpora (token TAB BIO tag, a blank line between sentences) as texts and spans.

A sentence's text is its tokens joined by single spaces, so gold spans have character offsets
that a tagger reading the text can be scored against.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from deid.concepts import Concept


class ConllError(ValueError):
    """A malformed CoNLL file; the message names the line, never its content."""


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    concepts: tuple[Concept, ...]
    tokens: tuple[tuple[int, int], ...]  # character offsets of each token in ``text``


def read_conll(path: Path) -> list[Sentence]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise ConllError(f"{path}: not UTF-8 text") from exc
    sentences: list[Sentence] = []
    rows: list[tuple[str, str, int]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            if rows:
                sentences.append(_sentence(path, rows))
                rows = []
            continue
        parts = line.split("\t") if "\t" in line else line.split()
        if len(parts) < 2:
            raise ConllError(f"{path}:{n}: expected 'token<TAB>tag'")
        token, tag = parts[0], parts[-1]
        if tag != "O" and not (tag[:2] in ("B-", "I-") and len(tag) > 2):
            raise ConllError(f"{path}:{n}: tag is not BIO (O, B-TYPE or I-TYPE)")
        rows.append((token, tag, n))
    if rows:
        sentences.append(_sentence(path, rows))
    if not sentences:
        raise ConllError(f"{path}: no sentence found")
    return sentences


def _sentence(path: Path, rows: list[tuple[str, str, int]]) -> Sentence:
    pieces: list[str] = []
    offsets: list[tuple[int, int]] = []
    pos = 0
    for token, _, _ in rows:
        offsets.append((pos, pos + len(token)))
        pieces.append(token)
        pos += len(token) + 1
    concepts: list[Concept] = []
    cur: tuple[int, int, str] | None = None
    for (_token, tag, _n), (a, b) in zip(rows, offsets, strict=True):
        # an I- that does not continue an entity of its type starts one (conlleval's reading)
        if tag == "O" or tag.startswith("B-") or cur is None or cur[2] != tag[2:]:
            if cur is not None:
                concepts.append(Concept(cur[0], cur[1], cur[2]))
            cur = None if tag == "O" else (a, b, tag[2:])
        else:
            cur = (cur[0], b, cur[2])
    if cur is not None:
        concepts.append(Concept(cur[0], cur[1], cur[2]))
    return Sentence(" ".join(pieces), tuple(concepts), tuple(offsets))
