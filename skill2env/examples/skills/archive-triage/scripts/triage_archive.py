#!/usr/bin/env python3
"""Inspect an untrusted zip, tar (plain/gz/bz2/xz) or single-file gz/bz2/xz archive
without trusting it, write a JSON inventory, and optionally extract the safe
members into an empty sandbox directory.

The format is detected from magic bytes, not from the file name. Each member is
flagged; 'danger' flags make the verdict 'unsafe' and such members are never
extracted:

  danger: ABSOLUTE_PATH, PATH_TRAVERSAL, LINK_ESCAPE, SPECIAL_FILE,
          OVERLAPPING_ENTRIES, SIZE_LIMIT, MEMBER_LIMIT, SIZE_MISMATCH
  warn:   LINK, HIGH_RATIO, ENCRYPTED, DUPLICATE_NAME, NESTED_ARCHIVE, UNUSUAL_NAME

Extraction streams every member with hard byte limits, creates files with mode
0644 (no exec/setuid bits), refuses to overwrite, never creates links, and
checks that each resolved target stays inside the sandbox. Nested archives are
reported, not unpacked; triage them separately after extraction.

Standard library only. Exit codes: 0 verdict ok or review, 1 verdict unsafe
(or a limit was hit during extraction), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import bz2
import contextlib
import gzip
import hashlib
import json
import lzma
import os
import stat
import sys
import tarfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO, Any

EXIT_OK, EXIT_UNSAFE, EXIT_USAGE = 0, 1, 2
DANGER = {"ABSOLUTE_PATH", "PATH_TRAVERSAL", "LINK_ESCAPE", "SPECIAL_FILE", "OVERLAPPING_ENTRIES",
          "SIZE_LIMIT", "MEMBER_LIMIT", "SIZE_MISMATCH"}
MAGIC = [(b"PK\x03\x04", "zip"), (b"PK\x05\x06", "zip"), (b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"),
         (b"\xfd7zXZ\x00", "xz"), (b"7z\xbc\xaf\x27\x1c", "7z"), (b"Rar!\x1a\x07", "rar")]
ARCHIVE_SUFFIXES = (".zip", ".jar", ".war", ".apk", ".tar", ".tgz", ".tar.gz", ".gz", ".bz2", ".tbz2",
                    ".xz", ".txz", ".7z", ".rar", ".whl", ".nupkg")
SINGLE = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}
CHUNK = 1 << 16


class TriageError(Exception):
    """The archive cannot be read or the options are unusable."""


class LimitExceeded(Exception):
    """Extraction stopped because a byte limit was hit."""


def sniff(head: bytes) -> str | None:
    for magic, kind in MAGIC:
        if head.startswith(magic):
            return kind
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    return None


def detect_format(path: Path) -> str:
    with path.open("rb") as fh:
        head = fh.read(512)
    kind = sniff(head)
    if kind in SINGLE:
        try:
            with SINGLE[kind](path, "rb") as inner:
                if sniff(inner.read(512)) == "tar":
                    return f"tar+{kind}"
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise TriageError(f"corrupt {kind} stream: {exc}") from None
        return kind
    if kind is None and tarfile.is_tarfile(path):
        return "tar"  # old (pre-POSIX) tar header
    if kind in ("7z", "rar"):
        raise TriageError(f"{kind} archives are not supported by the standard library; use a dedicated tool")
    if kind is None:
        raise TriageError("not a recognised archive (zip, tar, gz, bz2, xz)")
    return kind


def path_flags(name: str) -> list[str]:
    flags = []
    norm = name.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":") or norm.startswith("//"):
        flags.append("ABSOLUTE_PATH")
    if ".." in PurePosixPath(norm).parts:
        flags.append("PATH_TRAVERSAL")
    if any(ord(ch) < 32 for ch in name) or "\\" in name:
        flags.append("UNUSUAL_NAME")
    return flags


def safe_relpath(name: str) -> PurePosixPath:
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("", ".", "/")]
    return PurePosixPath(*parts) if parts else PurePosixPath("_unnamed")


def link_escapes(member_name: str, target: str) -> bool:
    if target.startswith("/") or (len(target) > 1 and target[1] == ":"):
        return True
    depth = len(safe_relpath(member_name).parts) - 1
    for part in PurePosixPath(target.replace("\\", "/")).parts:
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            return True
    return False


def nested_kind(name: str, head: bytes) -> str | None:
    kind = sniff(head)
    if kind:
        return kind
    return "by-name" if name.lower().endswith(ARCHIVE_SUFFIXES) else None


def inspect_zip(path: Path, limits: dict[str, int]) -> list[dict[str, Any]]:
    members = []
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise TriageError(f"corrupt zip: {exc}") from None
    with zf:
        infos = zf.infolist()
        spans = sorted((i.header_offset, i.header_offset + i.compress_size, i.filename) for i in infos)
        overlapping = {spans[k + 1][2] for k in range(len(spans) - 1) if spans[k + 1][0] < spans[k][1]}
        for index, info in enumerate(infos[: limits["max_members"]]):
            mode = info.external_attr >> 16
            kind = "dir" if info.is_dir() else "symlink" if stat.S_ISLNK(mode) else "file"
            entry = {"index": index, "name": info.filename, "type": kind, "size": info.file_size,
                     "compressed_size": info.compress_size, "flags": path_flags(info.filename)}
            if info.flag_bits & 0x1:
                entry["flags"].append("ENCRYPTED")
            if info.filename in overlapping:
                entry["flags"].append("OVERLAPPING_ENTRIES")
            if kind == "symlink":
                target = zf.read(info)[:4096].decode("utf-8", "replace") if not info.flag_bits & 0x1 else ""
                entry["link_target"] = target
                entry["flags"].append("LINK_ESCAPE" if link_escapes(info.filename, target) else "LINK")
            elif kind == "file" and not info.flag_bits & 0x1 and "OVERLAPPING_ENTRIES" not in entry["flags"]:
                try:
                    with zf.open(info) as fh:
                        entry["_head"] = fh.read(512)
                except (zipfile.BadZipFile, NotImplementedError, OSError) as exc:
                    entry["error"] = str(exc)
            members.append(entry)
    return members


def inspect_tar(path: Path, limits: dict[str, int]) -> list[dict[str, Any]]:
    members: list[dict[str, Any]] = []
    try:
        with tarfile.open(path, "r:*") as tf:
            for count, info in enumerate(tf):
                if count >= limits["max_members"]:
                    break
                kind = ("file" if info.isfile() else "dir" if info.isdir() else "symlink" if info.issym()
                        else "hardlink" if info.islnk() else "special")
                entry = {"index": count, "name": info.name, "type": kind, "size": info.size,
                         "compressed_size": None, "flags": path_flags(info.name)}
                if kind in ("symlink", "hardlink"):
                    entry["link_target"] = info.linkname
                    base = info.name if kind == "symlink" else ""
                    entry["flags"].append("LINK_ESCAPE" if link_escapes(base, info.linkname) else "LINK")
                elif kind == "special":
                    entry["flags"].append("SPECIAL_FILE")
                elif kind == "file":
                    if info.mode & (stat.S_ISUID | stat.S_ISGID):
                        entry["setuid"] = True
                    fh = tf.extractfile(info)
                    entry["_head"] = fh.read(512) if fh else b""
                members.append(entry)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise TriageError(f"corrupt tar (after {len(members)} members): {exc}") from None
    return members


def inspect_single(path: Path, kind: str, limits: dict[str, int]) -> list[dict[str, Any]]:
    name = path.name.rsplit(".", 1)[0] if "." in path.name else path.name + ".out"
    if kind == "gzip":
        raw = path.read_bytes()[:1024]
        if len(raw) > 10 and raw[3] & 0x08:  # FNAME flag: original file name stored in the header
            start = 10 + (2 + int.from_bytes(raw[10:12], "little") if raw[3] & 0x04 else 0)
            end = raw.find(b"\x00", start)
            if end > start:
                name = raw[start:end].decode("latin-1")
    size, flags = 0, path_flags(name)
    try:
        with SINGLE[kind](path, "rb") as fh:  # stream to learn the real size, never holding it in memory
            head = fh.read(512)
            size = len(head)
            while chunk := fh.read(CHUNK):
                size += len(chunk)
                if size > limits["max_total_bytes"]:
                    flags.append("SIZE_LIMIT")
                    break
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise TriageError(f"corrupt {kind} stream: {exc}") from None
    return [{"index": 0, "name": name, "type": "file", "size": size, "compressed_size": path.stat().st_size,
             "flags": flags, "_head": head}]


def triage(path: Path, limits: dict[str, int]) -> dict[str, Any]:
    if not path.is_file():
        raise TriageError(f"archive not found: {path}")
    fmt = detect_format(path)
    if fmt == "zip":
        members = inspect_zip(path, limits)
    elif fmt.startswith("tar"):
        members = inspect_tar(path, limits)
    else:
        members = inspect_single(path, fmt, limits)
    seen: set[str] = set()
    declared_total = 0
    for m in members:
        key = str(safe_relpath(m["name"])).lower()
        if key in seen and m["type"] != "dir":
            m["flags"].append("DUPLICATE_NAME")
        seen.add(key)
        head = m.pop("_head", b"")
        if m["type"] == "file":
            kind = nested_kind(m["name"], head)
            if kind:
                m["flags"].append("NESTED_ARCHIVE")
                m["nested_format"] = kind
        size, packed = m.get("size") or 0, m.get("compressed_size")
        declared_total += size
        if packed is not None and size >= limits["ratio_min_size"] and size / max(packed, 1) > limits["max_ratio"]:
            m["flags"].append("HIGH_RATIO")
            m["ratio"] = round(size / max(packed, 1), 1)
    archive_flags = []
    if len(members) >= limits["max_members"]:
        archive_flags.append("MEMBER_LIMIT")
    if declared_total > limits["max_total_bytes"]:
        archive_flags.append("SIZE_LIMIT")
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return {"archive": str(path), "format": fmt, "size": path.stat().st_size,
            "sha256": digest.hexdigest(), "members": members,
            "archive_flags": archive_flags}


def _copy_limited(src: IO[bytes], target: Path, budget: int, declared: int | None) -> int:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    written = 0
    try:
        with os.fdopen(fd, "wb") as out:
            while chunk := src.read(CHUNK):
                written += len(chunk)
                if written > budget:
                    raise LimitExceeded(f"{target.name}: total extracted bytes would exceed the limit")
                if declared is not None and written > declared:
                    raise LimitExceeded(f"{target.name}: more data than the declared size {declared}")
                out.write(chunk)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return written


def extract(path: Path, report: dict[str, Any], dest: Path, limits: dict[str, int]) -> list[str]:
    """Extract members without danger/link/encryption flags; return problems found while doing it."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise TriageError(f"extraction directory must be new or empty: {dest}")
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    budget = limits["max_total_bytes"]
    problems: list[str] = []
    skip = DANGER | {"LINK", "ENCRYPTED", "DUPLICATE_NAME"}
    fmt = report["format"]
    for m in report["members"]:
        m["extracted"] = False
    with contextlib.ExitStack() as stack:
        opener: Any = None
        entries: list[Any] = []  # archive entries by position, so duplicate names cannot be confused
        if fmt == "zip":
            opener = stack.enter_context(zipfile.ZipFile(path))
            entries = opener.infolist()
        elif fmt.startswith("tar"):
            opener = stack.enter_context(tarfile.open(path, "r:*"))
            entries = opener.getmembers()[: limits["max_members"]]
        for m in report["members"]:
            if skip & set(m["flags"]) or m["type"] not in ("file", "dir"):
                continue
            target = (root / safe_relpath(m["name"])).resolve()
            if not target.is_relative_to(root) or target == root:
                m["flags"].append("PATH_TRAVERSAL")
                continue
            if m["type"] == "dir":
                target.mkdir(parents=True, exist_ok=True)
                m["extracted"] = True
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                if fmt == "zip":
                    with opener.open(entries[m["index"]]) as src:
                        budget -= _copy_limited(src, target, budget, m["size"])
                elif fmt.startswith("tar"):
                    src = opener.extractfile(entries[m["index"]])
                    budget -= _copy_limited(src, target, budget, m["size"])
                else:
                    with SINGLE[fmt](path, "rb") as src:
                        m["size"] = _copy_limited(src, target, budget, None)
                        budget -= m["size"]
            except LimitExceeded as exc:
                m["flags"].append("SIZE_MISMATCH" if "declared" in str(exc) else "SIZE_LIMIT")
                problems.append(str(exc))
                break
            except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, lzma.LZMAError) as exc:
                problems.append(f"{m['name']}: {exc}")
                continue
            m["extracted"] = True
    return problems


