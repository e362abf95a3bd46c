"""Readers for the annotated corpora (BRAT, eds-pseudo jsonl and templates, ECHR CoNLL TSV).

Every reader returns ``Document`` objects whose gold spans use the project's label set
(``deid.lab.corpora.mapping``). A malformed file raises ``CorpusFormatError`` with a one-line
message that names the file and line, never a traceback of the parser's internals.
"""

from deid.lab.corpora.readers import (
    CorpusFormatError,
    detect_format,
    read_brat_dir,
    read_corpus,
    read_echr_tsv,
    read_eds_jsonl,
    read_eds_templates,
)

__all__ = [
    "CorpusFormatError",
    "detect_format",
    "read_brat_dir",
    "read_corpus",
    "read_echr_tsv",
    "read_eds_jsonl",
    "read_eds_templates",
]
