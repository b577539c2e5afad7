# SPDX-License-Identifier: Apache-2.0
"""The documentation: every relative link of README.md and of the Markdown under docs/ (the MkDocs site's
pages, whose links MkDocs resolves relative to the page as GitHub does) names a file that exists, and every
#anchor names a heading of its file as GitHub makes anchors of headings (mkdocs.yml makes them the same
way); a link to this repository's files on GitHub names a file that exists here; every ```python block
parses; and the README's table of the options used most agrees with the generated reference. No Spark."""

from __future__ import annotations

import ast
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
SETEXT_UNDERLINE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
# [text](target) and ![alt](target); the text may hold `code` and one level of brackets.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)")
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"""<a\s[^>]*\b(?:name|id)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
# A link to a file or folder of this repository on GitHub, as the site's pages link what lies outside docs/.
REPOSITORY_URL = re.compile(r"^https://github\.com/sparkkinesis/spark-kinesis/(?:blob|tree)/main/([^#?]+)")


def documents() -> list[Path]:
    """README.md and every Markdown file under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1, with their code spans blanked out."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)[0] * len(opening.group(1))
            continue
        if fence is not None:
            if line.strip().startswith(fence) and set(line.strip()) <= {fence[0]}:
                fence = None
            continue
        lines.append((number, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: its text without Markdown, lowercase, each space a '-', and every other
    character but letters, digits, '-' and '_' dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays, its target goes
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    kept = []
    for char in text.strip().lower():
        if char == " ":
            kept.append("-")
        elif char.isalnum() or char in "-_":
            kept.append(char)
    return "".join(kept)


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file: its headings' (a repeated one gets -1, -2, ... as on GitHub) and those
    of HTML <a name=...> or id=... in it."""
    text = path.read_text(encoding="utf-8")
    found: set[str] = set()
    seen: dict[str, int] = {}
    lines = prose_lines(text)
    raw = text.splitlines()
    headings: list[str] = []
    for index, (number, line) in enumerate(lines):
        atx = ATX_HEADING.match(line)
        if atx:
            headings.append(raw[number - 1].strip().lstrip("#").strip().rstrip("#").strip())
            continue
        following = lines[index + 1] if index + 1 < len(lines) else None
        if (
            following is not None
            and following[0] == number + 1
            and SETEXT_UNDERLINE.match(following[1])
            and line.strip()
            and not line.lstrip().startswith(("|", "-", "*", ">"))
        ):
            headings.append(raw[number - 1].strip())
    for heading in headings:
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    found.update(HTML_ANCHOR.findall(text))
    return found


@dataclass(frozen=True)
class Link:
    document: Path
    line: int
    target: str

    def __str__(self) -> str:
        shown = self.document.relative_to(ROOT) if ROOT in self.document.parents else self.document
        return f"{shown}:{self.line}: {self.target}"


def links(document: Path) -> list[Link]:
    """The links of a Markdown file that point into the repository: not URLs with a scheme."""
    found = []
    for number, line in prose_lines(document.read_text(encoding="utf-8")):
        targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            targets.append(definition.group(1))
        for target in targets:
            target = target.strip("<>")
            in_repository = REPOSITORY_URL.match(target)
            if in_repository:
                # Checked as a link from the repository's root to that path (its anchor, if any, too).
                anchor = target.partition("#")[2]
                found.append(
                    Link(document, number, "/" + in_repository.group(1) + (f"#{anchor}" if anchor else ""))
                )
            elif target and not SCHEME.match(target) and not target.startswith("//"):
                found.append(Link(document, number, target))
    return found


def problem(link: Link, anchors_of: dict[Path, set[str]], root: Path) -> str | None:
    """What is wrong with a relative link of a document of the repository at ``root``, or None."""
    path_part, _, anchor = link.target.partition("#")
    path_part = urllib.parse.unquote(path_part.split("?", 1)[0])
    if path_part.startswith("/"):
        target = root / path_part.lstrip("/")
    elif path_part:
        target = link.document.parent / path_part
    else:
        target = link.document
    target = target.resolve()
    if not target.exists():
        return f"{link}: no such file {target}"
    if root.resolve() not in (target, *target.parents):
        return f"{link}: {target} is outside the repository"
    if anchor:
        if target.suffix.lower() != ".md" or not target.is_file():
            return f"{link}: an anchor into {target.name}, which is no Markdown file"
        if target not in anchors_of:
            anchors_of[target] = anchors(target)
        if urllib.parse.unquote(anchor) not in anchors_of[target]:
            return f"{link}: {target.name} has no heading whose anchor is #{anchor}"
    return None


def problems(documents_: list[Path], root: Path = ROOT) -> list[str]:
    """What is wrong with the relative links of these documents of the repository at ``root``."""
    anchors_of: dict[Path, set[str]] = {}
    found = []
    for document in documents_:
        for link in links(document):
            wrong = problem(link, anchors_of, root)
            if wrong:
                found.append(wrong)
    return found


def test_every_relative_link_and_anchor_of_the_documentation_resolves() -> None:
    checked = documents()
    assert (ROOT / "README.md") in checked and len(checked) >= 2
    assert sum(len(links(d)) for d in checked) > 20, "the links were found"
    wrong = problems(checked)
    assert not wrong, "broken links:\n" + "\n".join(wrong)


def test_every_guide_is_linked_from_the_readme() -> None:
    readme = {urllib.parse.unquote(link.target.partition("#")[0]) for link in links(ROOT / "README.md")}
    guides = sorted((ROOT / "docs" / "guides").glob("*.md"))
    assert guides, "docs/guides has guides"
    missing = [g.relative_to(ROOT).as_posix() for g in guides if g.relative_to(ROOT).as_posix() not in readme]
    assert not missing, f"the README links no guide {missing}"


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Real-time mode (Spark 4.1 and later)", "real-time-mode-spark-41-and-later"),
        ("Credentials and permissions", "credentials-and-permissions"),
        ("`Trigger.AvailableNow`", "triggeravailablenow"),
        ("Spark lines: which artifact for which Spark", "spark-lines-which-artifact-for-which-spark"),
        ("EMR 8.0 / Glue 6.0", "emr-80--glue-60"),
        ("kinesis.region and kinesis_region", "kinesisregion-and-kinesis_region"),
        ("A [linked](https://example.org) heading", "a-linked-heading"),
    ],
)
def test_anchors_are_made_as_github_makes_them(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_a_missing_file_a_missing_heading_and_a_repeated_heading_are_told_apart(tmp_path: Path) -> None:
    # The checker itself, on a document of its own: what it must flag, and what it must let through.
    (tmp_path / "other.md").write_text("# Title\n\nSetext heading\n--------------\n", encoding="utf-8")
    document = tmp_path / "doc.md"
    document.write_text(
        '# Usage\n\n## Usage\n\n<a name="custom"></a>\n\n'
        "[ok](#usage) [ok](#usage-1) [ok](#custom) [ok](other.md#setext-heading) [ok](other.md)\n"
        "[bad](#usage-2) [bad](missing.md) [bad](other.md#nothing) ![bad](img/none.png)\n"
        "```\n[not a link](nowhere.md)\n```\n"
        "`[not a link](nowhere.md)` [web](https://example.org/x.md) [outside](../x.md)\n",
        encoding="utf-8",
    )
    (tmp_path.parent / "x.md").touch()
    wrong = problems([document], root=tmp_path)
    assert len(wrong) == 5, wrong
    assert any("outside the repository" in w for w in wrong)
    assert any("#usage-2" in w for w in wrong)
    assert any("missing.md" in w for w in wrong)
    assert any("#nothing" in w for w in wrong)
    assert any("none.png" in w for w in wrong)


def python_blocks(document: Path) -> list[tuple[int, str]]:
    """The ```python blocks of a Markdown file: the line of each block's first line of code, and its code
    (indented blocks, in a list item, taken out of their indentation)."""
    blocks: list[tuple[int, str]] = []
    lines = document.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = re.match(r"^(\s*)(`{3,})\s*python\s*$", lines[index])
        index += 1
        if not opening:
            continue
        indent, fence = opening.group(1), opening.group(2)
        first, code = index + 1, []
        while index < len(lines) and lines[index].strip() != fence:
            line = lines[index]
            code.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            index += 1
        index += 1
        blocks.append((first, "\n".join(code)))
    return blocks


def test_every_python_example_of_the_documentation_is_valid_python() -> None:
    checked, wrong = 0, []
    # The Python package's README too: it is the package's page on the package index.
    for document in [*documents(), ROOT / "python" / "README.md"]:
        for line, code in python_blocks(document):
            checked += 1
            try:
                ast.parse(code, filename=str(document))
            except SyntaxError as error:
                shown = document.relative_to(ROOT)
                wrong.append(
                    f"{shown}:{line + (error.lineno or 1) - 1}: {error.msg} (the block at line {line})"
                )
    assert checked > 10, "the python blocks were found"
    assert not wrong, "python blocks that do not parse:\n" + "\n".join(wrong)


def test_python_blocks_are_found_with_their_lines(tmp_path: Path) -> None:
    document = tmp_path / "doc.md"
    document.write_text(
        "text\n\n```python\nx = 1\n```\n\n- item\n\n  ```python\n  y = (\n  ```\n", encoding="utf-8"
    )
    assert python_blocks(document) == [(4, "x = 1"), (10, "y = (")]


def option_rows(text: str) -> dict[str, str]:
    """The rows of the option tables in a Markdown text: key to default ("" for none)."""
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]*) \|", text, re.MULTILINE)
    return {key: default.strip().strip("`") for key, default in rows}


