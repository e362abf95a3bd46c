"""Corpus readers onto ``Document`` with gold spans in the project's label set."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from deid.detection.convention import conform
from deid.lab.corpora.language import check_language, identify
from deid.lab.corpora.mapping import UnknownCorpusLabel, map_label
from deid.labels import Label
from deid.spans import Document, Span


class CorpusFormatError(ValueError):
    """The input is not a corpus in the format it claims (or any known format)."""


def read_brat_dir(path: Path, language: str = "es", corpus: str = "meddocan") -> list[Document]:
    """BRAT standoff: ``NAME.txt`` + ``NAME.ann`` pairs (``T1<TAB>LABEL start end<TAB>surface``)."""
    root = path / "brat" if (path / "brat").is_dir() else path
    txts = sorted(root.glob("*.txt"))
    if not txts:
        raise CorpusFormatError(f"{path}: no BRAT .txt files found")
    docs: list[Document] = []
    for txt in txts:
        ann = txt.with_suffix(".ann")
        text = txt.read_text(encoding="utf-8")
        spans: list[Span] = []
        if ann.exists():
            for lineno, line in enumerate(ann.read_text(encoding="utf-8").splitlines(), 1):
                if not line.startswith("T"):
                    continue  # relations, notes, attributes carry no span
                parts = line.split("\t")
                fields = parts[1].split() if len(parts) >= 2 else []
                if len(fields) < 3 or ";" in parts[1]:
                    if ";" in (parts[1] if len(parts) >= 2 else ""):
                        continue  # discontinuous span: not used by these corpora's PHI
                    raise CorpusFormatError(f"{ann}:{lineno}: malformed BRAT entity line")
                try:
                    start, end = int(fields[1]), int(fields[2])
                except ValueError as exc:
                    raise CorpusFormatError(f"{ann}:{lineno}: non-integer offsets") from exc
                if not 0 <= start < end <= len(text):
                    raise CorpusFormatError(f"{ann}:{lineno}: offsets outside the text")
                label = _map(corpus, fields[0], ann, lineno)
                if label is not None:
                    spans.append(Span(start, end, label, gold_source(fields[0])))
        docs.append(Document(txt.stem, text, language, tuple(sorted(spans))))
    return docs


def gold_source(corpus_label: str) -> str:
    """The ``source`` of a gold span: the corpus's own label, kept for the official scores."""
    return f"gold:{corpus_label}"


def corpus_label(span: Span) -> str | None:
    """The corpus's own label of a gold span read by these readers, None for any other span."""
    return span.source[5:] if span.source.startswith("gold:") else None


def read_eds_jsonl(path: Path, language: str = "fr", *, join_names: bool = True) -> list[Document]:
    """eds-pseudo jsonl: ``{"note_id", "note_text", "entities": [{"start","end","label"}]}``."""
    docs: list[Document] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                text = rec["note_text"]
                ents = rec.get("entities", [])
                raw = [(int(e["start"]), int(e["end"]), str(e["label"])) for e in ents]
                doc_id = str(rec.get("note_id", f"{path.stem}-{lineno}"))
            except (ValueError, KeyError, TypeError) as exc:
                raise CorpusFormatError(f"{path}:{lineno}: not an eds-pseudo record") from exc
            for start, end, _ in raw:
                if not 0 <= start < end <= len(text):
                    raise CorpusFormatError(f"{path}:{lineno}: offsets outside the text")
            docs.append(Document(doc_id, text, language, _eds_spans(text, raw, path, lineno, join_names)))
    if not docs:
        raise CorpusFormatError(f"{path}: empty corpus file")
    return docs


_TEMPLATE_MARK = re.compile(r"\[([^\[\]]+?)\]\(([A-Z_]+)\)")


def read_eds_templates(path: Path, language: str = "fr", *, join_names: bool = True) -> list[Document]:
    """eds-pseudo ``templates.txt``: blocks separated by blank lines, ``[TEXT](LABEL)`` markup."""
    content = path.read_text(encoding="utf-8")
    docs: list[Document] = []
    for n, block in enumerate(re.split(r"\n\s*\n", content)):
        if not block.strip():
            continue
        out: list[str] = []
        raw: list[tuple[int, int, str]] = []
        pos = 0
        length = 0
        for m in _TEMPLATE_MARK.finditer(block):
            out.append(block[pos : m.start()])
            length += m.start() - pos
            surface = m.group(1)
            raw.append((length, length + len(surface), m.group(2)))
            out.append(surface)
            length += len(surface)
            pos = m.end()
        out.append(block[pos:])
        text = "".join(out)
        docs.append(Document(f"template-{n}", text, language, _eds_spans(text, raw, path, 0, join_names)))
    return docs


