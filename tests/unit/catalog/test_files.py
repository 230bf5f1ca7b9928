"""Reading one file: hashing, caps, binary and non-UTF-8 detection, kinds and languages."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from skill2env.catalog import files
from skill2env.catalog.files import kind_of, language_of, read_file
from skill2env.catalog.models import FileKind


def test_text_is_hashed_in_full_and_decoded(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("héllo\n")
    content = read_file(str(path), path.stat().st_size)
    assert content.sha256 == hashlib.sha256("héllo\n".encode()).hexdigest()
    assert (content.text, content.encoding, content.is_text, content.truncated) == (
        "héllo\n",
        "utf-8",
        True,
        False,
    )


def test_the_text_cap_keeps_the_head_and_the_full_digest(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    data = ("é" * 100).encode() + b"tail"
    path.write_bytes(data)
    content = read_file(str(path), len(data), text_cap=51)  # cuts a two-byte character in half
    assert content.truncated
    assert content.text == "é" * 25
    assert content.encoding == "utf-8"
    assert content.sha256 == hashlib.sha256(data).hexdigest()


def test_invalid_utf8_is_replaced_and_flagged(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("café".encode("latin-1"))
    content = read_file(str(path), 4)
    assert content.encoding == "utf-8-replaced"
    assert content.text == "caf\ufffd"


def test_binary_files_are_hashed_not_decoded(tmp_path: Path) -> None:
    path = tmp_path / "img.png"
    path.write_bytes(b"\x89PNG\x00\x00\x01")
    content = read_file(str(path), 7)
    assert (content.is_text, content.text, content.encoding) == (False, None, "binary")
    assert content.sha256 is not None


def test_huge_files_are_listed_but_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "HASH_CAP", 10)
    path = tmp_path / "huge.bin"
    path.write_bytes(b"0" * 11)
    content = read_file(str(path), 11)
    assert (content.sha256, content.status) == (None, "skipped")
    assert "larger than 10 bytes" in (content.error or "")


def test_a_file_swapped_for_a_symlink_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("secret")
    link = tmp_path / "link.txt"
    os.symlink(target, link)
    content = read_file(str(link), 6)
    assert content.status == "unreadable"
    assert content.text is None


@pytest.mark.parametrize(
    ("path", "first_line", "language"),
    [
        ("scripts/run.py", None, "python"),
        ("scripts/run", "#!/usr/bin/env python3", "python"),
        ("bin/tool", "#!/bin/bash -e", "shell"),
        ("bin/tool", "#!/usr/bin/env -S node --no-warnings", "javascript"),
        ("Dockerfile", None, "dockerfile"),
        ("notes.txt", None, None),
        ("x.ps1", None, "powershell"),
    ],
)
def test_language_by_extension_name_or_shebang(path: str, first_line: str | None, language: str | None) -> None:
    assert language_of(path, first_line) == language


@pytest.mark.parametrize(
    ("path", "language", "is_text", "kind"),
    [
        ("scripts/run.py", "python", True, FileKind.script),
        ("references/guide.md", "markdown", True, FileKind.reference),
        ("data/input.csv", None, True, FileKind.data),
        ("requirements.txt", None, True, FileKind.config),
        ("templates/report.md", "markdown", True, FileKind.template),
        ("LICENSE.txt", None, True, FileKind.license),
        ("assets/logo.png", None, False, FileKind.binary),
        ("weird.xyz", None, True, FileKind.other),
    ],
)
def test_kinds(path: str, language: str | None, is_text: bool, kind: FileKind) -> None:
    assert kind_of(path, language, is_text, is_skill_md=False) == kind
