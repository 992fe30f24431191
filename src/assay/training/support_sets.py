"""Support sets: does this evidence support, contradict or leave open this claim?

Every loader returns :class:`~assay.training.pairsets.LabeledPair` with
``task="support"``: ``first`` is the claim (a hypothesis, a summary, a dialogue reply),
``second`` the evidence. Evidence longer than a model window (a contract, a news
article) is cut to the sentences BM25 ranks best for the claim, in document order, up
to about 200 words (:func:`select_evidence`), the way a retriever would hand a judge
the relevant part; gold evidence spans are used where the set has them (ContractNLI).
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assay.training.bm25 import BM25
from assay.training.datasets import halueval_rows, scifact_pairs
from assay.training.pairsets import SENTENCE, DatasetInfo, LabeledPair, registry

__all__ = ["SUPPORT_SETS", "select_evidence"]

_SENTENCE = re.compile(SENTENCE.pattern + r"|\n+")  # line breaks end sentences too
_EVIDENCE_WORDS = 200
_NLI = {"e": "supported", "c": "contradicted", "n": "unsupported"}
_NLI_WORDS = {"entailment": "supported", "contradiction": "contradicted", "neutral": "unsupported"}


def _pair(
    dataset: str,
    claim: str,
    evidence: str,
    label: str,
    group: str,
    *,
    answer: str = "",
    kind: str = "own",
) -> LabeledPair:
    return LabeledPair(
        dataset, "support", claim.strip(), evidence.strip(), label, group, answer, kind
    )


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def select_evidence(claim: str, sentences: list[str], words: int = _EVIDENCE_WORDS) -> str:
    """The sentences BM25 ranks best for ``claim``, in document order, within ``words``."""
    sentences = [s.strip() for s in sentences if s.strip()]
    if sum(len(s.split()) for s in sentences) <= words:
        return " ".join(sentences)
    chosen: list[int] = []
    used = 0
    for i, _ in BM25(sentences).top(claim, len(sentences)):
        n = len(sentences[i].split())
        if used + n > words and chosen:
            continue
        chosen.append(i)
        used += n
        if used >= words:
            break
    return " ".join(sentences[i] for i in sorted(chosen))


def _split_sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def _csv_rows(file: Path) -> Iterator[dict[str, str]]:
    with file.open(encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle)


def halueval(data: Path, _more: Path) -> list[LabeledPair]:
    """HaluEval QA: question + right answer (supported) or hallucinated answer (not).
    ``kind`` is ``short`` when the answer has at most 5 words: within those the
    answer-length shortcut is weak."""
    file = data / "halueval" / "qa_data.json"
    pairs = []
    for split in ("train", "validation", "test"):
        for i, row in enumerate(halueval_rows(file, split)):
            group = _digest(row["knowledge"]) + str(i)
            for answer, label in (
                (row["right_answer"], "supported"),
                (row["hallucinated_answer"], "not_supported"),
            ):
                kind = "short" if len(answer.split()) <= 5 else "long"
                claim = f"{row['question']} {answer}"
                pairs.append(
                    _pair(
                        "halueval", claim, row["knowledge"], label, group, answer=answer, kind=kind
                    )
                )
    return pairs


def scifact(data: Path, _more: Path) -> list[LabeledPair]:
    """SciFact train claims: rationale sentences support or contradict; other sentences
    of the cited abstract leave the claim open."""
    root = data / "scifact_train"
    return [
        _pair("scifact", p.claim, p.evidence, p.label, p.group)
        for split in ("train", "validation", "test")
        for p in scifact_pairs(root / "claims_train.jsonl", root / "corpus.jsonl", split)
    ]


def contract_nli(_data: Path, more: Path) -> list[LabeledPair]:
    """ContractNLI test: NDA hypothesis vs its evidence spans (entailed / contradicted), or
    the BM25-best spans of the NDA where the hypothesis is not mentioned."""
    raw = json.loads((more / "contract_nli" / "test.json").read_text(encoding="utf-8"))
    hypotheses = {k: v["hypothesis"] for k, v in raw["labels"].items()}
    pairs = []
    for doc in raw["documents"]:
        spans = [doc["text"][a:b] for a, b in doc["spans"]]
        for key, note in doc["annotation_sets"][0]["annotations"].items():
            claim = hypotheses[key]
            if note["choice"] == "NotMentioned":
                evidence, label = select_evidence(claim, spans, 120), "unsupported"
            else:
                evidence = " ".join(spans[i] for i in sorted(note["spans"]))
                label = "supported" if note["choice"] == "Entailment" else "contradicted"
            pairs.append(_pair("contract_nli", claim, evidence, label, str(doc["id"])))
    return pairs


def anli(_data: Path, more: Path) -> list[LabeledPair]:
    """ANLI dev rounds 1-3: adversarial premise / hypothesis pairs (e / n / c)."""
    return [
        _pair("anli", r["statement"], r["context"], _NLI[r["gold_label"]], _digest(r["context"]))
        for n in (1, 2, 3)
        for r in _csv_rows(more / "anli_dev" / f"ANLI_analysis_r{n}_dev.csv")
    ]


def sick(_data: Path, more: Path) -> list[LabeledPair]:
    """SICK test: caption pairs, sentence A as evidence for sentence B."""
    pairs = []
    with (more / "sick" / "SICK_test_annotated.txt").open(encoding="utf-8") as handle:
        for r in csv.DictReader(handle, delimiter="\t"):
            label = _NLI_WORDS[r["entailment_judgment"].lower()]
            pairs.append(_pair("sick", r["sentence_B"], r["sentence_A"], label, r["pair_ID"]))
    return pairs


def _summac(name: str, more: Path) -> list[LabeledPair]:
    raw = json.loads((more / "summac_subsets" / f"{name}.json").read_text(encoding="utf-8"))
    pairs = []
    for row in raw.values():
        evidence = select_evidence(row["claim"], _split_sentences(row["document"]))
        label = "supported" if int(row["label"]) == 1 else "not_supported"
        pairs.append(_pair(name, row["claim"], evidence, label, _digest(row["document"])))
    return pairs


def xsumfaith(_data: Path, more: Path) -> list[LabeledPair]:
    """XSumFaith: BBC summaries consistent (1) or not with the article."""
    return _summac("xsumfaith", more)


def factcc(_data: Path, more: Path) -> list[LabeledPair]:
    """FactCC: CNN/DM summary claims consistent (1) or not with the story."""
    return _summac("factcc", more)


def summeval(_data: Path, more: Path) -> list[LabeledPair]:
    """SummEval: CNN/DM summaries rated consistent by experts (1) or not."""
    return _summac("summeval", more)


def _begin_label(raw: str) -> str | None:
    text = raw.strip().lower()
    if "hallucinat" in text:
        return "not_supported"
    if text.startswith("entailment"):
        return "supported"
    return None  # generic or uncooperative replies make no claim to check


def faithdial(_data: Path, more: Path) -> list[LabeledPair]:
    """FaithDial data audit: dialogue replies (gold and three models) attributable to
    the knowledge snippet (entailment) or not (any hallucination)."""
    pairs = []
    for file in sorted((more / "faithdial_audit").glob("*/*.csv")):
        for r in _csv_rows(file):
            evidence = r.get("evidence") or r.get("knowledge") or ""
            label = _begin_label(r.get("BEGIN") or r.get("begin_label") or "")
            reply = r.get("response") or next(
                (v for k, v in r.items() if k.lower() in {"ctrl", "doha", "gpt2"}), ""
            )
            if label and evidence.strip() and reply and reply.strip():
                pairs.append(_pair("faithdial", reply, evidence, label, _digest(evidence)))
    return pairs


def q2(_data: Path, more: Path) -> list[LabeledPair]:
    """Q²: Wizard-of-Wikipedia replies consistent or not with the knowledge sentence."""
    pairs = []
    for system in ("dodeca", "memnet"):
        for kind, label in (("consistent", "supported"), ("inconsistent", "not_supported")):
            for r in _csv_rows(more / "q2_dialogue" / f"{system}_{kind}.csv"):
                pairs.append(
                    _pair("q2", r["response"], r["knowledge"], label, _digest(r["knowledge"]))
                )
    return pairs


def dialfact(_data: Path, more: Path) -> list[LabeledPair]:
    """DialFact sample: dialogue replies vs Wikipedia evidence (supports / refutes / NEI)."""
    labels = {"SUPPORTS": "supported", "REFUTES": "contradicted", "NOT ENOUGH INFO": "unsupported"}
    pairs = []
    with (more / "dialfact_sample" / "testsmall.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            r: dict[str, Any] = json.loads(line)
            evidence = str(r.get("evidence_touse") or "")
            if evidence.strip() and r["response_label"] in labels:
                pairs.append(
                    _pair(
                        "dialfact",
                        r["response"],
                        evidence,
                        labels[r["response_label"]],
                        str(r["context_id"]),
                    )
                )
    return pairs


SUPPORT_SETS: dict[str, DatasetInfo] = registry(
    "support",
    [
        ("halueval", "Wikipedia QA", "MIT", True, halueval, "HaluEval QA answers"),
        ("scifact", "science", "CC BY 4.0", True, scifact, "SciFact train claims"),
        ("contract_nli", "contracts", "CC BY 4.0", True, contract_nli, "ContractNLI test"),
        ("anli", "Wikipedia / news / fiction", "CC BY-NC 4.0", False, anli, "ANLI dev R1-R3"),
        ("sick", "captions", "CC BY-NC-SA 3.0", False, sick, "SICK test"),
        ("xsumfaith", "news", "CC BY 4.0", True, xsumfaith, "XSumFaith summaries"),
        ("factcc", "news", "BSD-3-Clause", True, factcc, "FactCC claims"),
        ("summeval", "news", "MIT", True, summeval, "SummEval summaries"),
        ("faithdial", "dialogue", "MIT", True, faithdial, "FaithDial audit replies"),
        ("q2", "dialogue", "MIT", True, q2, "Q² replies"),
        ("dialfact", "dialogue", "BSD-3-Clause", True, dialfact, "DialFact sample replies"),
    ],
)
