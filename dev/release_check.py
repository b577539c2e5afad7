# SPDX-License-Identifier: Apache-2.0
"""Checks a staged release as Maven Central and PyPI would, before anything is sent (dev/release-check).

    python dev/release_check.py version                  the version: Python's form, then Maven's
    python dev/release_check.py tag v0.1.0               the tag names the version of _version.py
    python dev/release_check.py readme                   the README's coordinates name the version
    python dev/release_check.py verify --maven DIR --bundle ZIP --python DIR --fingerprint FPR

``verify`` checks, for every Spark line of project/spark-lines.tsv, the Maven layout that publishSigned
staged (``io/github/sparkkinesis/spark-kinesis-<line>/<version>/``): the jar, sources jar, javadoc jar and
pom, each with a good signature by the key FPR and right MD5, SHA-1, SHA-256 and SHA-512 files; the pom's
fields that Maven Central requires and no dependency (the jar shades what it needs, Spark provides the rest);
the jar's classes all under the connector's packages; nothing staged besides; and that the bundle zip holds
exactly the staged files. Then the Python distributions: one wheel and one sdist of the version, their
metadata (no dependency outside the extras ``spark`` and ``connect``), every line's jar in both, and
``twine check --strict``. It prints every problem it finds and exits 1 if there is one.
"""

from __future__ import annotations

import argparse
import email.message
import email.parser
import hashlib
import re
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ElementTree
import zipfile
from pathlib import Path

import spark_lines
import wheel_jars

ROOT = Path(__file__).resolve().parent.parent
VERSION_FILE = ROOT / "python" / "src" / "pyspark_kinesis" / "_version.py"
GROUP_PATH = "io/github/sparkkinesis"
CHECKSUMS = {"md5": hashlib.md5, "sha1": hashlib.sha1, "sha256": hashlib.sha256, "sha512": hashlib.sha512}
# Where the connector's classes are, the shaded dependencies (below io/github/sparkkinesis/shaded) included.
OWN_CLASS_PREFIXES = wheel_jars.OWN_PREFIXES
# The pom fields Maven Central requires, as paths below <project>.
POM_FIELDS = (
    "name",
    "description",
    "url",
    "licenses/license/name",
    "licenses/license/url",
    "developers/developer/name",
    "scm/url",
    "scm/connection",
)
# What the wheel may require, by extra: nothing without one.
MEANT_REQUIREMENTS = {"spark": {"pyspark"}, "connect": {"pyspark-client"}}


# ---- the version ----


def python_version() -> str:
    """``__version__`` of python/src/pyspark_kinesis/_version.py, the project's one version."""
    found = re.search(r'^__version__\s*=\s*"([^"]+)"', VERSION_FILE.read_text(), re.MULTILINE)
    if not found:
        raise SystemExit(f'{VERSION_FILE}: no line __version__ = "X.Y.Z"')
    return found.group(1)


def maven_version(pep440: str) -> str:
    """The Maven form of a version, as project/ProjectVersion.scala makes it: X.Y.Z, or X.Y.Z-SNAPSHOT for
    X.Y.Z.devN."""
    if re.fullmatch(r"\d+\.\d+\.\d+", pep440):
        return pep440
    development = re.fullmatch(r"(\d+\.\d+\.\d+)\.dev\d+", pep440)
    if development:
        return f"{development.group(1)}-SNAPSHOT"
    raise SystemExit(f"{VERSION_FILE}: {pep440} is neither X.Y.Z nor X.Y.Z.devN")


def check_tag(tag: str) -> list[str]:
    """A release tag is vX.Y.Z and names the version the tagged commit's _version.py holds."""
    named = re.fullmatch(r"v(\d+\.\d+\.\d+)", tag)
    if not named:
        return [f"tag {tag}: a release tag is vX.Y.Z, such as v0.1.0"]
    version = python_version()
    if version != named.group(1):
        return [
            f"tag {tag} names version {named.group(1)}, and {VERSION_FILE.relative_to(ROOT)} of the tagged "
            f'commit says {version}: tag a commit that sets __version__ = "{named.group(1)}"'
        ]
    return []


