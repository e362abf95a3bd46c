"""One person, one name in every form (issue 29): the mentions a reader links are rendered as one
person, and the person keeps the gender the note gives them. Each case is a cause of a split
identity or a gender flip found on the realistic corpus's train split or the coherence bench."""

from __future__ import annotations

import random
import re
from datetime import date

import pytest
from substitution_testkit import SECRET, build

from deid.events import ModelInfo, RawNote
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution import Substituter
from deid.surrogates import identity

L = Label


async def run(notes: list[tuple[str, list[Span]]], lang: str, seed: int) -> list[list[str]]:
    """The replacement text of every span, note by note (one patient, one store)."""
    sub = Substituter(InMemoryStore(), KeyHasher(SECRET), Settings(), random.Random(seed))
    raws = [
        RawNote(event_id=f"e{seed}-{i}", patient_id="p1", language=lang,  # type: ignore[arg-type]
                document_date=date(2021, 3, 5), text=t)
        for i, (t, _) in enumerate(notes)
    ]
    outs = await sub.substitute(raws, [s for _, s in notes], ModelInfo(name="gold", version="0"))
    return [[o.text[s.start : s.end] for s in o.spans] for o in outs]


def local_part(email: str) -> str:
    return email.split("@")[0]


@pytest.mark.parametrize("seed", range(8))
async def test_a_woman_doctor_after_le_dr_keeps_a_womans_given_name(seed: int) -> None:
    note = build(["Patiente adressée par le Dr ", ("Nadège BERTRAND", L.STAFF), ". Vue par le Dr ",
                  ("Nadège Martin", L.STAFF), "."])  # fmt: skip
    [[cued, uncued]] = await run([note], "fr", seed)
    assert identity.gender_of_given(cued.split()[0], "fr") == "female"
    assert identity.gender_of_given(uncued.split()[0], "fr") == "female"  # "Nadège" not read as a surname


@pytest.mark.parametrize("seed", range(8))
async def test_a_given_name_no_list_gives_a_gender_is_one_name_in_the_note(seed: int) -> None:
    note = build(["Danny in side room, support worker ", ("Kerry", L.STAFF), " with him. Support workers: ",
                  ("Kerry", L.STAFF), " and ", ("Jo", L.STAFF), " are covering."])  # fmt: skip
    [[first, second, _]] = await run([note], "en", seed)
    assert first == second


@pytest.mark.parametrize("seed", range(8))
async def test_a_hyphenated_surname_after_the_doctors_initial_is_her_surname(seed: int) -> None:
    note = build(["Dr ", ("Sylvie LAMBERT-HOUDAYER", L.STAFF), "\nGynécologie\n...\nBien à vous,\nDr S. ",
                  ("LAMBERT-HOUDAYER", L.STAFF)])  # fmt: skip
    [[full, alone]] = await run([note], "fr", seed)
    assert full.split(" ", 1)[1] == alone


@pytest.mark.parametrize("seed", range(8))
async def test_an_email_after_a_name_is_that_persons_when_another_name_has_its_initial(seed: int) -> None:
    first = build(["Paciente ", ("Ibán Gras Ibáñez", L.PATIENT), ", valorado por el Dr. ",
                   ("Cándido Cañellas", L.STAFF), ". Acompañado por su hija ", ("Carmelita", L.RELATIVE),
                   ", ", ("cgras@yahoo.com", L.EMAIL), "."])  # fmt: skip
    later = build(["Acompañado por su hija ", ("Carmelita", L.RELATIVE), " (", ("GRAS", L.RELATIVE), ", ",
                   ("CARMELITA", L.RELATIVE), ")."])  # fmt: skip
    [[_, _, daughter, email], [daughter_again, _, _]] = await run([first, later], "es", seed)
    assert local_part(email)[0] == daughter[0].lower()
    assert daughter_again == daughter


@pytest.mark.parametrize("seed", range(8))
async def test_an_email_after_a_name_is_that_persons_when_a_relative_shares_initial_and_surname(
    seed: int,
) -> None:
    first = build([("Jay Jacobson", L.PATIENT), ", 70. Came with their son ", ("Johnathan", L.RELATIVE), "."])
    later = build([("Jay Jacobson", L.PATIENT), ". Came with their son ", ("Johnathan Jacobson", L.RELATIVE),
                   " (", ("JACOBSON", L.RELATIVE), ", ", ("JOHNATHAN", L.RELATIVE), "), ",
                   ("jjacobson@yahoo.com", L.EMAIL), "."])  # fmt: skip
    [_, [_, son, _, _, email]] = await run([first, later], "en", seed)
    assert local_part(email)[0] == son[0].lower()


async def test_an_email_far_from_any_name_is_not_given_to_the_one_person_with_its_initial() -> None:
    """A secretary's "m.guillou@..." in a letterhead is no e-mail of the patient Maryvonne Le Goff:
    the note gives her another surname."""
    hits = 0
    for seed in range(10):
        note = build(["CHU\nContact secrétariat : ", ("m.guillou@chu-nantes.fr", L.EMAIL), "\n\nPatiente : ",
                      ("LE GOFF Maryvonne", L.PATIENT), ", vue ce jour."])  # fmt: skip
        [[email, patient]] = await run([note], "fr", seed)
        hits += local_part(email)[0] == patient.split()[-1][0].lower()
    assert hits < 5  # drawn on its own: her initial only by chance


@pytest.mark.parametrize("seed", range(4))
async def test_an_email_far_from_the_name_still_reads_the_one_person_with_its_initial(seed: int) -> None:
    note = build(["Dr ", ("Thomas NGUYEN-VAN", L.STAFF), "\nMédecine générale\nTél. 02 40 75 31 88\n",
                  ("t.nguyenvan@msp.fr", L.EMAIL), "\n"])  # fmt: skip
    [[doctor, email]] = await run([note], "fr", seed)
    assert re.match(rf"{doctor[0].lower()}\.", email)


@pytest.mark.parametrize("seed", range(8))
async def test_titles_that_disagree_leave_the_person_the_gender_of_her_given_name(seed: int) -> None:
    note = build(["Patient : M. ", ("ROUX Nadège", L.PATIENT), " (sic). Mme ", ("ROUX Nadège", L.PATIENT),
                  " est revue. ", ("Nadège", L.PATIENT), " va mieux."])  # fmt: skip
    [[_, titled, bare]] = await run([note], "fr", seed)
    assert bare == titled.split()[1]
    assert identity.gender_of_given(bare, "fr") == "female"
