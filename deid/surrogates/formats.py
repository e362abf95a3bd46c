"""Format-preserving random surrogates: phones, identifiers with valid check digits, e-mails,
URLs, IP addresses, streets, organisations, countries, professions.

Every generator keeps the original's shape (length, separators, letter case, prefixes that only
say the country or the kind of line) and draws everything else from the injected generator.
"""

from __future__ import annotations

import random
import re
import string
import unicodedata
from collections.abc import Callable
from datetime import date
from itertools import groupby

_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _rand_digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def reshape(template: str, chars: str) -> str:
    """Write ``chars`` (alphanumerics) into the alphanumeric slots of ``template``."""
    it = iter(chars)
    out = []
    for c in template:
        out.append(next(it, c) if c.isalnum() else c)
    return "".join(out)


def _alnum(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


# ------------------------------------------------------------------------------------ phones

def phone_digits(rng: random.Random, original: str) -> str:
    """Surrogate for the significant part of a phone number (its last 9 digits, the memo's
    normalised form): the first digit (mobile / geographic / special) is kept, the rest drawn."""
    digits = re.sub(r"\D", "", original)
    sig = digits[-9:] if len(digits) >= 9 else digits
    if not sig:
        return ""
    return sig[0] + _rand_digits(rng, len(sig) - 1)


def render_phone(original: str, sig: str) -> str:
    """Put the significant digits ``sig`` into the original's shape (country code, trunk prefix
    and grouping kept)."""
    digits = re.sub(r"\D", "", original)
    keep = digits[: len(digits) - len(sig)] if len(digits) >= len(sig) else ""
    new = keep + sig
    it = iter(new)
    out = []
    for c in original:
        out.append(next(it, c) if c.isdigit() else c)
    return "".join(out)


# ---------------------------------------------------------------------------- check digits

def nir_key(body13: str) -> str:
    """French NIR key: 97 - (number mod 97), Corsican 2A/2B read as 19/18."""
    n = int(body13.upper().replace("2A", "19").replace("2B", "18"))
    return f"{97 - n % 97:02d}"


def dni_letter(number: int) -> str:
    return _DNI_LETTERS[number % 23]


def iban_check(country: str, bban: str) -> str:
    moved = bban + country + "00"
    num = "".join(str(int(c, 36)) for c in moved.upper())
    return f"{98 - int(num) % 97:02d}"


def iban_valid(iban: str) -> bool:
    s = _alnum(iban).upper()
    if len(s) < 5:
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _luhn_complete(body: str) -> str:
    for d in string.digits:
        if luhn_valid(body + d):
            return body + d
    raise AssertionError("unreachable")


def identifier(rng: random.Random, original: str) -> str:
    """A random identifier in the original's shape, with a valid check digit when the original
    is a NIR, a DNI / NIE, an IBAN, or a Luhn-valid number (RPPS, SIRET...). Nothing of it is
    drawn from a true value: a NIR's year and month of birth are uniform here, and only
    ``nir_with_birth`` puts a charged surrogate birth date into them, when the note renders."""
    raw = _alnum(original)
    up = raw.upper()
    if re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{8,30}", up) and iban_valid(up):
        country = up[:2]
        bban = "".join(rng.choice(string.digits) if c.isdigit() else rng.choice(string.ascii_uppercase)
                       for c in up[4:])
        new = country + iban_check(country, bban) + bban
        return reshape(original, _case_like(raw, new))
    if re.fullmatch(r"[12]\d{12}\d{2}", up):  # NIR: sex, yy, mm, dept, commune, order, key
        # the sex digit is kept: the note's titles and pronouns already say it
        yymm = _rand_digits(rng, 2) + f"{rng.randint(1, 12):02d}"
        body = up[0] + yymm + f"{rng.randint(1, 95):02d}"
        body = body[:5] + "21" if body[5:7] == "20" else body  # department 20 is 2A/2B
        body += _rand_digits(rng, 3) + f"{rng.randint(1, 999):03d}"
        return reshape(original, body + nir_key(body))
    m = re.fullmatch(r"([XYZ]?)(\d{7,8})([A-Z])", up)
    if m and (len(m.group(1)) + len(m.group(2))) in (8, 9):  # DNI / NIE
        prefix = rng.choice("XYZ") if m.group(1) else ""
        num = _rand_digits(rng, len(m.group(2)))
        value = int(str("XYZ".index(prefix)) + num) if prefix else int(num)
        return reshape(original, _case_like(raw, prefix + num + dni_letter(value)))
    if raw.isdigit() and len(raw) >= 8 and luhn_valid(raw):
        return reshape(original, _luhn_complete(_rand_digits(rng, len(raw) - 1)))
    new = "".join(
        rng.choice(string.digits) if c.isdigit() or c.isnumeric()  # "½", "〇": numbers too
        else rng.choice(string.ascii_uppercase) if c.isupper()
        else rng.choice(string.ascii_lowercase) if c.isalpha() else c
        for c in raw)
    if new == raw and raw:
        return identifier(rng, original)
    return reshape(original, new)


NIR_SHAPE = re.compile(r"[12]\d{12}\d{2}")


def is_nir(text: str) -> bool:
    """A French social security number (sex, yy, mm, department, commune, order, key) by shape."""
    return NIR_SHAPE.fullmatch(_alnum(text).upper()) is not None


def nir_with_birth(original: str, surrogate: str, birth: tuple[date, date] | None) -> str:
    """The surrogate NIR ``surrogate`` (drawn by ``identifier``) as rendered: when the true NIR
    ``original`` encodes the year and month of the patient's true birth date, its digits 2-5
    become the surrogate birth date's and the key is recomputed (a reader checks one against
    the other). ``birth`` must be a *charged* release (true, surrogate): a birth date refused at
    the cap gives None, and the NIR keeps its uniformly drawn year and month."""
    raw, new = _alnum(original).upper(), _alnum(surrogate).upper()
    if birth is None or not is_nir(original) or len(new) != 15 or raw[1:5] != birth[0].strftime("%y%m"):
        return surrogate
    body = new[0] + birth[1].strftime("%y%m") + new[5:13]
    return reshape(surrogate, body + nir_key(body))


def _case_like(template: str, value: str) -> str:
    return "".join(v.lower() if t.islower() else v for t, v in zip(template, value, strict=False)) + value[
        len(template):]


# ------------------------------------------------------------------------ e-mail, URL, IP

_WORDS = ("alpha", "boreal", "cedre", "delta", "erable", "fjord", "granit", "hetre", "iris", "jade",
          "kiwi", "lagon", "mistral", "nacre", "opale", "pollen", "quartz", "rivage", "saule", "topaze")


# Mail services with millions of users: their domain says nothing of whose address it is, and
# keeping it keeps the note true to its story (a relative's gmail address stays one).
WEBMAIL_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "yahoo.com", "yahoo.fr", "yahoo.es", "yahoo.co.uk", "hotmail.com",
    "hotmail.fr", "hotmail.es", "hotmail.co.uk", "outlook.com", "outlook.fr", "outlook.es", "live.com",
    "live.fr", "msn.com", "icloud.com", "me.com", "aol.com", "protonmail.com", "proton.me", "gmx.com",
    "gmx.fr", "gmx.de", "orange.fr", "wanadoo.fr", "free.fr", "sfr.fr", "laposte.net", "bbox.fr",
    "neuf.fr", "telefonica.net", "movistar.es",
})
def _local_pieces(local: str) -> list[str]:
    """Runs of letters, runs of decimal digits, and every other character alone ("²" included)."""
    kinds = ["a" if c.isalpha() else "d" if c.isdecimal() else f"o{i}" for i, c in enumerate(local)]
    runs = groupby(zip(local, kinds, strict=True), key=lambda x: x[1])
    return ["".join(c for c, _ in run) for _, run in runs]


