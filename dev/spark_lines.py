# SPDX-License-Identifier: Apache-2.0
"""The Spark lines of project/spark-lines.tsv, for the scripts: the one reader of the table outside the build
(build.sbt reads it through project/SparkLines.scala, and checks it the same way).

    python3 dev/spark_lines.py ids                    the lines' ids, one a line, the primary one first
    python3 dev/spark_lines.py primary                the primary line's id (the first row)
    python3 dev/spark_lines.py field <line> <column>  one column of a line (exit 1, silent, if there is none)
    python3 dev/spark_lines.py jar [<line>]           the connector jar sbt assembled for the line (by
                                                      default the primary one); nothing if it was not built
    python3 dev/spark_lines.py json                   the ids as a compact JSON list (CI's job matrix)

The standard library only, and Python 3.9 or newer: the scripts run it with the machine's python3 before any
environment of the project exists. Importable too: dev/release_check.py and tests/python/conftest.py do.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "project" / "spark-lines.tsv"
COLUMNS = ("line", "spark", "scala", "java", "python", "jars", "shims", "connect")


class TableError(ValueError):
    """project/spark-lines.tsv is malformed."""


@dataclasses.dataclass(frozen=True)
class SparkLine:
    """One row of the table, each column as written (``shims`` is comma-separated there)."""

    line: str
    spark: str
    scala: str
    java: str
    python: str
    jars: str
    shims: str
    connect: str

    @property
    def project(self) -> str:
        """The line's sbt project: ``3.5_2.12`` is ``spark35_212``."""
        return "spark" + self.line.replace(".", "")

    @property
    def shim_folders(self) -> tuple[str, ...]:
        """The version-specific source folders the line compiles (``spark-4.1+``, ...)."""
        return tuple(self.shims.split(","))

    def field(self, column: str) -> str:
        """The column named ``column`` (one of COLUMNS), as the table writes it."""
        if column not in COLUMNS:
            raise KeyError(column)
        value: str = getattr(self, column)
        return value


def read(table: Path = TABLE) -> list[SparkLine]:
    """The rows of the table, in order: blank lines and ``#`` comments skipped, eight columns each."""
    lines = []
    for row in table.read_text(encoding="utf-8").splitlines():
        row = row.strip()
        if not row or row.startswith("#"):
            continue
        cells = row.split()
        if len(cells) != len(COLUMNS):
            raise TableError(f"{table}: expected {len(COLUMNS)} columns, got {len(cells)} in: {row}")
        line = SparkLine(*cells)
        if line.jars not in ("maven", "pyspark"):
            raise TableError(f"{table}: jars is maven or pyspark, not {line.jars}")
        if (line.connect == "pyspark") != (line.jars == "pyspark"):
            raise TableError(f"{table}: connect is pyspark exactly when jars is, in: {row}")
        lines.append(line)
    if not lines:
        raise TableError(f"{table}: no Spark line")
    return lines


def ids(table: Path = TABLE) -> list[str]:
    """The lines' ids, the primary one first."""
    return [line.line for line in read(table)]


def primary(table: Path = TABLE) -> str:
    """The primary line's id: the first row, on which the whole test suite runs."""
    return read(table)[0].line


def find(line_id: str, table: Path = TABLE) -> SparkLine | None:
    """The line with this id, if the table has it."""
    return next((line for line in read(table) if line.line == line_id), None)


def built_jar(line_id: str, root: Path = ROOT) -> Path | None:
    """The connector jar sbt assembled for a line (``connector-jvm/target/<line>/scala-*/``), if it did: not
    the tests, sources or javadoc jar; of several versions' jars, the last in sort order."""
    jars = [
        jar
        for jar in sorted(root.glob(f"connector-jvm/target/{line_id}/scala-*/spark-kinesis-{line_id}-*.jar"))
        if not jar.name.endswith(("-tests.jar", "-sources.jar", "-javadoc.jar"))
    ]
    return jars[-1] if jars else None


USAGE = "usage: spark_lines.py ids | primary | field <line> <column> | jar [<line>] | json"


def main(argv: list[str]) -> int:
    command, args = (argv[0], argv[1:]) if argv else ("", [])
    if command == "ids" and not args:
        print("\n".join(ids()))
    elif command == "primary" and not args:
        print(primary())
    elif command == "json" and not args:
        print(json.dumps(ids(), separators=(",", ":")))
    elif command == "field" and len(args) == 2:
        line = find(args[0])
        if line is None or args[1] not in COLUMNS:
            return 1
        print(line.field(args[1]))
    elif command == "jar" and len(args) <= 1:
        jar = built_jar(args[0] if args else primary())
        if jar is not None:
            print(jar)
    else:
        print(USAGE, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
