"""``pairs.Decoys``: where a fake pair's replacement unit comes from (``--decoys``)."""

from __future__ import annotations

import numpy as np
import pytest

from deid.lab.share.neighbours import NeighbourIndex, nearest_rows
from deid.lab.share.pairs import Decoys, fake_ids, make_batch, neighbour_targets, with_phi
from deid.lab.share.units import Segment, segment_corpus
from deid.labels import BIO_TAGS

from .toy import toy_corpus, toy_units


@pytest.fixture(scope="module")
def toy() -> tuple[list[Segment], NeighbourIndex]:
    units, names = toy_units()
    segments = segment_corpus(units, toy_corpus(names, 80, seed=1))
    phi = {int(i) for s in segments for i in s.ids[s.phi]}
    return segments, nearest_rows(units.embeddings, phi, 20, units.special_ids())


def _label_sets(segments: list[Segment]) -> dict[str, set[int]]:
    # counted here independently of Decoys: the PHI ids seen under each label
    out: dict[str, set[int]] = {}
    for s in segments:
        for k in np.flatnonzero(s.phi).tolist():
            out.setdefault(BIO_TAGS[int(s.tags[k])][2:], set()).add(int(s.ids[k]))
    return out


def _fakes(
    segments: list[Segment], index: NeighbourIndex, decoys: Decoys, seed: int
) -> list[tuple[int, int, int]]:
    """(unit, tag, decoy) of every fake pair over the PHI segments, drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    chunk = with_phi(segments, index)
    batch = make_batch(chunk)
    fake, where = fake_ids(chunk, batch, index, rng, decoys)
    return [
        (int(batch.ids[r, k]), int(s.tags[k]), int(fake[r, k]))
        for r, (s, k) in enumerate(zip(chunk, where.tolist(), strict=True))
    ]


def test_label_decoy_is_another_unit_of_the_same_label_and_seeded(
    toy: tuple[list[Segment], NeighbourIndex],
) -> None:
    segments, index = toy
    labels = _label_sets(segments)
    assert len(labels) == 3  # the toy corpus's PATIENT, STAFF and RELATIVE
    decoys = Decoys(index, segments, "label")
    drawn = _fakes(segments, index, decoys, seed=4)
    assert len(drawn) > 100
    for unit, tag, decoy in drawn:
        assert decoy in labels[BIO_TAGS[tag][2:]] and decoy != unit
    # the point of the mode: decoys reach outside the unit's own N neighbours
    outside = sum(decoy not in set(index.neighbours[index.row[unit]].tolist()) for unit, _, decoy in drawn)
    assert outside > len(drawn) // 2
    assert _fakes(segments, index, decoys, seed=4) == drawn  # same seed, same decoys
    assert _fakes(segments, index, decoys, seed=5) != drawn


def test_mixed_decoys_draw_from_both_the_neighbours_and_the_label(
    toy: tuple[list[Segment], NeighbourIndex],
) -> None:
    segments, index = toy
    labels = _label_sets(segments)
    rng = np.random.default_rng(0)
    decoys = Decoys(index, segments, "mixed")
    from_label = from_neighbours = 0
    for s in with_phi(segments, index)[:200]:
        k = int(np.flatnonzero(s.phi)[0])
        unit, tag = int(s.ids[k]), int(s.tags[k])
        decoy = decoys.draw(unit, tag, rng)
        in_label = decoy in labels[BIO_TAGS[tag][2:]]
        in_neighbours = decoy in set(index.neighbours[index.row[unit]].tolist())
        assert in_label or in_neighbours
        from_label += in_label and not in_neighbours
        from_neighbours += in_neighbours and not in_label
    assert from_label > 20 and from_neighbours > 20


def test_neighbours_mode_draws_exactly_what_the_index_draws(
    toy: tuple[list[Segment], NeighbourIndex],
) -> None:
    # the default keeps the earlier runs' draws (same seeds, same fake pairs and recovery targets)
    segments, index = toy
    chunk = with_phi(segments, index)[:32]
    batch = make_batch(chunk)
    plain = neighbour_targets(chunk, batch, index, np.random.default_rng(3))
    mode = neighbour_targets(chunk, batch, index, np.random.default_rng(3), Decoys(index, segments))
    assert all(bool((a == b).all()) for a, b in zip(plain, mode, strict=True))


def test_a_label_with_one_unit_falls_back_to_the_neighbours(
    toy: tuple[list[Segment], NeighbourIndex],
) -> None:
    segments, index = toy
    s = next(s for s in with_phi(segments, index))
    k = int(np.flatnonzero(s.phi)[0])
    alone = Segment(s.ids[k : k + 1], s.tags[k : k + 1], s.first[k : k + 1])
    decoys = Decoys(index, [alone], "label")
    unit = int(s.ids[k])
    rng = np.random.default_rng(0)
    assert all(decoys.draw(unit, int(s.tags[k]), rng) in index.neighbours[index.row[unit]] for _ in range(20))


def test_an_unknown_decoy_mode_is_refused(toy: tuple[list[Segment], NeighbourIndex]) -> None:
    segments, index = toy
    with pytest.raises(ValueError, match="decoy mode"):
        Decoys(index, segments, "random")  # type: ignore[arg-type]
