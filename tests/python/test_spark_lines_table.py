# SPDX-License-Identifier: Apache-2.0
"""dev/spark_lines.py, the scripts' and CI's reader of project/spark-lines.tsv: what its commands print, and
that it refuses a malformed table as project/SparkLines.scala does. No Spark."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import spark_lines
from conftest import ROOT

SCRIPT = ROOT / "dev" / "spark_lines.py"
HEADER = "# line spark scala java python jars shims connect\n"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def test_the_commands_print_what_the_table_says() -> None:
    rows = [
        row.split()
        for row in (ROOT / "project" / "spark-lines.tsv").read_text().splitlines()
        if row.strip() and not row.startswith("#")
    ]
    assert run("ids").stdout.split() == [row[0] for row in rows]
    assert run("primary").stdout.strip() == rows[0][0]
    assert json.loads(run("json").stdout) == [row[0] for row in rows]
    assert " " not in run("json").stdout.strip()
    for row in rows:
        assert run("field", row[0], "python").stdout.strip() == row[4]
        assert run("field", row[0], "shims").stdout.strip() == row[6]


def test_an_unknown_line_or_column_fails_silently_and_a_bad_command_shows_the_usage() -> None:
    for args in (("field", "9.9_2.13", "spark"), ("field", spark_lines.primary(), "colour")):
        done = run(*args)
        assert (done.returncode, done.stdout, done.stderr) == (1, "", "")
    done = run("lines")
    assert done.returncode == 2
    assert "usage:" in done.stderr


def test_a_malformed_table_is_refused_naming_the_row(tmp_path: Path) -> None:
    table = tmp_path / "spark-lines.tsv"
    table.write_text(HEADER + "4.3_2.13 4.3.0 2.13.18 17 3.11 pyspark spark-4.0+\n")
    with pytest.raises(spark_lines.TableError, match="expected 8 columns, got 7"):
        spark_lines.read(table)
    table.write_text(HEADER + "3.5_2.12 3.5.9 2.12.18 11 3.9 ivy spark-3.5 -\n")
    with pytest.raises(spark_lines.TableError, match="jars is maven or pyspark, not ivy"):
        spark_lines.read(table)
    table.write_text(HEADER + "3.5_2.12 3.5.9 2.12.18 11 3.9 maven spark-3.5 pyspark\n")
    with pytest.raises(spark_lines.TableError, match="connect is pyspark exactly when jars is"):
        spark_lines.read(table)
    table.write_text(HEADER)
    with pytest.raises(spark_lines.TableError, match="no Spark line"):
        spark_lines.read(table)


def test_the_built_jar_is_the_assembly_not_the_tests_sources_or_javadoc(tmp_path: Path) -> None:
    folder = tmp_path / "connector-jvm" / "target" / "3.5_2.12" / "scala-2.12"
    assert spark_lines.built_jar("3.5_2.12", root=tmp_path) is None
    folder.mkdir(parents=True)
    for suffix in ("-tests", "-sources", "-javadoc", ""):
        (folder / f"spark-kinesis-3.5_2.12-0.1.0{suffix}.jar").touch()
    assert spark_lines.built_jar("3.5_2.12", root=tmp_path) == folder / "spark-kinesis-3.5_2.12-0.1.0.jar"
