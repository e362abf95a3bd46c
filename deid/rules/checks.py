"""Check digits of structured identifiers: a match that fails its check is not that identifier."""

from __future__ import annotations

import re

_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def digits_only(value: str) -> str:
    return re.sub(r"[\s.\-/]", "", value)


def nir_key_ok(value: str) -> bool:
    """French NIR: 13 characters (Corsica 2A/2B in the department) + key = 97 - (n mod 97)."""
    raw = digits_only(value).upper()
    if len(raw) != 15 or not raw[13:].isdigit():
        return False
    body = raw[:13]
    # Corsica: 2A -> 19, 2B -> 18 for the computation (INSEE convention).
    if body[5:7] == "2A":
        body = body[:5] + "19" + body[7:]
    elif body[5:7] == "2B":
        body = body[:5] + "18" + body[7:]
    if not body.isdigit():
        return False
    return 97 - int(body) % 97 == int(raw[13:])


def dni_ok(value: str) -> bool:
    """Spanish DNI (8 digits + letter) or NIE (X/Y/Z + 7 digits + letter): letter = table[n mod 23]."""
    raw = digits_only(value).upper()
    if len(raw) != 9 or not raw[-1].isalpha():
        return False
    head = raw[:-1]
    if head[0] in "XYZ":
        head = str("XYZ".index(head[0])) + head[1:]
    if not head.isdigit():
        return False
    return _DNI_LETTERS[int(head) % 23] == raw[-1]


def iban_ok(value: str) -> bool:
    """ISO 13616: move the first four characters to the end, letters -> 10..35, value mod 97 == 1."""
    raw = re.sub(r"\s", "", value).upper()
    if not 15 <= len(raw) <= 34 or not raw.isalnum() or not raw[:2].isalpha() or not raw[2:4].isdigit():
        return False
    rearranged = raw[4:] + raw[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return int(number) % 97 == 1
