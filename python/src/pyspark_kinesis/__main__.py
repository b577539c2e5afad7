# SPDX-License-Identifier: Apache-2.0
"""Command line for operators: a stream's consumers, and the Spark settings that load the connector.

``python -m pyspark_kinesis spark-defaults`` prints the lines of a ``spark-defaults.conf`` that give Spark
the connector: the jars this package carries for the installed PySpark's line (or ``SPARK_KINESIS_JAR``)
and the session extension of its SQL functions. Tools that start Spark themselves, such as
``spark-pipelines``, read them from the folder ``SPARK_CONF_DIR`` names.

``python -m pyspark_kinesis consumers list|register|deregister`` starts a small local Spark session with the
connector jar (the one the package carries, or ``SPARK_KINESIS_JAR``), or, with ``--remote sc://...`` (or
``SPARK_REMOTE`` set), connects to a Spark Connect server that runs the connector's plugin, and calls
:class:`pyspark_kinesis.consumers.KinesisConsumerManager`. Credentials come from the AWS default chain
(environment variables, profile, instance role) of the process that calls Kinesis (this one, or the Connect
server), optionally with a role to assume; secrets are never taken on the command line, where other users
of the machine could see them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from pyspark_kinesis.errors import KinesisError
from pyspark_kinesis.options import _KinesisOptions

# The builder fields the command line takes (never a secret, which other users could see).
_OPTION_FIELDS = ("region", "endpoint", "role_arn", "role_external_id", "role_session_name", "sts_endpoint")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pyspark_kinesis", description=__doc__.splitlines()[0])
    groups = parser.add_subparsers(dest="group", required=True)
    groups.add_parser(
        "spark-defaults",
        help="print the lines of a spark-defaults.conf that give Spark the connector and its SQL functions",
    )
    consumers = groups.add_parser("consumers", help="enhanced fan-out consumers of a stream")
    actions = consumers.add_subparsers(dest="action", required=True)
    for name, help_text in (
        ("list", "list the stream's consumers"),
        ("register", "register a consumer (or find it) and print its ARN once ACTIVE"),
        ("deregister", "deregister a consumer"),
    ):
        action = actions.add_parser(name, help=help_text)
        action.add_argument("--stream", required=True, help="the stream's name or ARN")
        if name != "list":
            action.add_argument("--name", required=True, help="the consumer's name, as registered")
        else:
            action.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
        action.add_argument(
            "--region", help="AWS region (default: a stream ARN's, else the endpoint's, else the SDK's chain)"
        )
        action.add_argument("--endpoint", help="Kinesis endpoint URL")
        action.add_argument("--role-arn", help="an IAM role to assume")
        action.add_argument("--role-external-id", help="the external id the role requires")
        action.add_argument("--role-session-name", help="the assumed role's session name")
        action.add_argument("--sts-endpoint", help="STS endpoint URL for assuming the role")
        action.add_argument(
            "--remote",
            default=os.environ.get("SPARK_REMOTE"),
            help="a Spark Connect server with the connector's plugin, sc://host:port (default: SPARK_REMOTE; "
            "without either, a local Spark session)",
        )
    return parser


def _options(args: argparse.Namespace) -> dict[str, str]:
    """The connector's options the command line gives, checked and keyed as the option builders do."""
    given = {name: getattr(args, name) for name in _OPTION_FIELDS}
    if given["region"] is None and args.stream.startswith("arn:"):
        given["region"] = args.stream.split(":")[
            3
        ]  # arn:<partition>:kinesis:<region>:<account>:stream/<name>
    return _KinesisOptions(**given).to_options()


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status (0 on success, 1 on a connector error, 2 on usage)."""
    args = _parser().parse_args(argv)
    if args.group == "spark-defaults":
        return _spark_defaults()
    from pyspark.sql import SparkSession

    from pyspark_kinesis.consumers import KinesisConsumerManager
    from pyspark_kinesis.spark import configure_spark_with_kinesis

    try:
        if args.remote:
            spark = SparkSession.builder.remote(args.remote).getOrCreate()
        else:
            builder = SparkSession.builder.master("local[1]").appName("pyspark-kinesis-cli")
            builder = builder.config("spark.ui.enabled", "false")
            jar = os.environ.get("SPARK_KINESIS_JAR")
            builder = builder.config("spark.jars", jar) if jar else configure_spark_with_kinesis(builder)
            spark = builder.getOrCreate()
            spark.sparkContext.setLogLevel("ERROR")
        with KinesisConsumerManager(spark, _options(args)) as manager:
            if args.action == "list":
                for c in manager.list_consumers(args.stream):
                    created = c.created_at.isoformat() if c.created_at else ""
                    if args.json:
                        print(
                            json.dumps(
                                {"name": c.name, "arn": c.arn, "status": c.status, "createdAt": created}
                            )
                        )
                    else:
                        print(f"{c.name}\t{c.status}\t{created}\t{c.arn}")
            elif args.action == "register":
                print(manager.register_consumer(args.stream, args.name))
            else:
                manager.deregister_consumer(args.stream, args.name)
                print(f"deregistering {args.name} of {args.stream}")
        return 0
    except KinesisError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


def _spark_defaults() -> int:
    """Prints the spark-defaults.conf lines that put the connector on Spark; 1 if the package has no jar."""
    from pyspark_kinesis.spark import EXTENSIONS_CLASS, EXTENSIONS_SETTING, connector_jars, spark_line

    jar = os.environ.get("SPARK_KINESIS_JAR")
    try:
        jars = [jar] if jar else [str(path) for path in connector_jars()]
        source = "SPARK_KINESIS_JAR" if jar else f"pyspark-kinesis, for Spark line {spark_line()}"
    except KinesisError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"# The Kinesis connector ({source}) and its SQL functions.")
    print(f"spark.jars {','.join(jars)}")
    print(f"{EXTENSIONS_SETTING} {EXTENSIONS_CLASS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