# ---- Maven Central ----


def digest(path: Path, algorithm: str) -> str:
    hasher = CHECKSUMS[algorithm]()
    with path.open("rb") as data:
        for chunk in iter(lambda: data.read(1 << 20), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def signature_problems(path: Path, fingerprint: str) -> list[str]:
    """Whether ``path.asc`` is a good signature of ``path`` by the key ``fingerprint`` (gpg --verify)."""
    signature = Path(f"{path}.asc")
    if not signature.is_file():
        return [f"{signature.name} is missing"]
    verified = subprocess.run(
        ["gpg", "--batch", "--status-fd", "1", "--verify", str(signature), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    signers = {
        field
        for status in verified.stdout.splitlines()
        if status.startswith("[GNUPG:] VALIDSIG ")
        # The signing key's fingerprint, and the primary key's last (they differ when a subkey signs).
        for field in (status.split()[2], status.split()[-1])
    }
    if verified.returncode != 0 or fingerprint.upper() not in {s.upper() for s in signers}:
        last = (verified.stderr.strip().splitlines() or ["no output"])[-1]
        return [f"{signature.name} is not a good signature by {fingerprint}: {last}"]
    return []


def pom_problems(pom: Path, artifact: str, version: str) -> list[str]:
    project = ElementTree.parse(pom).getroot()
    # The POM's XML namespace, as the file declares it ("{namespace}project"), is the prefix of every tag.
    namespace = project.tag[: -len("project")]
    if not project.tag.endswith("project"):
        return [f"{pom.name}: its root element is <{project.tag}>, not <project>"]

    def text(path: str) -> str:
        found = project.find("/".join(namespace + step for step in path.split("/")))
        return (found.text or "").strip() if found is not None else ""

    problems = [
        f"{pom.name}: <{field}> is {text(field)!r}, expected {expected!r}"
        for field, expected in (
            ("groupId", "io.github.sparkkinesis"),
            ("artifactId", artifact),
            ("version", version),
            ("packaging", "jar"),
        )
        if text(field) != expected
    ]
    problems += [f"{pom.name}: <{field}> is missing or empty" for field in POM_FIELDS if not text(field)]
    if project.find(namespace + "dependencies") is not None:
        problems.append(f"{pom.name}: lists dependencies; the jar shades what it needs and Spark the rest")
    return problems


def jar_problems(jar: Path, kind: str) -> list[str]:
    with zipfile.ZipFile(jar) as archive:
        names = archive.namelist()
    if kind == "sources":
        ok = any(n.startswith(f"{GROUP_PATH}/") and n.endswith((".scala", ".java")) for n in names)
        return [] if ok else [f"{jar.name}: no connector sources"]
    if kind == "javadoc":
        return [] if "index.html" in names else [f"{jar.name}: no index.html"]
    problems = [
        f"{jar.name}: no {entry}"
        for entry in (
            "META-INF/LICENSE",
            "META-INF/NOTICE",
            "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister",
        )
        if entry not in names
    ]
    foreign = sorted(n for n in names if n.endswith(".class") and not n.startswith(OWN_CLASS_PREFIXES))
    if foreign:
        problems.append(
            f"{jar.name}: {len(foreign)} classes outside the connector's packages (not shaded), "
            f"such as {foreign[:3]}"
        )
    return problems


def maven_problems(staging: Path, version: str, fingerprint: str) -> tuple[list[str], list[Path]]:
    """The problems of the staged Maven layout, and the files it should hold."""
    problems: list[str] = []
    expected: list[Path] = []
    for line in spark_lines.ids():
        artifact = f"spark-kinesis-{line}"
        folder = staging / GROUP_PATH / artifact / version
        for suffix, kind in (
            (".jar", "jar"),
            ("-sources.jar", "sources"),
            ("-javadoc.jar", "javadoc"),
            (".pom", "pom"),
        ):
            path = folder / f"{artifact}-{version}{suffix}"
            expected.append(path)
            if not path.is_file():
                problems.append(f"{path.relative_to(staging)} is missing")
                continue
            for algorithm in CHECKSUMS:
                checksum = Path(f"{path}.{algorithm}")
                expected.append(checksum)
                if not checksum.is_file():
                    problems.append(f"{checksum.name} is missing")
                elif checksum.read_text().split()[0:1] != [digest(path, algorithm)]:
                    problems.append(f"{checksum.name} does not match {path.name}")
            expected.append(Path(f"{path}.asc"))
            problems += signature_problems(path, fingerprint)
            problems += pom_problems(path, artifact, version) if kind == "pom" else jar_problems(path, kind)
    # A signature's own checksums (publishing writes them too) are allowed; anything else is not.
    allowed = set(expected) | {Path(f"{p}.{a}") for p in expected if p.suffix == ".asc" for a in CHECKSUMS}
    extra = sorted(p for p in staging.rglob("*") if p.is_file() and p not in allowed)
    problems += [f"{p.relative_to(staging)} is staged but not part of the release" for p in extra]
    return problems, sorted(p for p in staging.rglob("*") if p.is_file())


def bundle_problems(bundle: Path, staging: Path, staged: list[Path]) -> list[str]:
    """The bundle is the staged folder zipped, file for file (what sonaUpload sends)."""
    if not bundle.is_file():
        return [f"{bundle} is missing"]
    with zipfile.ZipFile(bundle) as archive:
        entries = {i.filename: i for i in archive.infolist() if not i.is_dir()}
        wanted = {p.relative_to(staging).as_posix(): p for p in staged}
        problems = [f"{bundle.name}: {n} is not staged" for n in sorted(set(entries) - set(wanted))]
        problems += [f"{bundle.name}: {n} is missing" for n in sorted(set(wanted) - set(entries))]
        for name in sorted(set(entries) & set(wanted)):
            if archive.read(name) != wanted[name].read_bytes():
                problems.append(f"{bundle.name}: {name} differs from the staged file")
    return problems


# The README's coordinates: "io.github.sparkkinesis:spark-kinesis-<line>:<version>", a jar's file name
# "spark-kinesis-<line>-<version>.jar", and a jar named with its version, "(spark-kinesis-<line> <version>)".
README_COORDINATES = re.compile(
    r"io\.github\.sparkkinesis:spark-kinesis-\d+\.\d+_\d+\.\d+:(?P<artifact>[\w.-]+?)(?=[\s`\\]|$)"
    r"|spark-kinesis-\d+\.\d+_\d+\.\d+-(?P<file>\d[\w.-]*?)\.jar"
    r"|\(spark-kinesis-\d+\.\d+_\d+\.\d+\s+(?P<named>\d[\w.-]*)\)"
)


def readme_problems(version: str) -> list[str]:
    """The README's coordinates name the current version."""
    readme = ROOT / "README.md"
    text = readme.read_text()
    problems = []
    for found in README_COORDINATES.finditer(text):
        named = found.group("artifact") or found.group("file") or found.group("named")
        if named != version:
            line = text.count("\n", 0, found.start()) + 1
            problems.append(f"README.md:{line}: {found.group(0)!r} names {named}; the version is {version}")
    return problems


# ---- PyPI ----


def requirement_problems(metadata: email.message.Message, where: str) -> list[str]:
    problems = []
    for requirement in metadata.get_all("Requires-Dist") or []:
        name = re.match(r"[A-Za-z0-9._-]+", requirement)
        extra = re.search(r"""extra\s*==\s*["']([^"']+)["']""", requirement)
        if extra is None:
            problems.append(f"{where}: requires {requirement!r} without an extra (nothing is meant there)")
        elif name is None or name.group(0).lower() not in MEANT_REQUIREMENTS.get(extra.group(1), set()):
            problems.append(f"{where}: requires {requirement!r}, which is not meant")
    return problems


def python_problems(dist: Path, version: str, maven: str) -> list[str]:
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    wheel_name, sdist_name = (
        f"pyspark_kinesis-{version}-py3-none-any.whl",
        f"pyspark_kinesis-{version}.tar.gz",
    )
    if [w.name for w in wheels] != [wheel_name] or [s.name for s in sdists] != [sdist_name]:
        return [
            f"{dist}: expected {wheel_name} and {sdist_name} alone, found {[p.name for p in wheels + sdists]}"
        ]
    jars = {f"spark-kinesis-{line}-{maven}-classes.jar" for line in spark_lines.ids()}
    jars.add(f"spark-kinesis-{maven}-dependencies.jar")
    problems: list[str] = []

    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        info = f"pyspark_kinesis-{version}.dist-info"
        metadata = email.parser.BytesParser().parsebytes(wheel.read(f"{info}/METADATA"))
    problems += [f"{wheel_name}: no {j}" for j in sorted(jars) if f"pyspark_kinesis/jars/{j}" not in names]
    problems += [
        f"{wheel_name}: no {n}"
        for n in (
            "pyspark_kinesis/py.typed",
            "pyspark_kinesis/_options.json",
            "pyspark_kinesis/_error_conditions.json",
        )
        if n not in names
    ]
    licences = {n.rsplit("/", 1)[-1] for n in names if n.startswith(f"{info}/")}
    problems += [f"{wheel_name}: no {n} in {info}" for n in ("LICENSE", "NOTICE") if n not in licences]
    for field, expected in (
        ("Name", "pyspark-kinesis"),
        ("Version", version),
        ("License-Expression", "Apache-2.0"),
    ):
        if metadata.get(field) != expected:
            problems.append(f"{wheel_name}: {field} is {metadata.get(field)!r}, expected {expected!r}")
    for field in ("Summary", "Requires-Python", "Project-URL"):
        if not metadata.get(field):
            problems.append(f"{wheel_name}: no {field}")
    problems += requirement_problems(metadata, wheel_name)

    with tarfile.open(sdists[0]) as sdist:
        members = {m.name.split("/", 1)[-1] for m in sdist.getmembers() if m.isfile()}
    problems += [
        f"{sdist_name}: no {n}"
        for n in ["pyproject.toml", "PKG-INFO", "README.md", "LICENSE", "NOTICE"]
        + [f"src/pyspark_kinesis/jars/{j}" for j in sorted(jars)]
        if n not in members
    ]

    twine = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheels[0]), str(sdists[0])],
        capture_output=True,
        text=True,
        check=False,
    )
    if twine.returncode != 0:
        problems.append(f"twine check --strict: {(twine.stdout + twine.stderr).strip()}")
    return problems


