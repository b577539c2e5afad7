# SPDX-License-Identifier: Apache-2.0
"""The project's version, the one place it is written: the wheel's, and in Maven form the connector jars'
(``X.Y.Z.devN`` is ``X.Y.Z-SNAPSHOT`` there; see project/ProjectVersion.scala)."""

__version__ = "0.1.0.dev0"
