#!/usr/bin/env python3
"""Rebuild the sample archives used by SKILL.md and the tests (deterministic bytes).

release.zip   - a release bundle with a path-traversal entry, a duplicate name,
                a highly compressed 2 MiB file and a nested tar.gz
backup.tar.gz - a backup with an absolute path, a traversal, an escaping
                symlink, a FIFO and a normal file
notes.txt.gz  - a harmless single-file gzip
"""

import gzip
import io
import tarfile
import warnings
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAMP = (2024, 5, 1, 12, 0, 0)


def tar_bytes(entries: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for info, data in entries:
            info.mtime = 1714564800
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return gzip.compress(buf.getvalue(), mtime=0)


def file_info(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    return info, data


def main() -> None:
    warnings.filterwarnings("ignore", "Duplicate name", UserWarning)  # the duplicate is deliberate
    libs = tar_bytes([file_info("libs/vendored.txt", b"vendored library placeholder\n")])
    with zipfile.ZipFile(HERE / "release.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in [
            ("release/README.txt", b"Release 1.4.0\n"),
            ("release/bin/tool.sh", b"#!/bin/sh\necho tool\n"),
            ("release/data/zeros.bin", bytes(2 * 1024 * 1024)),
            ("release/vendor/libs.tar.gz", libs),
            ("../outside.txt", b"written outside the extraction directory\n"),
            ("release/README.txt", b"Replaced README\n"),
        ]:
            zf.writestr(zipfile.ZipInfo(name, STAMP), data, zipfile.ZIP_DEFLATED)

    link = tarfile.TarInfo("backup/latest")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    fifo = tarfile.TarInfo("backup/pipe")
    fifo.type = tarfile.FIFOTYPE
    (HERE / "backup.tar.gz").write_bytes(tar_bytes([
        file_info("backup/db.sql", b"CREATE TABLE t (id INTEGER);\n"),
        file_info("/etc/cron.d/backup", b"* * * * * root /tmp/x\n"),
        file_info("backup/../../escape.txt", b"escaped\n"),
        (link, None),
        (fifo, None),
    ]))
    (HERE / "notes.txt.gz").write_bytes(gzip.compress(b"Meeting notes: rotate the API keys.\n", mtime=0))


if __name__ == "__main__":
    main()