def email(rng: random.Random, original: str, name: Callable[[str], str],
          initial: Callable[[str, str], str | None] | None = None,
          glued: Callable[[str], bool] | None = None) -> str:
    """A surrogate address; the top-level domain is kept, and the whole domain when it is a
    public mail service's. Each name word of the local part ("claire", "rousseau") becomes
    ``name(word)``, the surrogate that word has as a name of the patient's notes (drawn when
    new), in the original's order and separators ("claire.rousseau" -> "emmanuelle.dijoux");
    digits are drawn. An initial beside or glued to a surname ("c.rousseau", "jwhitaker" when
    ``glued("jwhitaker")``) becomes ``initial(letter, surname word)``'s first letter, the initial
    of that person's surrogate given name, else a drawn letter."""
    local, _, domain = unicodedata.normalize("NFC", original.strip()).rpartition("@")
    tld = domain.rsplit(".", 1)[-1] if "." in domain else ""
    tld = tld if re.fullmatch(r"[A-Za-z]{2,6}", tld) else "fr"  # no "@": no domain to keep a part of
    new_local = _local_part(rng, local, name, initial, glued or (lambda w: False))
    if not new_local:
        new_local = f"{rng.choice(_WORDS)}{rng.randint(1, 99)}"
    dom = domain.lower()
    if dom not in WEBMAIL_DOMAINS:
        dom = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}.{tld.lower()}"
    return f"{new_local}@{dom}"


