# SPDX-License-Identifier: Apache-2.0
"""Starts and stops the local Kinesis emulator (kinesis-local, the npm build of kinesis-mock).

Used by the demo and by the Python tests. The emulator listens on free ports; it binds every interface (it
cannot be told otherwise), so it is started with a lifetime limit, a watchdog stops it when the process
that started it is gone, and it is stopped by PID: SIGTERM to its process group first, SIGKILL if it does
not go.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tests" / "node_modules" / "kinesis-local"

# Credentials the emulator accepts; any value works, these say what they are.
FAKE_ACCESS_KEY = "AKIDEMULATOR"
FAKE_SECRET_KEY = "emulator-secret"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Runs a command ($2...) and stops it when the process $1 that started it is gone (checked every second).
_WATCHDOG = """
parent=$1
shift
"$@" &
child=$!
trap 'kill $child 2>/dev/null' EXIT
while kill -0 "$parent" 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1; done
"""


def supervised(name: str, command: list[str], max_lifetime_seconds: int) -> list[str]:
    """`command` as a server of the tests runs it: stopped after `max_lifetime_seconds` (SIGTERM, then SIGKILL
    ten seconds later) or as soon as this process is gone. Start it with ``start_new_session=True``, so that
    :func:`stop_process_group` stops all of it."""
    lifetime = ["timeout", "--signal=TERM", "--kill-after=10", str(max_lifetime_seconds)]
    return [*lifetime, "bash", "-c", _WATCHDOG, name, str(os.getpid()), *command]


def stop_process_group(process: subprocess.Popen[bytes], grace_seconds: float) -> None:
    """Stops a process started by :func:`supervised` in a process group of its own, and everything in that
    group (`timeout`, the watchdog, the server): SIGTERM first, SIGKILL if it does not go."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(grace_seconds)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(grace_seconds)


Server = TypeVar("Server", bound="SupervisedServer")


class SupervisedServer:
    """A server of the tests, started by :func:`supervised` in a process group of its own (``_process``) by
    its subclass's ``start``; a context manager that always stops it."""

    _process: subprocess.Popen[bytes] | None = None
    port = 0

    def start(self: Server) -> Server:
        raise NotImplementedError

    def _launch(
        self,
        what: str,
        command: list[str],
        log_path: Path | None,
        ready: Callable[[], bool],
        timeout_seconds: float,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        detail: Callable[[], str] = lambda: "",
    ) -> None:
        """Starts `command` (made by :func:`supervised`) with its output in `log_path`, and returns once
        `ready` says it is; if it exits or is not ready within `timeout_seconds`, stops it and raises, naming
        `what` and adding `detail()` (such as the end of its log)."""
        log = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
        try:
            self._process = subprocess.Popen(
                command,
                env=env,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            if log is not subprocess.DEVNULL:
                log.close()
        deadline = time.monotonic() + timeout_seconds
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                failure = f"{what} exited with code {self._process.returncode}{detail()}"
                self.stop()
                raise RuntimeError(failure)
            if ready():
                return
            time.sleep(0.2)
        # The detail first: stopping may remove what it reads (a server's own working directory and log).
        failure = f"{what} was not ready on port {self.port} within {timeout_seconds}s{detail()}"
        self.stop()
        raise RuntimeError(failure)

    def stop(self, grace_seconds: float = 5.0) -> None:
        process, self._process = self._process, None
        if process is not None:
            stop_process_group(process, grace_seconds)

    def __enter__(self: Server) -> Server:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class KinesisEmulator(SupervisedServer):
    """One emulator process on free loopback ports; a context manager that always stops it."""

    def __init__(
        self,
        region: str = "us-east-1",
        shard_limit: int = 200,
        max_lifetime_seconds: int = 3 * 3600,
        log_path: Path | None = None,
    ) -> None:
        self.region = region
        self.shard_limit = shard_limit
        self.max_lifetime_seconds = max_lifetime_seconds
        self.log_path = log_path

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_seconds: float = 60.0) -> KinesisEmulator:
        main = PACKAGE / "main.js"
        if not main.exists():
            raise RuntimeError(f"{main} is missing: run `npm ci` in {ROOT / 'tests'} (dev/test does it)")
        self.port = free_port()
        env = dict(os.environ)
        env.update(
            {
                "KINESIS_MOCK_CERT_PATH": str(PACKAGE / "server.json"),
                "KINESIS_MOCK_PLAIN_PORT": str(self.port),
                "KINESIS_MOCK_TLS_PORT": str(free_port()),
                "AWS_REGION": self.region,
                "SHARD_LIMIT": str(self.shard_limit),
                "LOG_LEVEL": "WARN",
                "CREATE_STREAM_DURATION": "100ms",
                "DELETE_STREAM_DURATION": "100ms",
                "REGISTER_STREAM_CONSUMER_DURATION": "100ms",
                "DEREGISTER_STREAM_CONSUMER_DURATION": "100ms",
                "MERGE_SHARDS_DURATION": "100ms",
                "SPLIT_SHARD_DURATION": "100ms",
                "UPDATE_SHARD_COUNT_DURATION": "100ms",
            }
        )
        command = supervised("kinesis-emulator", ["node", str(main)], self.max_lifetime_seconds)
        self._launch("the Kinesis emulator", command, self.log_path, self._answers, timeout_seconds, env=env)
        return self

    def _answers(self) -> bool:
        try:
            self.client().list_streams(Limit=1)
            return True
        except Exception:
            return False

    def client(self):  # type: ignore[no-untyped-def]
        """A boto3 Kinesis client for this emulator."""
        import boto3
        from botocore.config import Config

        return boto3.client(
            "kinesis",
            endpoint_url=self.endpoint,
            region_name=self.region,
            aws_access_key_id=FAKE_ACCESS_KEY,
            aws_secret_access_key=FAKE_SECRET_KEY,
            config=Config(
                retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=2, read_timeout=30
            ),
        )


def wait_for_stream(client, name: str, timeout_seconds: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        status = client.describe_stream_summary(StreamName=name)["StreamDescriptionSummary"]["StreamStatus"]
        if status == "ACTIVE":
            return
        time.sleep(0.1)
    raise RuntimeError(f"stream {name} did not become ACTIVE within {timeout_seconds}s")


if __name__ == "__main__":
    with KinesisEmulator() as emulator:
        print(emulator.endpoint, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 3600)