def read_echr_tsv(path: Path, language: str) -> list[Document]:
    """ECHR CoNLL-style file: ``token TAG`` per line, blank line between sentences.

    Each sentence becomes one document whose text is its tokens joined by single spaces. The
    language is the caller's to give (``read_corpus`` reads it from the text): the file name
    says nothing reliable.
    """
    lang = language
    docs: list[Document] = []
    tokens: list[tuple[str, str]] = []

    def flush() -> None:
        if not tokens:
            return
        text_parts: list[str] = []
        spans: list[Span] = []
        offset = 0
        cur: tuple[int, int, str] | None = None
        for tok, tag in tokens:
            start = offset
            end = start + len(tok)
            text_parts.append(tok)
            offset = end + 1
            breaks = tag == "O" or tag.startswith("B-") or (cur is not None and tag[2:] != cur[2])
            if breaks and cur is not None:
                spans.extend(_echr_span(cur, path))
                cur = None
            if tag != "O":
                cur = (start, end, tag[2:]) if cur is None else (cur[0], end, cur[2])
        if cur is not None:
            spans.extend(_echr_span(cur, path))
        docs.append(Document(f"{path.stem}-{len(docs)}", " ".join(text_parts), lang, tuple(spans)))
        tokens.clear()

    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                flush()
                continue
            tok, _, tag = line.rpartition(" ")
            if not tok or not (tag == "O" or re.fullmatch(r"[BI]-[A-Z_]+", tag)):
                raise CorpusFormatError(f"{path}:{lineno}: expected 'token TAG' (BIO)")
            tokens.append((tok, tag))
    flush()
    if not docs:
        raise CorpusFormatError(f"{path}: empty corpus file")
    return docs


def read_realistic(path: Path, split: str | None = None, language: str | None = None) -> list[Document]:
    """The realistic corpus (``corpora/realistic/notes.jsonl``, module ``deid.lab.corpora.realistic``):
    each note in its own declared language, its gold mentions untouched (their labels are the
    project's own). ``split`` and ``language`` select notes."""
    from deid.lab.corpora.realistic import SPLITS, read_jsonl

    if split is not None and split not in SPLITS:
        raise CorpusFormatError(f"unknown split {split!r} (expected one of {', '.join(SPLITS)})")
    try:
        notes = read_jsonl(path)
    except (ValueError, KeyError, TypeError) as exc:
        raise CorpusFormatError(f"{path}: not a realistic corpus file ({type(exc).__name__})") from None
    docs: list[Document] = []
    for note in notes:
        if (split is not None and note.split != split) or (language is not None and note.lang != language):
            continue
        spans = tuple(sorted(Span(m.start, m.end, Label(m.label), gold_source(m.label))
                             for m in note.mentions))
        docs.append(Document(note.note_id, note.text, note.lang, spans))
    if not docs:
        raise CorpusFormatError(f"{path}: no note of split {split or 'any'} in language {language or 'any'}")
    return docs


def detect_format(path: Path) -> str:
    """Guess the format of ``path``: ``brat``, ``eds-jsonl``, ``eds-templates``, ``echr-tsv`` or
    ``realistic``."""
    if not path.exists():
        raise CorpusFormatError(f"{path}: no such file or directory")
    if path.is_dir():
        root = path / "brat" if (path / "brat").is_dir() else path
        if any(root.glob("*.ann")):
            return "brat"
        raise CorpusFormatError(f"{path}: directory holds no BRAT .ann files")
    if path.suffix == ".jsonl":
        with path.open("rb") as fh:  # bytes: an undecodable file is the reader's error to name
            first = fh.readline()
        return "realistic" if b'"people"' in first and b'"hard_cases"' in first else "eds-jsonl"
    if path.suffix == ".tsv":
        return "echr-tsv"
    if path.suffix == ".txt" and _TEMPLATE_MARK.search(path.read_text(encoding="utf-8")[:20000]):
        return "eds-templates"
    raise CorpusFormatError(f"{path}: unknown corpus format (expected BRAT dir, .jsonl or .tsv)")


# The language each format's corpus is documented in (``shared/README.md``); ECHR has two.
FORMAT_LANGUAGE: dict[str, str | None] = {
    "brat": "es", "eds-jsonl": "fr", "eds-templates": "fr", "echr-tsv": None, "realistic": None,
}