def finish(report: dict[str, Any]) -> None:
    counts: dict[str, int] = {}
    for m in report["members"]:
        for f in m["flags"]:
            counts[f] = counts.get(f, 0) + 1
    for f in report["archive_flags"]:
        counts[f] = counts.get(f, 0) + 1
    report["flag_counts"] = dict(sorted(counts.items()))
    report["verdict"] = "unsafe" if DANGER & set(counts) else "review" if counts else "ok"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Safely inspect a zip/tar/gz/bz2/xz archive, write an inventory, optionally extract "
                    "safe members into an empty sandbox directory.",
        epilog="Exit codes: 0 ok/review, 1 unsafe or a limit was hit, 2 usage/input error.",
    )
    parser.add_argument("archive", help="archive to triage (format detected from content)")
    parser.add_argument("--inventory", help="write the JSON inventory here (default: stdout)")
    parser.add_argument("--extract-to", help="new or empty directory to extract safe members into")
    parser.add_argument("--max-total-bytes", type=int, default=1 << 30, help="uncompressed byte limit (1 GiB)")
    parser.add_argument("--max-members", type=int, default=10000, help="member count limit (10000)")
    parser.add_argument("--max-ratio", type=float, default=100.0, help="flag members compressed more than this")
    parser.add_argument("--ratio-min-size", type=int, default=1 << 20,
                        help="only apply --max-ratio to members at least this large (1 MiB)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    limits = {"max_total_bytes": args.max_total_bytes, "max_members": args.max_members,
              "max_ratio": args.max_ratio, "ratio_min_size": args.ratio_min_size}
    problems: list[str] = []
    try:
        report = triage(Path(args.archive), limits)
        if args.extract_to:
            problems = extract(Path(args.archive), report, Path(args.extract_to), limits)
            report["extract_to"] = args.extract_to
            report["extraction_problems"] = problems
    except TriageError as exc:
        print(f"error: {args.archive}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    finish(report)
    text = json.dumps(report, indent=2)
    if args.inventory:
        Path(args.inventory).write_text(text + "\n", encoding="utf-8")
        print(f"{report['format']} archive, {len(report['members'])} members, verdict {report['verdict']} "
              f"{report['flag_counts']}; inventory: {args.inventory}", file=sys.stderr)
    else:
        print(text)
    return EXIT_UNSAFE if report["verdict"] == "unsafe" or problems else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
