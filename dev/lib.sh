# Shared set-up for dev/demo and dev/test: installs what the project needs, once, and reuses it afterwards.
# Source it; it defines functions and changes nothing until one is called.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="$ROOT/.venv"
PYSPARK_VERSION=4.3.0

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }

# Keep the AWS SDK and boto3 away from the EC2 instance metadata service: off EC2 it is an address outside
# this machine, and a lookup there only stalls.
export AWS_EC2_METADATA_DISABLED=true
export SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1}

# A Python virtual environment with pyspark, boto3 and the test and lint tools; pip's wheel cache makes a
# rebuilt environment cheap.
ensure_venv() {
  local stamp="$VENV/.installed-$PYSPARK_VERSION-$(sha256sum "$ROOT/python/requirements-dev.txt" | cut -c1-12)"
  if [[ -f "$stamp" ]]; then return; fi
  log "creating the Python environment in .venv (pyspark $PYSPARK_VERSION)"
  [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet "pyspark==$PYSPARK_VERSION" -r "$ROOT/python/requirements-dev.txt"
  "$VENV/bin/python" -m pip install --quiet --no-deps -e "$ROOT/python"
  rm -f "$VENV"/.installed-*
  touch "$stamp"
}

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

# The connector jar; sbt only rebuilds it when a source changed.
connector_jar() {
  ls "$ROOT"/connector-jvm/target/scala-2.13/spark-kinesis_2.13-*.jar 2>/dev/null |
    grep -vE -- '-(tests|sources|javadoc)\.jar$' | head -n 1
}

build_connector_jar() {
  ensure_venv
  log "building the connector jar"
  "$ROOT/dev/sbt" warn connector/assembly >&2
  connector_jar
}