def read_corpus(
    path: Path, fmt: str | None = None, language: str | None = None, *, convention: bool = True,
    split: str | None = None,
) -> list[Document]:
    """Read any supported corpus; ``fmt`` defaults to ``detect_format(path)``.

    ``language``: given by the caller, else the format's documented language, else (ECHR, in
    French and Spanish) the one its text reads as; in every case checked against the text
    (``deid.lab.corpora.language``), and a corpus whose text contradicts it is refused.

    ``convention`` (the default, what training reads): gold spans put under the project's span
    convention (``deid.detection.convention.conform``: titles and articles trimmed, "today" dates and
    punctuation-only spans dropped, whole French addresses split, eds-pseudo first and last
    names joined). ``convention=False``: the corpus's own gold, every span untouched (what
    ``deid eval`` scores by default).
    """
    fmt = fmt or detect_format(path)
    if fmt == "realistic":
        # every note declares its own language; ``language`` and ``split`` select notes
        docs = read_realistic(path, split, language)
        return [replace(d, spans=tuple(conform(d.spans, d.text))) for d in docs] if convention else docs
    if split is not None:
        raise CorpusFormatError(f"{path}: only the realistic corpus has splits to select (format {fmt})")
    lang = language or FORMAT_LANGUAGE.get(fmt) or "und"
    readers = {
        "brat": lambda: read_brat_dir(path, lang),
        "eds-jsonl": lambda: read_eds_jsonl(path, lang, join_names=convention),
        "eds-templates": lambda: read_eds_templates(path, lang, join_names=convention),
        "echr-tsv": lambda: read_echr_tsv(path, lang),
    }
    if fmt not in readers:
        raise CorpusFormatError(f"unknown corpus format {fmt!r}")
    try:
        docs = readers[fmt]()
    except UnicodeDecodeError as exc:
        raise CorpusFormatError(f"{path}: not UTF-8 text") from exc
    docs = _with_language(path, docs, lang, given=language is not None)
    if not convention:
        return docs
    # one span convention for every corpus in training (deid.detection.convention); only eds-pseudo has
    # whole French addresses to split
    addresses = fmt.startswith("eds")
    return [replace(d, spans=tuple(conform(d.spans, d.text, split_addresses=addresses))) for d in docs]


def _with_language(path: Path, docs: list[Document], lang: str, *, given: bool) -> list[Document]:
    """``docs`` in a language their text does not contradict (module ``deid.lab.corpora.language``)."""
    texts = [d.text for d in docs]
    if lang == "und":
        found = identify(texts)
        if found is None:
            raise CorpusFormatError(f"{path}: cannot tell the language of the text; give it (--lang)")
        return [replace(d, language=found) for d in docs]
    other = check_language(texts, lang)
    if other is not None:
        origin = "given" if given else "the format's"
        raise CorpusFormatError(f"{path}: the text reads as {other!r}, not {lang!r} ({origin} language)")
    return docs


def iter_mentions(doc: Document) -> Iterator[tuple[Span, str]]:
    """Yield each gold span with its surface text (for training and inspection only)."""
    for span in doc.spans:
        yield span, doc.text[span.start : span.end]


def _map(corpus: str, label: str, path: Path, lineno: int) -> Label | None:
    try:
        return map_label(corpus, label)
    except UnknownCorpusLabel as exc:
        raise CorpusFormatError(f"{path}:{lineno}: {exc}") from exc


def _eds_spans(
    text: str, raw: list[tuple[int, int, str]], path: Path, lineno: int, join_names: bool = True
) -> tuple[Span, ...]:
    """Map eds-pseudo entities; with ``join_names``, join PRENOM/NOM neighbours separated only by
    spaces (the project's convention: a full name is one mention)."""
    raw = sorted(raw)
    merged: list[tuple[int, int, str]] = []
    for start, end, lab in raw:
        if merged:
            pstart, pend, plab = merged[-1]
            between = text[pend:start]
            adjacent = pend <= start and between.strip() == "" and len(between) <= 2
            if join_names and {plab, lab} <= {"NOM", "PRENOM"} and adjacent:
                merged[-1] = (pstart, end, "NOM")
                continue
        merged.append((start, end, lab))
    spans = []
    for start, end, lab in merged:
        label = _map("eds-pseudo", lab, path, lineno)
        if label is not None:
            spans.append(Span(start, end, label, gold_source(lab)))
    return tuple(spans)


def _echr_span(cur: tuple[int, int, str], path: Path) -> list[Span]:
    label = _map("echr", cur[2], path, 0)
    return [] if label is None else [Span(cur[0], cur[1], label, gold_source(cur[2]))]
