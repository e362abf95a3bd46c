"""The audit as one self-contained HTML page a privacy officer reads (``deid audit --html``).

Per profile: totals and a bar chart of leaks per 1,000 PHI mentions and broken facts per note;
per note: the original with the gold mentions highlighted by label, beside each profile's output
with every replacement highlighted, and the note's leaks and broken facts listed in red.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from deid.lab.eval.audit import NoteAudit, to_output
from deid.lab.eval.audit_run import FACT_KINDS, ProfileReport

_COLOURS = {
    "PER": "#ffd6a5", "DATE": "#caffbf", "AGE": "#caffbf", "LOC": "#9bf6ff", "ORG": "#bdb2ff",
    "TEL": "#ffc6ff", "REF": "#ffc6ff", "QID": "#fdffb6", "OTHER": "#e0e0e0",
}
_CATEGORY = {
    "PATIENT": "PER", "STAFF": "PER", "RELATIVE": "PER", "PERSON": "PER", "DATE": "DATE",
    "BIRTH_DATE": "DATE", "AGE": "AGE", "STREET": "LOC", "CITY": "LOC", "POSTCODE": "LOC",
    "COUNTRY": "LOC", "LOCATION": "LOC", "HOSPITAL": "ORG", "ORG": "ORG", "PHONE": "TEL", "FAX": "TEL",
    "EMAIL": "REF", "URL": "REF", "IP": "REF", "PROFESSION": "OTHER",
}

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table.totals{border-collapse:collapse}table.totals td,table.totals th{border:1px solid #ccc;padding:.3em .6em}
.note{border-top:2px solid #888;margin-top:1.5em;padding-top:.5em}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(22em,1fr));gap:1em}
pre{white-space:pre-wrap;font-size:.85em;background:#fafafa;padding:.6em;border:1px solid #ddd}
mark{border-radius:3px;padding:0 1px}mark.leak{outline:2px solid #d00}
.bad{color:#b00}.ok{color:#070}h3{margin:.2em 0}small{color:#666}
"""


def _label_colour(label: str) -> str:
    return _COLOURS.get(_CATEGORY.get(label, label if label in _COLOURS else "QID"), "#fdffb6")


def _highlight(text: str, spans: Sequence[tuple[int, int, str, bool]]) -> str:
    out: list[str] = []
    pos = 0
    for start, end, label, leak in sorted(spans):
        if start < pos:
            continue
        out.append(escape(text[pos:start]))
        cls = ' class="leak"' if leak else ""
        out.append(f'<mark{cls} style="background:{_label_colour(label)}" title="{escape(label)}">'
                   f"{escape(text[start:end])}</mark>")
        pos = end
    out.append(escape(text[pos:]))
    return "".join(out)


def _chart(reports: Sequence[ProfileReport]) -> str:
    """Two bars per profile: leaks per 1,000 PHI mentions, broken facts per 100 notes."""
    width, bar = 520, 16
    rows = []
    top = max([1.0] + [max(r.leaks_per_1000(), 100 * sum(r.fact_counts().values()) / max(1, len(r.audits)))
                       for r in reports])
    for i, r in enumerate(reports):
        y = 10 + i * 46
        leaks = r.leaks_per_1000()
        facts = 100 * sum(r.fact_counts().values()) / max(1, len(r.audits))
        rows.append(f'<text x="0" y="{y + 12}" font-size="12">{escape(r.profile)}</text>')
        for k, (value, colour, what) in enumerate(((leaks, "#d33", "leaks / 1,000 PHI"),
                                                    (facts, "#e90", "broken facts / 100 notes"))):
            w = 0 if top == 0 else (width - 260) * value / top
            yy = y + k * (bar + 2)
            rows.append(f'<rect x="100" y="{yy}" width="{w:.1f}" height="{bar}" fill="{colour}"/>'
                        f'<text x="{104 + w:.1f}" y="{yy + 12}" font-size="11">{value:.1f} {what}</text>')
    height = 20 + 46 * len(reports)
    return f'<svg role="img" aria-label="leaks and broken facts per profile" width="{width}" ' \
           f'height="{height}">{"".join(rows)}</svg>'


def _totals(reports: Sequence[ProfileReport]) -> str:
    head = "".join(f"<th>{k}</th>" for k in FACT_KINDS)
    rows = []
    for r in reports:
        facts = r.fact_counts()
        cls = "bad" if r.leaked_mentions else "ok"
        rows.append(f"<tr><td>{escape(r.profile)}</td><td>{len(r.audits)}</td><td>{r.mentions}</td>"
                    f'<td class="{cls}">{r.leaked_mentions} ({r.leaks_per_1000():.1f}/1,000)</td>'
                    + "".join(f"<td>{facts.get(k, 0)}</td>" for k in FACT_KINDS) + "</tr>")
    return (f'<table class="totals"><tr><th>profile</th><th>notes</th><th>PHI</th><th>leaked</th>{head}</tr>'
            + "".join(rows) + "</table>")


def _note(note_audits: Sequence[tuple[str, NoteAudit]]) -> str:
    first = note_audits[0][1]
    n = first.note
    gold = [(m.start, m.end, m.label, False) for m in n.mentions]
    cols = [f"<div><h3>original</h3><pre>{_highlight(n.text, gold)}</pre></div>"]
    findings = []
    for profile, a in note_audits:
        leaked = [m for m in n.mentions if m.text in {f.original for f in a.leaks}]
        spans = [(to_output(m.start, a.replaced), to_output(m.end, a.replaced), m.label, True) for m in leaked
                 if not any(r.start < m.end and m.start < r.end for r in a.replaced)]  # copied through
        for r in a.replaced:
            leak = any(m.start < r.end and r.start < m.end for m in leaked)
            spans.append((r.out_start, r.out_end, r.label, leak))
        cols.append(f"<div><h3>{escape(profile)}</h3><pre>{_highlight(a.output, spans)}</pre></div>")
        for f in a.leaks + a.facts:
            findings.append(f'<li class="bad">{escape(profile)}: {escape(f.kind)} {escape(f.label)} '
                            f"{escape(f.original)} &rarr; {escape(f.output)} "
                            f"<small>{escape(f.detail)}</small></li>")
    listing = f"<ul>{''.join(findings)}</ul>" if findings else '<p class="ok">no leak, no broken fact</p>'
    return (f'<div class="note" id="{escape(n.note_id)}"><h2>{escape(n.note_id)} '
            f"<small>{escape(n.lang)} {escape(n.country)} {escape(n.kind)}, patient {escape(n.patient)}, "
            f"{escape(n.document_date)}</small></h2>{listing}<div class=\"cols\">{''.join(cols)}</div></div>")


def page(reports: Sequence[ProfileReport], title: str = "deid audit") -> str:
    notes = []
    if reports:
        for i in range(len(reports[0].audits)):
            notes.append(_note([(r.profile, r.audits[i]) for r in reports]))
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body><h1>{escape(title)}</h1>{_totals(reports)}"
            f"{_chart(reports)}{''.join(notes)}</body></html>")
