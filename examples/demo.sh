#!/usr/bin/env bash
# The assay walkthrough: register sources, score one retrieval under two policies,
# then verify the audit log. Runs against a fresh database in .demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
ASSAY=${ASSAY:-assay}
export ASSAY_DB=${ASSAY_DB:-.demo/assay.db}
AS_OF=2026-11-29   # fixed, so the figures below are the same on every run
CANDIDATES=examples/demo/candidates.jsonl
QUERY="What ambient temperature is safe for charging the HX-40 battery pack?"

mkdir -p "$(dirname "$ASSAY_DB")"
rm -f "$ASSAY_DB" "$ASSAY_DB-wal" "$ASSAY_DB-shm"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "1. Register the sources behind the knowledge base"
$ASSAY sources add halden-sds-2026 --kind official --name "HX-40 Safety Data Sheet (2026)" \
  --owner "Halden Power" --reviewed-at 2026-10-15
$ASSAY sources add halden-manual-2019 --kind official --name "HX-40 user manual, 2019 edition" \
  --owner "Halden Power" --reviewed-at 2019-04-11
$ASSAY sources add support-wiki --kind internal_wiki --name "Support team wiki" \
  --owner "Halden Support" --reviewed-at 2026-09-01
$ASSAY sources add forum-post-8841 --kind customer --name "Community forum post 8841" \
  --owner "forum user kettle_bob"
$ASSAY sources list --as-of "$AS_OF"

say "2. Score the same six retrieved passages as an informational question"
$ASSAY score --query "$QUERY" --candidates "$CANDIDATES" --policy informational --as-of "$AS_OF"

say "3. ... and as a safety-critical decision (policy picked by severity)"
$ASSAY score --query "$QUERY" --candidates "$CANDIDATES" --severity safety_critical --as-of "$AS_OF"

say "4. Every retrieval event is in the audit log"
$ASSAY audit list

say "5. The hash chain verifies and every score replays from its row"
$ASSAY audit verify
