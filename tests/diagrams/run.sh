#!/usr/bin/env bash
# The diagrams `draw --mermaid` and `draw --plantuml` write are accepted by the tools
# themselves: Mermaid's own parser (the `mermaid` package from npm, run with node; installed
# under target/diagram-tools) and PlantUML (`java -jar plantuml.jar -checkonly`; Debian's
# `plantuml` package, installed with apt-get when missing and possible).
#
# Inputs: every sequence diagram of Mermaid's documentation (fixtures/diagrams/mermaid-docs)
# and every fixture interaction that a diagram can show (the others are refused by `draw`
# with a message, which is checked to be one).
# A tool that cannot be installed (no network) is skipped with a message saying so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
cargo build --quiet --locked --bin multitrace
bin=$root/target/debug/multitrace
out=$root/target/diagram-check
rm -rf "$out" && mkdir -p "$out"

n=0
for model in fixtures/diagrams/mermaid-docs/*.mmd fixtures/*/model.hif fixtures/*/*.hif; do
  [ -f "$model" ] || continue
  name=$(echo "$model" | tr '/' '_')
  for kind in mermaid plantuml; do
    ext=$([ $kind = mermaid ] && echo mmd || echo puml)
    if ! "$bin" draw "$model" --$kind -o "$out/$name.$ext" 2>"$out/$name.$kind.err"; then
      grep -q "cannot\|draw it" "$out/$name.$kind.err" || { cat "$out/$name.$kind.err"; exit 1; }
      rm -f "$out/$name.$ext"
    fi
  done
  n=$((n + 1))
done
echo "wrote the diagrams of $n models ($(ls "$out"/*.mmd | wc -l) Mermaid, $(ls "$out"/*.puml | wc -l) PlantUML)"

tools=$root/target/diagram-tools
if [ ! -d "$tools/node_modules/mermaid" ]; then
  mkdir -p "$tools"
  (cd "$tools" && [ -f package.json ] || npm init -y >/dev/null 2>&1; cd "$tools" && npm install --no-audit --no-fund mermaid >/dev/null 2>&1) || true
fi
if [ -d "$tools/node_modules/mermaid" ] && command -v node >/dev/null; then
  cp tests/diagrams/mermaid_parse.mjs "$tools/"
  node "$tools/mermaid_parse.mjs" "$out"/*.mmd | grep -v '^ok ' || true
  node "$tools/mermaid_parse.mjs" "$out"/*.mmd >/dev/null
  echo "Mermaid's parser accepts every written .mmd"
else
  echo "SKIPPED: Mermaid's parser (npm package mermaid could not be installed: no network?)"
fi

jar=/usr/share/plantuml/plantuml.jar
if [ ! -f "$jar" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends plantuml) >/dev/null 2>&1 || true
fi
if [ -f "$jar" ] && command -v java >/dev/null; then
  java -Djava.awt.headless=true -jar "$jar" -checkonly -failfast2 "$out"/*.puml
  echo "PlantUML accepts every written .puml"
else
  echo "SKIPPED: PlantUML (Debian package plantuml not installed and not installable here)"
fi
