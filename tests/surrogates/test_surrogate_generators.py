import random
import re
from collections import Counter

import pytest

from deid.surrogates import formats, names, places


@pytest.fixture
def rng():
    return random.Random(11)


def _nir_ok(s: str) -> bool:
    d = re.sub(r"\s", "", s)
    return len(d) == 15 and int(d[13:]) == 97 - int(d[:13]) % 97


def test_generated_nir_keeps_grouping_and_has_a_valid_key(rng):
    for _ in range(200):
        out = formats.identifier(rng, "1 85 05 78 006 084 36")
        assert re.fullmatch(r"\d \d\d \d\d \d\d \d{3} \d{3} \d\d", out)
        assert _nir_ok(out)


def test_generated_dni_and_nie_have_the_right_control_letter(rng):
    letters = "TRWAGMYFPDXBNJZSQVHLCKE"
    for _ in range(200):
        dni = formats.identifier(rng, "12345678Z")
        assert re.fullmatch(r"\d{8}[A-Z]", dni) and letters[int(dni[:8]) % 23] == dni[8]
        nie = formats.identifier(rng, "X1234567L")
        num = int(str("XYZ".index(nie[0])) + nie[1:8])
        assert letters[num % 23] == nie[8]


def test_generated_iban_passes_mod_97_and_keeps_country_and_grouping(rng):
    for original in ("FR76 3000 6000 0112 3456 7890 189", "ES91 2100 0418 4502 0005 1332"):
        for _ in range(100):
            out = formats.identifier(rng, original)
            assert out[:2] == original[:2]
            assert [len(g) for g in out.split()] == [len(g) for g in original.split()]
            assert formats.iban_valid(out)


def test_luhn_valid_numbers_stay_luhn_valid_and_other_ids_keep_their_shape(rng):
    rpps = "10101010105"
    assert formats.luhn_valid(rpps)
    assert all(formats.luhn_valid(formats.identifier(rng, rpps)) for _ in range(100))
    out = formats.identifier(rng, "AB-1234/x")
    assert re.fullmatch(r"[A-Z]{2}-\d{4}/[a-z]", out) and out != "AB-1234/x"


def test_phone_keeps_country_code_trunk_prefix_kind_and_grouping(rng):
    original = "+33 6 12 34 56 78"
    sig = formats.phone_digits(rng, original)
    out = formats.render_phone(original, sig)
    assert out.startswith("+33 6 ") and re.fullmatch(r"\+33 6 \d\d \d\d \d\d \d\d", out)
    assert formats.render_phone("06.12.34.56.78", sig) == "0" + sig[0] + "." + ".".join(
        sig[i:i + 2] for i in range(1, 9, 2))


def test_email_url_and_ip_are_well_formed_and_new(rng):
    e = formats.email(rng, "jean.dupont@chu-dijon.fr", {"jean": "Paul", "dupont": "Martin"}.__getitem__)
    assert re.fullmatch(r"paul\.martin@[a-z]+-[a-z]+\.fr", e)
    # a public mail service's domain is kept; digits are drawn, separators kept
    e = formats.email(rng, "Dupont_J42@gmail.com", {"Dupont": "Lefèvre"}.__getitem__)
    assert re.fullmatch(r"lefevre_[a-z]\d\d@gmail\.com", e)
    u = formats.url(rng, "https://www.chu-dijon.fr/services")
    assert u.startswith("https://www.") and "chu-dijon" not in u
    ip = formats.ip(rng, "192.168.1.12")
    assert all(0 < int(x) < 255 for x in ip.split("."))


def test_postcode_follows_the_surrogate_city_when_known(rng):
    assert formats.postcode(rng, "21000", "25000") == "25000"
    assert re.fullmatch(r"\d{5}", formats.postcode(rng, "21000"))


def test_name_split_keeps_titles_initials_and_order():
    assert names.split_name("Mme Jeanne DUPONT") == names.NameParts("Mme", "Jeanne", "DUPONT")
    assert names.split_name("DUPONT Jeanne") == names.NameParts("", "Jeanne", "DUPONT", True)
    assert names.split_name("Durand") == names.NameParts("", "", "Durand")
    assert names.split_name("J. Martin") == names.NameParts("", "J.", "Martin")


