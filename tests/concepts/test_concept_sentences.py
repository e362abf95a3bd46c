"""The concept tagger reads a note sentence by sentence, the unit its head was trained on, and
gives offsets into the whole note."""

from __future__ import annotations

import numpy as np
import pytest

from deid.concepts.tagger import ConceptTagger, sentences


def test_sentences_cut_at_line_ends_and_sentence_ends_and_cover_every_character() -> None:
    text = "Tratada con omeprazol. Luego amoxicilina 1 g.\n\nDosis: 20 mg. de insulina? Sí.\n  "
    cuts = sentences(text)
    assert [text[a:b] for a, b in cuts] == ["Tratada con omeprazol.", "Luego amoxicilina 1 g.",
                                            "Dosis: 20 mg. de insulina?", "Sí."]
    covered = {i for a, b in cuts for i in range(a, b)}
    assert all(i in covered for i, c in enumerate(text) if not c.isspace())
    assert sentences("") == [] and sentences(" \n ") == []


class _DrugTokens(ConceptTagger):
    """The tagger's own sentence cutting, windows and decoding, with a forward pass that tags
    the subwords of one word as a drug (B on its first subword, I after)."""

    def __init__(self, tokenizer, word: str) -> None:  # type: ignore[no-untyped-def]
        from deid.concepts.model import BranchSpec
        from deid.lab.training.concepts import TAGS

        spec = BranchSpec(6, TAGS, False, 1)
        super().__init__(None, None, tokenizer, spec, version="test")
        self.ids = tokenizer(word, add_special_tokens=False)["input_ids"]
        self.b, self.i = TAGS.index("B-NORMALIZABLES"), TAGS.index("I-NORMALIZABLES")
        self.lengths: list[int] = []

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.zeros((*ids.shape, len(self.spec.tags)), dtype=np.float32)
        out[..., 0] = 1.0
        n = len(self.ids)
        for r in range(ids.shape[0]):
            self.lengths.append(int(mask[r].sum()))
            row = list(ids[r])
            for k in range(len(row) - n + 1):
                if row[k : k + n] == self.ids:
                    out[r, k : k + n, 0] = 0.0
                    out[r, k, self.b] = 1.0
                    out[r, k + 1 : k + n, self.i] = 1.0
        return out


@pytest.fixture(scope="module")
def tokenizer():  # type: ignore[no-untyped-def]
    from deid.ner.e5 import load_tokenizer

    return load_tokenizer()


def test_a_note_s_mentions_come_back_at_their_offsets_in_the_note(tokenizer) -> None:  # type: ignore[no-untyped-def]
    tagger = _DrugTokens(tokenizer, " omeprazol")
    notes = ["Paciente tratada con omeprazol.\nSe suspende el omeprazol. Mejoría.", "", "Sin fármacos."]
    found = tagger.tag(notes)
    assert [[notes[0][c.start : c.end] for c in f] for f in found] == [["omeprazol", "omeprazol"], [], []]
    assert [c.type for c in found[0]] == ["NORMALIZABLES", "NORMALIZABLES"]
    # four sentences read apart: four rows, none holding the whole first note
    whole = len(tokenizer(notes[0])["input_ids"])
    assert len(tagger.lengths) == 4 and max(tagger.lengths) < whole - 5


def test_a_corpus_sentence_is_read_whole_even_where_its_tokens_look_like_sentence_ends(tokenizer) -> None:  # type: ignore[no-untyped-def]
    tagger = _DrugTokens(tokenizer, " omeprazol")
    sentence = "amilasa : 1 . 485 U / l . Se inicia omeprazol ."  # CoNLL tokens joined by spaces
    assert len(sentences(sentence)) == 3  # the note cutter would read three pieces
    found = tagger.tag_sentences([sentence, " "])
    assert [[sentence[c.start : c.end] for c in f] for f in found] == [["omeprazol"], []]
    assert len(tagger.lengths) == 1  # one row: the sentence as the corpus gives it
