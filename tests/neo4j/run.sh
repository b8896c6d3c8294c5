#!/usr/bin/env bash
# mirror's test Neo4j (Neo4j Community 5.26 LTS, embedded, Bolt on 127.0.0.1).
#
#   bash tests/neo4j/run.sh [DATA_DIR]
#
# Builds what is missing (Maven copies the dependencies from Maven Central, javac compiles
# the launcher), then runs the server in the foreground on a plain classpath. Prints exactly
# one line on stdout, `NEO4J_READY bolt://127.0.0.1:PORT`, once Bolt accepts connections;
# everything else goes to stderr. Stops cleanly on SIGTERM or when stdin closes.
#
# Environment: NEO4J_PORT (default 0 = a free port), NEO4J_PASSWORD (auth on with user
# neo4j and this password; default: auth off), NEO4J_PAGECACHE_MB (default 64),
# NEO4J_HEAP (JVM -Xmx, default 1g), NEO4J_CONF_FILE (a file of neo4j.conf settings, e.g.
# `db.tx_log.rotation.retention_policy=2 files`; the ones above take precedence), JAVA
# (default java).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/build.sh" >&2
cp="$here/target/classes:$here/target/lib/*"
exec "${JAVA:-java}" -Xmx"${NEO4J_HEAP:-1g}" -XX:+UseParallelGC \
  -Dlog4j2.level=WARN -cp "$cp" mirror.neo4j.TestServer "$@"