# ---- the command line ----


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dev/release_check.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("version", help="print the version, Python's form then Maven's")
    tag = commands.add_parser("tag", help="check that a release tag names the version of _version.py")
    tag.add_argument("tag")
    commands.add_parser("readme", help="check that the README's coordinates name the version")
    verify = commands.add_parser("verify", help="check the staged release")
    verify.add_argument("--maven", type=Path, required=True, help="the staging folder (Maven layout)")
    verify.add_argument("--bundle", type=Path, required=True, help="the bundle zip of that folder")
    verify.add_argument("--python", type=Path, required=True, help="the folder of the wheel and the sdist")
    verify.add_argument("--fingerprint", required=True, help="the fingerprint of the signing key")
    args = parser.parse_args(argv)

    version = python_version()
    if args.command == "version":
        print(version, maven_version(version))
        return 0
    problems = check_tag(args.tag) if args.command == "tag" else []
    if args.command == "readme":
        problems += readme_problems(maven_version(version))
    if args.command == "verify":
        maven = maven_version(version)
        found, staged = maven_problems(args.maven, maven, args.fingerprint)
        problems += found + bundle_problems(args.bundle, args.maven, staged)
        problems += python_problems(args.python, version, maven)
        problems += readme_problems(maven)
        if not problems:
            print(
                f"{len(spark_lines.ids())} Spark lines' jar, sources, javadoc and pom ({maven}) signed, with "
                f"checksums and the pom's required fields, {len(staged)} files in {args.bundle.name}; "
                f"the wheel and sdist ({version}) pass twine check --strict; the README's coordinates "
                "name the version"
            )
    for problem in problems:
        print(f"release check: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
