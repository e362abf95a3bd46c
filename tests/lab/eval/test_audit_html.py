"""The audit page a privacy officer reads, opened in a real headless browser (Debian's Chromium)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from deid.lab.corpora.realistic import read_jsonl
from deid.lab.eval.audit_html import page
from deid.lab.eval.audit_run import audit_profile, gold_spans

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _reports() -> list:  # type: ignore[type-arg]
    corpus = read_jsonl(ROOT / "corpora" / "realistic" / "notes.jsonl")
    notes = [n for n in corpus if n.split == "dev"][:4]
    # the first note's first name left out of detection: a leak the page must mark
    spans = [gold_spans(n) for n in notes]
    first = next(s for s in spans[0] if s.label.category.value == "PER")
    spans[0] = [s for s in spans[0] if s != first]
    return [audit_profile(notes, spans, p, seed=0) for p in ("placeholder", "dp")], notes, first


def test_the_page_holds_totals_a_chart_and_each_note_side_by_side_escaped() -> None:
    reports, notes, _ = _reports()
    html = page(reports, title="audit <dev>")
    assert "<title>audit &lt;dev&gt;</title>" in html
    assert html.count('<div class="note"') == len(notes)
    assert "<svg" in html and "leaks / 1,000 PHI" in html
    assert 'class="leak"' in html  # the undetected name is marked in the outputs
    for n in notes:
        assert f'id="{n.note_id}"' in html


@pytest.mark.skipif(CHROMIUM is None,
                    reason="Debian's chromium is not installed (scripts/setup.sh installs it)")
def test_the_page_renders_in_a_headless_browser(tmp_path: Path) -> None:
    reports, notes, first = _reports()
    html_file = tmp_path / "audit.html"
    html_file.write_text(page(reports, title="deid audit"), encoding="utf-8")
    shot = tmp_path / "audit.png"
    profile = tmp_path / "profile"
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}",
                    "--window-size=1400,1000", html_file.as_uri()],
                   check=True, capture_output=True, timeout=120)
    assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", html_file.as_uri()],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    assert "placeholder" in dom and "dp" in dom and notes[0].note_id in dom
    leaked = notes[0].text[first.start : first.end]
    assert 'class="leak"' in dom and leaked in dom

