# SPDX-License-Identifier: Apache-2.0
"""Starts and stops a Spark Connect server of an installed PySpark (4.0 and later from PyPI carry its jar).

Used by the Python tests. The server is ``spark-submit --class
org.apache.spark.sql.connect.service.SparkConnectServer ... spark-internal``, as PySpark's
``sbin/start-connect-server.sh`` launches it (less its daemonising), on a free port of 127.0.0.1 only
(``spark.connect.grpc.binding.address`` and ``.port``, in Spark 4.0 to 4.3). Like the Kinesis emulator, it is
started with a lifetime limit, a watchdog stops it when the process that started it is gone, and it is
stopped by PID: SIGTERM to its process group first, SIGKILL if it does not go. Its log goes to a file.

Ready means the gRPC port accepts a connection: the server binds it only after its Spark session is up, and
the port needs no particular log level (its "Spark Connect server started at" line is an INFO line).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from kinesis_emulator import SupervisedServer, free_port, supervised

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


def installed_pyspark() -> Path:
    """The directory of the pyspark package this Python imports."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


class ConnectServer(SupervisedServer):
    """One Spark Connect server process on a free loopback port; a context manager that always stops it.

    :param pyspark_dir: the directory of an installed pyspark package (its ``bin/spark-submit`` and
        ``jars/``, which must hold spark-connect); by default the one this Python imports
    :param jars: jars on the server's classpath from its start (``--jars``)
    :param conf: more Spark settings (``--conf key=value``), such as the Connect plugins to load
    :param log_path: the server's log (stdout and stderr); by default ``connect-server.log`` in `work_dir`
    :param work_dir: the server's working directory; by default a new temporary one, removed by :meth:`stop`
    :param environment: more environment variables of the server, such as the AWS credentials its default
        chain finds (as a cluster's instance role gives them)
    """

    def __init__(
        self,
        pyspark_dir: Path | None = None,
        jars: Sequence[Path] = (),
        conf: Mapping[str, str] | None = None,
        log_path: Path | None = None,
        work_dir: Path | None = None,
        max_lifetime_seconds: int = 3 * 3600,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        self.pyspark_dir = pyspark_dir
        self.environment = dict(environment or {})
        self.jars = list(jars)
        self.conf = dict(conf or {})
        self.log_path = log_path
        self.work_dir = work_dir
        self.max_lifetime_seconds = max_lifetime_seconds
        self._own_work_dir: Path | None = None

    @property
    def address(self) -> str:
        """Where a client connects: ``SparkSession.builder.remote(server.address)``."""
        return f"sc://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        """The spark-submit command line that starts the server (on :attr:`port`)."""
        pyspark_dir = self.pyspark_dir or installed_pyspark()
        conf = {
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(self.port),
            # Fail rather than take the next port, which nobody would look for.
            "spark.connect.grpc.port.maxRetries": "0",
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            **self.conf,
        }
        command = [str(pyspark_dir / "bin" / "spark-submit"), "--class", SERVER_CLASS]
        command += ["--name", "Spark Connect server", "--master", "local[2]"]
        if self.jars:
            command += ["--jars", ",".join(str(jar) for jar in self.jars)]
        for key, value in conf.items():
            command += ["--conf", f"{key}={value}"]
        return [*command, "spark-internal"]

    def start(self, timeout_seconds: float = 180.0) -> ConnectServer:
        pyspark_dir = self.pyspark_dir or installed_pyspark()
        if not any((pyspark_dir / "jars").glob("spark-connect_*.jar")):
            raise RuntimeError(f"{pyspark_dir}/jars has no spark-connect jar (PySpark 4.0 and later have it)")
        if self.work_dir is None:
            self._own_work_dir = Path(tempfile.mkdtemp(prefix="spark-connect-server-"))
        work_dir = self.work_dir or self._own_work_dir
        assert work_dir is not None
        self.log_path = self.log_path or work_dir / "connect-server.log"
        self.port = free_port()
        env = {**os.environ, **self.environment}
        env.update(
            {
                # The server is this pyspark's Spark, whatever SPARK_HOME the caller has.
                "SPARK_HOME": str(pyspark_dir),
                "SPARK_LOCAL_IP": "127.0.0.1",
                # As start-connect-server.sh: the launcher starts a server, not a Connect client shell.
                "SPARK_CONNECT_MODE": "0",
                "AWS_EC2_METADATA_DISABLED": "true",
            }
        )
        command = supervised("spark-connect-server", self.command(), self.max_lifetime_seconds)
        self._launch(
            "the Spark Connect server",
            command,
            self.log_path,
            self._accepts,
            timeout_seconds,
            env=env,
            cwd=work_dir,
            detail=lambda: f":\n{self.log_tail()}",
        )
        return self

    def _accepts(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def log_tail(self, characters: int = 6000) -> str:
        """The end of the server's log."""
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        with open(self.log_path, "rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - characters))
            return log.read().decode("utf-8", "replace")

    def stop(self, grace_seconds: float = 10.0) -> None:
        super().stop(grace_seconds)
        own, self._own_work_dir = self._own_work_dir, None
        if own is not None:
            shutil.rmtree(own, ignore_errors=True)


if __name__ == "__main__":
    # python dev/connect_server.py [jar ...]: a server with these jars, until Ctrl-C (or an hour).
    with ConnectServer(jars=[Path(jar) for jar in sys.argv[1:]]) as server:
        print(server.address, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            time.sleep(3600)
