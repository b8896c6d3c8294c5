#!/usr/bin/env bash
# Builds the test Neo4j launcher if anything is missing or older than its sources:
# target/lib (every runtime jar, `mvn dependency:copy-dependencies`) and target/classes.
# Safe to run concurrently (flock) and again (does nothing when up to date).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$here/target"
exec 9>"$here/target/.build.lock"
flock 9
stamp="$here/target/lib/.complete"
if [ ! -f "$stamp" ] || [ "$here/pom.xml" -nt "$stamp" ]; then
  rm -rf "$here/target/lib"
  mvn -q -B -Dstyle.color=never -f "$here/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$here/target/lib" -DincludeScope=runtime
  touch "$stamp"
fi
class="$here/target/classes/mirror/neo4j/TestServer.class"
src="$here/src/main/java/mirror/neo4j/TestServer.java"
if [ ! -f "$class" ] || [ "$src" -nt "$class" ] || [ "$stamp" -nt "$class" ]; then
  mkdir -p "$here/target/classes"
  javac -nowarn --release 17 -encoding UTF-8 -cp "$here/target/lib/*" \
    -d "$here/target/classes" "$src"
fi
