"""A pattern that the seed pool does not hold: what a hardening diagnosis might abstract."""

from __future__ import annotations

from skill2env.patterns.models import Construction, Evidence, InformationBoundary, IntensityLevel, Pattern

NEW = Pattern(
    id="checksum_manifest_mismatch",
    name="Checksum manifest mismatch",
    capability="error_recovery",
    description="A delivered dataset ships with a SHA-256 manifest; two archives fail verification because "
    "a mirror served stale copies, and the fresh copies sit in a quarantine folder with different names.",
    construction=Construction(
        workspace=[
            "delivery/SHA256SUMS: digests of 12 tarballs",
            "delivery/*.tar.gz: 12 tarballs, two of them stale copies from a mirror",
            "quarantine/: fresh copies of the two tarballs under mirror-prefixed names",
        ],
        instruction="Ask for the unpacked, verified dataset in data/ with a verification log.",
        must_not_say=["which tarballs are stale", "that fresh copies exist in quarantine/"],
        evaluator="Checks data/ against the author-only file digests and the log's two replaced archives.",
    ),
    information_boundary=InformationBoundary(
        stated=["the output folder"],
        discoverable=["the manifest", "the quarantine copies"],
        author_only=["the digests of the unpacked files", "the two stale archive names"],
    ),
    evidence=Evidence(
        rubric_check="The unpacked files' digests match the fresh copies, not the stale ones.",
        shortcut="Unpacking every tarball without verifying the manifest.",
        shortcut_signal="no sha256sum -c (or equivalent) before tar -x",
    ),
    intensity=[
        IntensityLevel(level=1, description="One stale archive, the fresh copy keeps its name."),
        IntensityLevel(level=2, description="Two stale archives; fresh copies renamed with a mirror prefix."),
        IntensityLevel(level=3, description="The manifest itself has one wrong line, signed by a second manifest."),
    ],
)
