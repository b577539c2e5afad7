# SPDX-License-Identifier: Apache-2.0
"""Splits the connector jars of every Spark line into what the Python wheel carries.

Each line's jar (the assembly, as published to Maven) holds the connector's own classes for that Spark and
Scala version, and the shaded AWS SDK, Netty and HttpClient, which are the same bytes in every line's jar and
most of its size. The wheel carries each line's own classes (``spark-kinesis-<line>-<version>-classes.jar``)
and the shared part once (``spark-kinesis-<version>-dependencies.jar``); ``configure_spark_with_kinesis``
puts the two a line needs on a session. The split refuses jars whose shared parts differ.

    python dev/wheel_jars.py <output dir> <version> <line>=<jar> [<line>=<jar> ...]
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

# The connector's own entries: its classes (not those shaded under its package) and its service file.
# Its classes may differ by line (the shims); the rest of a jar must not.
OWN_PREFIXES = (
    "io/github/sparkkinesis/",
    "org/apache/spark/sparkkinesis/",
    "org/apache/spark/sql/sparkkinesis/",
)
SHADED_PREFIX = "io/github/sparkkinesis/shaded/"
OWN_FILES = ("META-INF/services/org.apache.spark.sql.sources.DataSourceRegister",)
# A fixed time for every entry, so that the same classes make the same jar.
FIXED_TIME = (2020, 1, 1, 0, 0, 0)


def is_own(name: str) -> bool:
    if name.startswith(SHADED_PREFIX):
        return False
    return name.startswith(OWN_PREFIXES) or name in OWN_FILES


def write_jar(path: Path, entries: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        manifest = zipfile.ZipInfo("META-INF/MANIFEST.MF", FIXED_TIME)
        out.writestr(manifest, b"Manifest-Version: 1.0\r\n\r\n", zipfile.ZIP_DEFLATED)
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, FIXED_TIME)
            info.external_attr = 0o644 << 16
            out.writestr(info, entries[name], zipfile.ZIP_DEFLATED)


def split(jar: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The jar's own entries and its shared (shaded dependency) entries, directories and manifest left out."""
    own: dict[str, bytes] = {}
    shared: dict[str, bytes] = {}
    with zipfile.ZipFile(jar) as source:
        for info in source.infolist():
            if info.is_dir() or info.filename == "META-INF/MANIFEST.MF":
                continue
            (own if is_own(info.filename) else shared)[info.filename] = source.read(info)
    return own, shared


def main(args: list[str]) -> int:
    if len(args) < 3 or any("=" not in a for a in args[2:]):
        print(__doc__, file=sys.stderr)
        return 2
    out, version = Path(args[0]), args[1]
    out.mkdir(parents=True, exist_ok=True)
    reference: tuple[str, dict[str, bytes]] | None = None
    for pair in args[2:]:
        line, jar = pair.split("=", 1)
        own, shared = split(Path(jar))
        if reference is None:
            reference = (line, shared)
        elif shared != reference[1]:
            differ = sorted(set(shared) ^ set(reference[1])) or sorted(
                n for n in shared if shared[n] != reference[1][n]
            )
            print(
                f"the shared parts of the {reference[0]} and {line} jars differ, e.g. in {differ[:5]}: "
                "every line must shade the same dependencies",
                file=sys.stderr,
            )
            return 1
        write_jar(out / f"spark-kinesis-{line}-{version}-classes.jar", own)
    assert reference is not None
    write_jar(out / f"spark-kinesis-{version}-dependencies.jar", reference[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