def _local_part(rng: random.Random, local: str, name: Callable[[str], str],
                initial: Callable[[str, str], str | None] | None, glued: Callable[[str], bool]) -> str:
    def letter(c: str, surname: str) -> str:
        given = initial(c.lower(), surname.lower()) if initial is not None and surname else None
        return _ascii(given)[:1] if given and _ascii(given) else rng.choice(string.ascii_lowercase)

    pieces = _local_pieces(local)
    words = [p for p in pieces if p.isalpha() and len(p) > 1]
    out: list[str] = []
    for i, piece in enumerate(pieces):
        if piece.isdecimal():
            out.append(_rand_digits(rng, len(piece)))
        elif piece.isalpha() and len(piece) == 1:  # "c.rousseau": the initial of the word after it
            after = next((p for p in pieces[i + 1:] if p.isalpha() and len(p) > 1), words[0] if words else "")
            out.append(letter(piece, after))
        elif piece.isalpha():
            if len(piece) > 2 and glued(piece):  # "jwhitaker": an initial glued to the surname
                out.append(letter(piece[0], piece[1:]) + (_ascii(name(piece[1:])) or "x"))
            else:
                out.append(_ascii(name(piece)) or rng.choice(_WORDS))
        elif any(c.isalnum() for c in piece):  # "²", "½": nothing of the original is copied
            out.append(rng.choice(string.ascii_lowercase))
        else:
            out.append(piece)
    return "".join(out)


def url(rng: random.Random, original: str) -> str:
    m = re.match(r"(?i)^(https?://)?(www\.)?([^/]+?)(\.[a-z]{2,})(/.*)?$", original.strip())
    if not m:
        return f"www.{rng.choice(_WORDS)}-{rng.choice(_WORDS)}.org"
    scheme, www, _, tld, path = m.groups()
    new_path = f"/{rng.choice(_WORDS)}" if path and path != "/" else (path or "")
    return f"{scheme or ''}{www or ''}{rng.choice(_WORDS)}-{rng.choice(_WORDS)}{tld.lower()}{new_path}"


def ip(rng: random.Random, original: str) -> str:
    if ":" in original:
        return ":".join(f"{rng.randrange(65536):x}" for _ in range(8))
    return ".".join(str(rng.randint(1, 254)) for _ in range(4))


def _ascii(text: str) -> str:
    import unicodedata
    norm = unicodedata.normalize("NFD", text)
    return "".join(c for c in norm if c.isascii() and (c.isalnum() or c == "-")).lower()


# ---------------------------------------------------------------- streets, organisations, misc

