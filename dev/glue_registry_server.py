# SPDX-License-Identifier: Apache-2.0
"""Starts and stops an AWS Glue Schema Registry for the Python tests: moto's server, from the test
environment (or the one $MOTO_SERVER names: the other Spark lines' environments, which hold what installs
on Python 3.9, borrow the primary line's), on a free loopback port, supervised as the Kinesis emulator is
(a lifetime limit, a watchdog that stops it when the process that started it is gone, stopped by PID)."""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kinesis_emulator import SupervisedServer, free_port, supervised

# Credentials moto accepts; any value works, these say what they are.
FAKE_ACCESS_KEY = "AKIDGLUETESTS"
FAKE_SECRET_KEY = "glue-tests-secret"


class GlueRegistryServer(SupervisedServer):
    """moto's server on a free loopback port; a context manager that always stops it."""

    def __init__(
        self, region: str = "us-east-1", max_lifetime_seconds: int = 3 * 3600, log_path: Path | None = None
    ) -> None:
        self.region = region
        self.max_lifetime_seconds = max_lifetime_seconds
        self.log_path = log_path

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_seconds: float = 60.0) -> GlueRegistryServer:
        server = Path(os.environ.get("MOTO_SERVER") or Path(sys.executable).parent / "moto_server")
        if not server.exists():
            raise RuntimeError(f"{server} is missing: dev/test installs it (python/requirements-dev.txt)")
        self.port = free_port()
        command = supervised(
            "glue-registry", [str(server), "-H", "127.0.0.1", "-p", str(self.port)], self.max_lifetime_seconds
        )
        self._launch("moto's server", command, self.log_path, self._answers, timeout_seconds)
        return self

    def _answers(self) -> bool:
        try:
            self.client().list_registries()
            return True
        except Exception:
            return False

    def client(self, service: str = "glue") -> Any:
        """A boto3 client of this server for `service` (moto answers every AWS service on one port)."""
        import boto3

        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name=self.region,
            aws_access_key_id=FAKE_ACCESS_KEY,
            aws_secret_access_key=FAKE_SECRET_KEY,
        )

    @contextlib.contextmanager
    def registry(self, prefix: str = "shop") -> Iterator[str]:
        """A registry of a test's own, `<prefix>-<random>`, deleted when the test ends: moto holds at most ten
        registries at once."""
        name = f"{prefix}-{secrets.token_hex(3)}"
        glue = self.client()
        glue.create_registry(RegistryName=name)
        try:
            yield name
        finally:
            glue.delete_registry(RegistryId={"RegistryName": name})

    def options(self, **extra: str) -> dict[str, str]:
        """The registry functions' options that reach this server."""
        return {
            "endpoint": self.endpoint,
            "region": self.region,
            "awsAccessKey": FAKE_ACCESS_KEY,
            "awsSecretKey": FAKE_SECRET_KEY,
            **extra,
        }
