#!/usr/bin/env bash
# The assay walkthrough on a fresh database in .demo/: register the sources behind a small
# knowledge base, ingest it, ask it questions that show what confidence governance does
# (answers with checked citations, hedges, the judge holding answers back, refusals),
# judge an answer on its own, review what was held back, score another retriever's
# results, and verify the audit log.
set -euo pipefail
cd "$(dirname "$0")/.."
ASSAY=${ASSAY:-assay}
export ASSAY_DB=${ASSAY_DB:-.demo/assay.db}
AS_OF=2026-11-29   # fixed, so the figures below are the same on every run
KB=examples/kb

if [[ "$ASSAY_DB" == *://* ]]; then  # a PostgreSQL database: give an empty one
  $ASSAY db migrate
else
  mkdir -p "$(dirname "$ASSAY_DB")"
  rm -f "$ASSAY_DB" "$ASSAY_DB-wal" "$ASSAY_DB-shm"
fi
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
ask() { $ASSAY ask "$1" "${@:2}" --as-of "$AS_OF"; }

say "1. Register the sources of a fictional battery pack's knowledge base"
$ASSAY sources add halden-sds-2026 --kind official --name "HX-40 Safety Data Sheet (2026)" \
  --owner "Halden Power" --reviewed-at 2026-10-15
$ASSAY sources add halden-manual-2019 --kind official --name "HX-40 user manual, 2019 edition" \
  --owner "Halden Power" --reviewed-at 2019-04-11
$ASSAY sources add support-wiki --kind internal_wiki --name "Support team wiki" \
  --owner "Halden Support" --reviewed-at 2026-09-01
$ASSAY sources add community-forum --kind customer --name "Community forum" --owner "forum users"
$ASSAY sources add field-notes --kind unverified --name "Reptile field notes (wrong corpus)"
$ASSAY sources add quality-team --kind internal_wiki --name "Quality team records" \
  --owner "Halden Quality" --reviewed-at 2026-10-20
$ASSAY sources list --as-of "$AS_OF"

say "2. Ingest it: Markdown with front matter, HTML, JSONL posts, plain text"
$ASSAY ingest "$KB/halden-sds-2026.md" --source halden-sds-2026
$ASSAY ingest "$KB/support-wiki" --source support-wiki
$ASSAY ingest "$KB/hx40-manual-2019.html" --source halden-manual-2019
$ASSAY ingest "$KB/forum-posts.jsonl" --source community-forum
$ASSAY ingest "$KB/field-notes.txt" --source field-notes
$ASSAY ingest "$KB/quality-incidents.md" --source quality-team   # front matter: access: quality
$ASSAY documents list
$ASSAY ingest "$KB"/halden-sds-2026.md   # again: unchanged, nothing rewritten

say "3. Answerable: the data sheet answers, cited; an informational question gets it with a caveat"
ask "What ambient temperature range is safe for charging the HX-40?" --policy informational
say "   ...a financial decision's stricter gate keeps the 2019 manual and the forum out: no caveat"
ask "What ambient temperature range is safe for charging the HX-40?" --policy financial

say "4. The forum says 70 °C is fine. Informational admits it, but the data sheet's rule answers"
say "   (0 to 45 °C), the forum never reaches the answer, and the disagreement is named..."
ask "Can I charge the HX-40 in a hot car at 70 °C?" --policy informational
say "   ...a safety-critical decision keeps the forum out and gives the rule only with a caveat"
ask "Can I charge the HX-40 in a hot car at 70 °C?" --severity safety_critical
say "   ...and where even broadening finds nothing strong enough, it refuses"
ask "Can I charge the HX-40 in my car in summer?" --severity safety_critical

say "5. A stale source loses to a fresh one: the 2019 manual's 5 hours vs the data sheet's 3"
ask "How long does a full charge of the HX-40 take?" --policy financial
say "   ...admitted too (informational), two official sources disagree: that goes to review"
ask "How long does a full charge of the HX-40 take?" --policy informational

say "6. Out of scope: nothing clears the gate, so retrieval abstains, with next steps"
ask "How do I migrate my Python application to a new server?" --severity safety_critical

say "7. An authoritative passage that shares almost no words with the question is kept; its answer,
   a description, is withheld: the correctness model was fitted on short answers and doubts it"
ask "What happens if the battery pack overheats?" --policy informational

say "8. Judge any answer against its contexts: exactly the J1 JSON object on stdout"
$ASSAY evaluate --input examples/demo/evaluate.json

say "9. The human-review queue: what the judge held back, and a reviewer's verdict"
$ASSAY review list
$ASSAY review resolve 1 --verdict correct --note "the data sheet allows 0-45 °C, so not at 70 °C"

say "10. Drop-in scoring of another retriever's results (JSONL in, the same gate out)"
$ASSAY score --query "What ambient temperature is safe for charging the HX-40 battery pack?" \
  --candidates examples/demo/candidates.jsonl --severity safety_critical --as-of "$AS_OF"

say "11. Every event is in the audit log; the hash chain verifies and every score replays"
$ASSAY audit list
$ASSAY audit verify

say "12. Who may see which evidence: the incident register is labelled quality. A support-desk key"
say "   without that label asks about swollen packs: the register is never searched for it..."
PY="$(dirname "$(command -v "$ASSAY")")/python"
key_id() { "$PY" -c 'import json, sys; print(json.load(sys.stdin)["id"])'; }
DESK=$($ASSAY keys create support-desk --role reader --json | key_id)
QUALITY=$($ASSAY keys create quality-lead --role reader --grant quality --json | key_id)
ask "Were any HX-40 packs returned with swollen cases?" --policy informational --as-key "$DESK"
say "   ...a key granted quality gets the register's answer; each audit row names the key and its grants"
ask "Were any HX-40 packs returned with swollen cases?" --policy informational --as-key "$QUALITY"
for event in $($ASSAY audit list --json | "$PY" -c 'import json, sys; print(" ".join(e["event_id"] for e in json.load(sys.stdin)[:2]))'); do
  $ASSAY audit show "$event" | sed -n 2,4p
done

say "13. The same engine as a service: API keys with roles, \`assay serve\`, a question over HTTP"
"$PY" examples/demo/serve.py "$ASSAY"