def test_rendered_names_keep_case_style_initials_and_order():
    assert names.render_name(names.split_name("DUPONT"), "", "Martin") == "MARTIN"
    assert names.render_name(names.split_name("Dupont"), "", "Martin") == "Martin"
    assert names.render_name(names.split_name("DUPONT Jeanne"), "Claire", "Martin") == "MARTIN Claire"
    assert names.render_name(names.split_name("Dr J. Dupont"), "Claire", "Martin") == "Dr C. Martin"


def test_first_names_keep_a_known_gender(rng):
    lists = names.name_lists()
    assert names.gender_of("Jeanne") == "female" and names.gender_of("Pierre") == "male"
    for lang in ("fr", "es", "en"):
        assert all(names.draw_first(rng, lang, "female") in lists[lang]["female"] for _ in range(50))


def test_no_drawn_name_is_one_of_the_names_to_avoid(rng):
    lists = names.name_lists()["fr"]
    common = [n for n in lists["last"][:40]] + [n for n in lists["male"][:40]]
    avoid = names.name_words([" ".join(common), "Jean-Pierre DUPONT"])
    assert {"dupont", "jean", "pierre"} <= avoid
    lasts = {names.draw_last(rng, "fr", "DUPONT", avoid) for _ in range(500)}
    firsts = {names.draw_first(rng, "fr", "male", avoid) for _ in range(500)}
    drawn = {names.fold(part) for n in lasts | firsts for part in n.split("-")}
    assert not drawn & avoid
    assert len(lasts) > 200 and len(firsts) > 20  # still a wide choice


def test_a_note_naming_the_whole_pool_still_gets_surrogates(rng):
    lists = names.name_lists()["fr"]
    everyone = names.name_words(lists["last"] + lists["male"])
    lasts = {names.draw_last(rng, "fr", "DUPONT", everyone) for _ in range(2000)}
    assert lasts <= set(lists["last"]) and "Dupont" not in lasts  # never the mention's own name
    assert names.draw_first(rng, "fr", "male", everyone) in lists["male"]
    nearly = names.name_words(lists["last"][1:])  # one name left: that one, whatever the draws
    assert {names.draw_last(rng, "fr", "", nearly) for _ in range(20)} == {lists["last"][0]}


def test_paper_example_dijon_candidates_are_the_whole_table_and_frequencies_follow_the_weights():
    """Dijon (population, cancer, stroke): the candidates are the whole BFC table, fixed before
    the true place is seen; draw frequencies, binned by weight, follow exp(eps·(1-d)/2)."""
    from scipy import stats

    from deid.privacy import exponential_weights

    table = places.bfc_table()
    dijon = table.find("DIJON")
    assert dijon is not None
    cands = table.candidates(dijon, 100.0, 10)
    assert cands == table.places and "Besancon" in {p.name for p in cands}
    rng = random.Random(12)
    n = 600
    counts = Counter(table.exponential(rng, dijon, 5.0, 100.0, 10).name for _ in range(n))
    probs = exponential_weights([1 - places.feature_distance(dijon, p) for p in cands], 5.0)
    order = sorted(range(len(cands)), key=lambda i: probs[i])
    bins = [order[i * len(order) // 4:(i + 1) * len(order) // 4] for i in range(4)]
    observed = [sum(counts[cands[i].name] for i in b) for b in bins]
    expected = [sum(probs[i] for i in b) * n for b in bins]
    assert stats.chisquare(observed, expected).pvalue > 0.001


def test_geo_indistinguishability_snaps_to_a_table_place_and_unknown_places_never_return_the_original():
    table = places.country_table("fr")
    dijon = table.find("Dijon")
    assert dijon is not None
    rng = random.Random(13)
    out = table.geo(rng, dijon, 0.5)
    assert table.find(out.name) is not None
    assert places.haversine_km(dijon, out) < 60
    assert all(table.uniform(rng, "Paris").name != "Paris" for _ in range(200))


def test_france_wide_table_has_postcodes_for_most_places():
    table = places.country_table("fr")
    assert len(table.places) > 13_000
    assert all(p.postcode for p in table.places)

