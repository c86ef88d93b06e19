# ruff: noqa: E501  (questions: one line each)
"""A real document and questions about it: the libtasn1 manual as Debian ships it.

``libtasn1-doc`` installs the GNU Libtasn1 manual (36 pages, version 4.19.0, GNU FDL 1.3)
at ``MANUAL``; it is read from there, not committed. The questions were written for this
benchmark by reading the manual; each names the pages (1-based, as ingest numbers them)
that answer it and a phrase found on them, which ``check`` verifies, so a different
edition of the manual is refused rather than scored wrongly. Many questions name the
library ("libtasn1", "ASN.1"), which the title page, the blurbs and every function entry
are dense in: the case where a keyword ranking without per-document term weights puts
the wrong pages first.
"""

from __future__ import annotations

from pathlib import Path

MANUAL = Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf")
PACKAGE = "libtasn1-doc"

# (question, pages that answer it, a phrase on those pages)
# fmt: off
QUESTIONS: list[tuple[str, frozenset[int], str]] = [
    ("Which ASN.1 type does libtasn1 not handle?", frozenset({6}), "handle the REAL type"),
    ("Is the libtasn1 ASN.1 parser case sensitive?", frozenset({5}), "case sensitive"),
    ("How do comments begin and end in libtasn1 ASN.1 definition files?", frozenset({5}), "comments begin"),
    ("Which header file do I include to use libtasn1?", frozenset({7}), "header file of this library"),
    ("Is libtasn1 thread-safe?", frozenset({4}), "Thread-safety"),
    ("Under which license can I use the libtasn1 library?", frozenset({4}), "Lesser General Public"),
    ("How do I only check the syntax of a definitions file with asn1Parser?", frozenset({8}), "checks the syntax only"),
    ("Which libtasn1 tool decodes a DER file and prints the structure?", frozenset({10}), "asn1Decoding generates"),
    ("How do I produce a DER encoding from an assignments file?", frozenset({8}), "asn1Coding generates"),
    ("What is the maximum length of an ASN.1 identifier in libtasn1?", frozenset({7}), "ASN1_MAX_NAME_SIZE is the maximum"),
    ("How are unnamed elements of a SEQUENCE OF named?", frozenset({6, 16}), "?1"),
    ("What does asn1_delete_structure set the structure pointer to?", frozenset({12}), "structure is set to NULL"),
    ("How do I write a BOOLEAN value with asn1_write_value?", frozenset({15}), '"TRUE" or "FALSE"'),
    ("What does asn1_read_value return when the buffer is too small?", frozenset({17, 18}), "big enough to store the result"),
    ("How do I get a readable description of a libtasn1 error code?", frozenset({25, 26}), "asn1"),
    ("What is planned for future versions of libtasn1?", frozenset({7}), "Future developments"),
    ("How do I make a deep copy of an asn1 node?", frozenset({14}), "deep copy"),
    ("How can a program check the libtasn1 version at run time?", frozenset({26}), "asn1_check_version"),
    ("How do I find where an element starts and ends inside a DER encoding?", frozenset({23, 24}), "asn1"),
    ("Which asn1Decoding option enables strict DER decoding?", frozenset({10}), "strict DER decoding"),
    ("Are SIZE constraints checked by libtasn1?", frozenset({6}), "SIZE constraints are allowed"),
    ("Does libtasn1 support AUTOMATIC TAGS?", frozenset({6}), "AUTOMATIC TAGS"),
]
# fmt: on


def check(page_texts: dict[int, str]) -> None:
    """Refuse another edition: every question's phrase must be on each of its pages."""
    for question, pages, phrase in QUESTIONS:
        for page in pages:
            text = " ".join(page_texts.get(page, "").split())
            if phrase.lower() not in text.lower():
                raise RuntimeError(f"{MANUAL}: page {page} lacks {phrase!r} ({question})")