_STREET = {
    "fr": (("rue", "avenue", "boulevard", "impasse", "chemin", "place", "allée"),
           ("des Lilas", "Victor Hugo", "de la Gare", "des Écoles", "du Moulin", "Pasteur", "Jean Jaurès",
            "des Tilleuls", "de la République", "du Stade", "des Vignes", "Gambetta")),
    "es": (("calle", "avenida", "paseo", "plaza", "camino"),
           ("Mayor", "del Sol", "de la Paz", "Real", "de Alcalá", "del Carmen", "San Juan", "de Goya",
            "de los Olivos", "Nueva")),
    "en": (("Street", "Avenue", "Road", "Lane", "Drive"),
           ("Oak", "Maple", "Main", "Park", "Elm", "Church", "Mill", "Station", "High", "Cedar")),
}

_ORG = {
    "fr": ("Centre hospitalier de {c}", "Clinique {n}", "Hôpital {n}", "EHPAD Les Tilleuls",
           "Cabinet médical de {c}"),
    "es": ("Hospital Universitario de {c}", "Clínica {n}", "Centro de Salud de {c}", "Hospital {n}"),
    "en": ("{c} General Hospital", "St {n} Hospital", "{c} Medical Center", "{n} Clinic"),
}

_COUNTRIES = {
    "fr": ("Belgique", "Suisse", "Portugal", "Italie", "Maroc", "Algérie", "Sénégal", "Canada", "Pologne"),
    "es": ("Portugal", "Francia", "Italia", "Marruecos", "Argentina", "Colombia", "Perú", "Rumanía"),
    "en": ("Canada", "Ireland", "Australia", "Germany", "India", "Mexico", "Poland", "Nigeria"),
}

_PROFESSIONS = {
    "fr": ("employé de bureau", "agriculteur", "enseignant", "commerçant", "retraité", "artisan"),
    "es": ("administrativo", "agricultor", "profesor", "comerciante", "jubilado", "artesano"),
    "en": ("office worker", "farmer", "teacher", "shopkeeper", "retired", "craftsman"),
}


def street(rng: random.Random, lang: str, original: str) -> str:
    types, names = _STREET.get(lang, _STREET["fr"])
    kind, name = rng.choice(types), rng.choice(names)
    has_number = bool(re.match(r"\s*\d", original))
    trailing = bool(re.search(r"\d+\s*$", original)) and not has_number  # "Calle Mayor 3"
    num = f"{rng.randint(1, 120)} " if has_number else ""
    if lang == "en":
        return f"{num}{name} {kind}"
    body = f"{kind} {name}"
    if original[:1].isupper() and not has_number:
        body = body[:1].upper() + body[1:]
    if trailing:
        sep = ", " if re.search(r",\s*\d+\s*$", original) else " "
        return f"{body}{sep}{rng.randint(1, 120)}"
    return f"{num}{body}"


def organisation(rng: random.Random, lang: str, city: str, surname: str) -> str:
    return rng.choice(_ORG.get(lang, _ORG["fr"])).format(c=city, n=surname)


def country(rng: random.Random, lang: str, original: str) -> str:
    pool = [c for c in _COUNTRIES.get(lang, _COUNTRIES["fr"]) if c.casefold() != original.strip().casefold()]
    return rng.choice(pool)


def profession(rng: random.Random, lang: str) -> str:
    return rng.choice(_PROFESSIONS.get(lang, _PROFESSIONS["fr"]))


def postcode(rng: random.Random, original: str, place_postcode: str = "") -> str:
    """A postcode in the original's shape; the surrogate place's own postcode when known (so a
    postcode next to a substituted city matches that city)."""
    digits = re.sub(r"\D", "", original)
    if place_postcode and len(place_postcode) == len(digits):
        return reshape(original, place_postcode)
    if len(digits) == 5:
        return reshape(original, f"{rng.randint(1, 95):02d}{rng.randint(0, 99):02d}0")
    return reshape(original, _rand_digits(rng, len(digits))) if digits else identifier(rng, original)