def test_the_readmes_options_used_most_have_the_defaults_of_the_generated_reference() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## The options used most") :]
    section = section[: section.index("\n## ", 1)]
    used_most = option_rows(section)
    reference = option_rows((ROOT / "docs" / "reference" / "options.md").read_text(encoding="utf-8"))
    assert len(used_most) >= 8, used_most
    for key, default in used_most.items():
        assert key in reference, f"README's option {key} is not in docs/reference/options.md"
        assert default == reference[key], (
            f"README says {key} defaults to {default!r}, the reference {reference[key]!r}"
        )


def test_every_page_of_the_site_is_in_its_nav() -> None:
    # MkDocs' strict build says so too (dev/docs); this says it without MkDocs.
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    named = set(re.findall(r":\s*\"?([\w./-]+\.md)\"?\s*$", config, re.MULTILINE))
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages == named, (
        f"pages not in the nav: {sorted(pages - named)}; in the nav, not pages: {sorted(named - pages)}"
    )


def test_the_coordinates_of_every_page_name_the_current_version() -> None:
    # dev/release_check.py readme checks the README's; the pages under docs/ name the same coordinates.
    import sys

    sys.path.insert(0, str(ROOT / "dev"))
    import release_check

    version = release_check.maven_version(release_check.python_version())
    wrong = []
    for document in documents():
        text = document.read_text(encoding="utf-8")
        for found in release_check.README_COORDINATES.finditer(text):
            named = found.group("artifact") or found.group("file") or found.group("named")
            if named != version:
                line = text.count("\n", 0, found.start()) + 1
                wrong.append(
                    f"{document.relative_to(ROOT)}:{line}: {found.group(0)!r} names {named}, not {version}"
                )
    assert not wrong, "\n".join(wrong)


def test_the_dashboards_and_alarms_are_what_cloudformation_grafana_and_prometheus_take() -> None:
    import subprocess
    import sys

    import promql_parser
    from dashboards import CLOUDWATCH_TEMPLATE, alert_expressions, cloudwatch_dashboard, grafana_expressions

    linted = subprocess.run(
        [str(Path(sys.executable).parent / "cfn-lint"), str(CLOUDWATCH_TEMPLATE)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert linted.returncode == 0, linted.stdout + linted.stderr
    widgets = cloudwatch_dashboard({"QueryName": "orders", "StreamName": "orders"})["widgets"]
    assert {w["properties"]["title"] for w in widgets} >= {"Lag behind the newest record (ms)", "Alarms"}
    for expression in [
        *grafana_expressions("orders", "kinesis_orders_orders"),
        *alert_expressions().values(),
    ]:
        promql_parser.parse(expression)  # raises on what Prometheus would refuse
