"""Training and evaluation pairs for the two small models assay trains itself.

Relevance (a reranker: does this passage answer this question?) comes from SQuAD 2.0;
support (an entailment head: does this evidence support, contradict or leave open this
claim?) comes from HaluEval QA and SciFact. Every builder reads the public file whose
path it is given, never a hard-coded one, and returns frozen pairs.

Splits
    Each pair carries a ``group``: the unit that was split (a SQuAD article title, a
    SciFact claim id, a HaluEval row index). A group lies in exactly one of
    ``train``, ``validation`` and ``test``, so a caller can check that no split
    leaks into another. SQuAD is split by article in file order (20/5/10 of its 35
    articles); HaluEval rows (80/10/10) and SciFact claims (70/15/15) by a seeded
    permutation. Everything is deterministic given the seed.

The HaluEval length shortcut
    Right answers average about 2 words and hallucinated ones about 11, so answer
    length alone separates the classes. :attr:`SupportPair.answer_words` keeps the
    answer's word count for a length-only baseline, and ``length_matched=True``
    subsamples so that both classes have the same answer-length histogram.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assay.errors import InvalidInputError, did_you_mean
from assay.training.bm25 import BM25

SPLITS = ("train", "validation", "test")
SUPPORT_LABELS = ("supported", "contradicted", "unsupported")
_SCIFACT_LABELS = {"SUPPORT": "supported", "CONTRADICT": "contradicted"}
_SQUAD_WEIGHTS = (20, 5, 10)
_HALUEVAL_WEIGHTS = (80, 10, 10)
_SCIFACT_WEIGHTS = (70, 15, 15)
_SCIFACT_CONTEXT_SENTENCES = 2


@dataclass(frozen=True, slots=True)
class RelevancePair:
    """A question and a passage, ``label`` 1 when the passage answers the question.

    ``task`` is ``"a"`` for the question against its own paragraph (1 if answerable,
    else 0) and ``"b"`` for a BM25 hard negative from another paragraph (always 0).
    ``group`` is the title of the question's article.
    """

    query: str
    passage: str
    label: int
    task: str
    group: str


@dataclass(frozen=True, slots=True)
class SupportPair:
    """A claim, the evidence to judge it by, and one of :data:`SUPPORT_LABELS`.

    ``source`` is ``"halueval"`` or ``"scifact"``; ``group`` the HaluEval row index or
    the SciFact claim id, as text. ``answer_words`` is the whitespace word count of the
    HaluEval answer inside the claim (for a length-only baseline); 0 for SciFact,
    whose claims have no separate answer.
    """

    claim: str
    evidence: str
    label: str
    source: str
    group: str
    answer_words: int = 0


# -- validation and splitting -------------------------------------------------------------


def _check_file(path: str | Path, field: str) -> Path:
    file = Path(path)
    if not file.is_file():
        raise InvalidInputError(
            field, str(path), "give the path of the downloaded data file", problem="is not a file"
        )
    return file


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise InvalidInputError(
            "split",
            split,
            f"{did_you_mean(split, SPLITS)}choose one of: {', '.join(SPLITS)}",
            problem="is unknown",
        )


def _check_count(field: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError(field, value, "give a whole number >= 0")


def _split_sizes(n: int, weights: Sequence[int], field: str) -> list[int]:
    """Sizes proportional to ``weights`` summing to ``n`` (largest remainder), each >= 1."""
    if n < len(weights):
        raise InvalidInputError(
            field, n, f"give a file with at least {len(weights)} items", problem="is too few"
        )
    total = sum(weights)
    exact = [n * w / total for w in weights]
    sizes = [int(x) for x in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(exact[i] - sizes[i]), i))
    for i in by_remainder[: n - sum(sizes)]:
        sizes[i] += 1
    for i, size in enumerate(sizes):
        if size == 0:  # borrow from the largest split so every split is non-empty
            sizes[sizes.index(max(sizes))] -= 1
            sizes[i] = 1
    return sizes


def _assign(items: Sequence[Any], weights: Sequence[int], field: str) -> dict[str, list[Any]]:
    """Cut ``items`` in their given order into the named splits."""
    sizes = _split_sizes(len(items), weights, field)
    out: dict[str, list[Any]] = {}
    start = 0
    for name, size in zip(SPLITS, sizes, strict=True):
        out[name] = list(items[start : start + size])
        start += size
    return out


def _permuted(items: Sequence[Any], seed: int) -> list[Any]:
    _check_count("seed", seed)
    order = np.random.default_rng(seed).permutation(len(items))
    return [items[int(i)] for i in order]


def _bad_record(file: Path, where: str, expected: str) -> InvalidInputError:
    return InvalidInputError(
        f"{file}: {where}", "malformed record", f"give a file in the {expected} format"
    )


def _json_lines(file: Path, expected: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each non-blank line of a JSON Lines file as ``(line number, object)``."""
    with file.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise _bad_record(file, f"line {number}", expected) from exc
            if not isinstance(record, dict):
                raise _bad_record(file, f"line {number}", expected)
            yield number, record


# -- SQuAD 2.0: relevance ----------------------------------------------------------------

_SQUAD = "SQuAD 2.0 JSON (data[].paragraphs[].qas[])"
_Question = tuple[str, bool]  # (question, answerable)
_Article = tuple[str, list[tuple[str, list[_Question]]]]  # (title, [(context, questions)])


def _load_squad(path: str | Path) -> list[_Article]:
    file = _check_file(path, "squad_path")
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
        return [
            (
                str(article["title"]),
                [
                    (
                        str(paragraph["context"]),
                        [(str(q["question"]), not q["is_impossible"]) for q in paragraph["qas"]],
                    )
                    for paragraph in article["paragraphs"]
                ],
            )
            for article in raw["data"]
        ]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise _bad_record(file, "data", _SQUAD) from exc


def _squad_split_articles(articles: list[_Article], split: str) -> list[_Article]:
    titles = [title for title, _ in articles]
    if len(set(titles)) != len(titles):
        raise InvalidInputError(
            "squad article titles", titles, "give a file whose article titles are unique"
        )
    return _assign(articles, _SQUAD_WEIGHTS, "squad article count")[split]


def squad_splits(path: str | Path) -> dict[str, list[str]]:
    """The article titles of each split of a SQuAD 2.0 file, by article in file order.

    The official dev set has 35 articles: the first 20 are ``train``, the next 5
    ``validation`` and the last 10 ``test``. Another file with at least 3 articles is
    cut in the same 20:5:10 proportions (largest remainder, at least one article each),
    still in file order, so ``test`` is always the last articles.
    """
    articles = _load_squad(path)
    return {name: [t for t, _ in _squad_split_articles(articles, name)] for name in SPLITS}


def relevance_pairs(
    path: str | Path, split: str, *, bm25_negatives: int = 2, seed: int = 13
) -> list[RelevancePair]:
    """Question-passage pairs for a relevance model from one split of SQuAD 2.0.

    For every question of the split's articles, in file order:

    - task ``"a"``: the question and its own paragraph, label 1 if it is answerable
      and 0 if not (the unanswerable questions were written against that paragraph,
      so they are on-topic hard negatives);
    - task ``"b"``, answerable questions only: the ``bm25_negatives`` paragraphs of
      the same split that BM25 ranks highest for the question, excluding its own
      paragraph (and any paragraph with the same text), each with label 0.

    One BM25 index is built over all paragraphs of the split. Nothing is drawn at
    random: ``seed`` is validated and accepted so that all builders share a signature.
    """
    _check_split(split)
    _check_count("bm25_negatives", bm25_negatives)
    _check_count("seed", seed)
    articles = _squad_split_articles(_load_squad(path), split)
    paragraphs = [(title, context, qs) for title, ps in articles for context, qs in ps]
    same_text: dict[str, set[int]] = defaultdict(set)
    for i, (_, context, _) in enumerate(paragraphs):
        same_text[context].add(i)
    index = BM25([context for _, context, _ in paragraphs]) if bm25_negatives else None
    pairs: list[RelevancePair] = []
    for title, context, questions in paragraphs:
        for question, answerable in questions:
            pairs.append(RelevancePair(question, context, int(answerable), "a", title))
            if answerable and index is not None:
                for j, _ in index.top(question, bm25_negatives, exclude=same_text[context]):
                    pairs.append(RelevancePair(question, paragraphs[j][1], 0, "b", title))
    return pairs


# -- HaluEval QA: support ----------------------------------------------------------------

_HALUEVAL = "HaluEval QA JSON Lines (knowledge, question, right_answer, hallucinated_answer)"
_HALUEVAL_KEYS = ("knowledge", "question", "right_answer", "hallucinated_answer")


def answer_word_count(answer: str) -> int:
    """The number of whitespace-separated words of an answer, as in ``answer_words``."""
    return len(answer.split())


def _load_halueval(path: str | Path) -> list[dict[str, str]]:
    file = _check_file(path, "halueval_path")
    rows: list[dict[str, str]] = []
    for number, record in _json_lines(file, _HALUEVAL):
        if not all(isinstance(record.get(key), str) for key in _HALUEVAL_KEYS):
            raise _bad_record(file, f"line {number}", _HALUEVAL)
        rows.append({key: record[key] for key in _HALUEVAL_KEYS})
    return rows


def _match_lengths(pairs: list[SupportPair], seed: int) -> list[SupportPair]:
    """Keep, for each answer word count, as many pairs of each class as the rarer has."""
    positions: dict[tuple[int, str], list[int]] = defaultdict(list)
    for i, pair in enumerate(pairs):
        positions[(pair.answer_words, pair.label)].append(i)
    rng = np.random.default_rng((seed, 1))
    kept: list[int] = []
    for count in sorted({c for c, _ in positions}):
        supported = positions.get((count, "supported"), [])
        unsupported = positions.get((count, "unsupported"), [])
        m = min(len(supported), len(unsupported))
        for group in (supported, unsupported):
            kept.extend(group[int(i)] for i in rng.choice(len(group), size=m, replace=False))
    return [pairs[i] for i in sorted(kept)]


def halueval_pairs(
    path: str | Path, split: str, *, seed: int = 13, length_matched: bool = False
) -> list[SupportPair]:
    """Supported and unsupported claims from one split of HaluEval QA.

    Rows are split 80/10/10 into train/validation/test by a permutation of their
    indices drawn with ``seed``; within a split they keep file order. Each row gives
    two pairs with the row's knowledge as evidence: ``f"{question} {right_answer}"``
    labelled ``"supported"`` and ``f"{question} {hallucinated_answer}"`` labelled
    ``"unsupported"``. ``group`` is the row index.

    With ``length_matched=True`` the pairs are subsampled so that both classes have the
    same histogram of ``answer_words``: for each word count ``c``, ``min(n_supported(c),
    n_unsupported(c))`` pairs of each class are kept, chosen with ``seed``. The two
    pairs of a row may then be separated, but never cross splits.
    """
    _check_split(split)
    _check_count("seed", seed)
    rows = _load_halueval(path)
    members = _assign(_permuted(range(len(rows)), seed), _HALUEVAL_WEIGHTS, "halueval rows")
    pairs: list[SupportPair] = []
    for i in sorted(members[split]):
        row = rows[i]
        for answer, label in (
            (row["right_answer"], "supported"),
            (row["hallucinated_answer"], "unsupported"),
        ):
            pairs.append(
                SupportPair(
                    f"{row['question']} {answer}",
                    row["knowledge"],
                    label,
                    "halueval",
                    str(i),
                    answer_word_count(answer),
                )
            )
    return _match_lengths(pairs, seed) if length_matched else pairs


# -- SciFact: support --------------------------------------------------------------------

_CLAIMS = "SciFact claims JSON Lines (id, claim, evidence, cited_doc_ids)"
_CORPUS = "SciFact corpus JSON Lines (doc_id, title, abstract)"


def _load_corpus(path: str | Path) -> dict[int, list[str]]:
    file = _check_file(path, "corpus_path")
    corpus: dict[int, list[str]] = {}
    for number, record in _json_lines(file, _CORPUS):
        abstract = record.get("abstract")
        if not isinstance(abstract, list) or not isinstance(record.get("doc_id"), int):
            raise _bad_record(file, f"line {number}", _CORPUS)
        corpus[record["doc_id"]] = [str(sentence) for sentence in abstract]
    return corpus


def _load_claims(path: str | Path) -> list[dict[str, Any]]:
    file = _check_file(path, "claims_path")
    claims: list[dict[str, Any]] = []
    for number, record in _json_lines(file, _CLAIMS):
        ok = (
            isinstance(record.get("id"), int)
            and isinstance(record.get("claim"), str)
            and isinstance(record.get("evidence"), dict)
            and isinstance(record.get("cited_doc_ids"), list)
        )
        if not ok:
            raise _bad_record(file, f"line {number}", _CLAIMS)
        claims.append(record)
    return claims


def _best_sentences(claim: str, sentences: list[str], exclude: set[int]) -> str:
    """The two sentences BM25 ranks best for the claim, joined in document order."""
    best = BM25(sentences).top(claim, _SCIFACT_CONTEXT_SENTENCES, exclude=exclude)
    return " ".join(sentences[i] for i, _ in sorted(best))


def _doc_id(key: Any, where: str) -> int:
    try:
        return int(key)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"{where}: evidence doc id", key, "evidence keys must be the corpus doc_ids"
        ) from exc


def _evidence_set(evidence_set: Any, size: int, where: str) -> tuple[str, list[int]]:
    """The support label and sorted rationale sentence indices of one evidence set."""
    ok = isinstance(evidence_set, dict) and evidence_set.get("label") in _SCIFACT_LABELS
    indices = evidence_set.get("sentences") if ok else None
    if not (
        isinstance(indices, list)
        and indices
        and all(isinstance(i, int) and 0 <= i < size for i in indices)
    ):
        raise InvalidInputError(
            f"{where}: evidence set",
            evidence_set,
            "labels must be SUPPORT or CONTRADICT and sentence indices in the abstract",
        )
    return _SCIFACT_LABELS[evidence_set["label"]], sorted(indices)


def _claim_pairs(record: dict[str, Any], corpus: dict[int, list[str]]) -> list[SupportPair]:
    claim, group = record["claim"], str(record["id"])
    where = f"claim {group}"

    def sentences_of(doc_id: int) -> list[str]:
        if doc_id not in corpus:
            raise InvalidInputError(
                f"{where}: doc_id",
                doc_id,
                "give the corpus.jsonl that goes with these claims",
                problem="is not in the corpus",
            )
        return corpus[doc_id]

    def pair(evidence: str, label: str) -> SupportPair:
        return SupportPair(claim, evidence, label, "scifact", group)

    if not record["evidence"]:
        if not record["cited_doc_ids"]:
            return []
        return [
            pair(
                _best_sentences(claim, sentences_of(record["cited_doc_ids"][0]), set()),
                "unsupported",
            )
        ]
    pairs: list[SupportPair] = []
    for doc_key, sets in record["evidence"].items():
        sentences = sentences_of(_doc_id(doc_key, where))
        for evidence_set in sets:
            label, indices = _evidence_set(evidence_set, len(sentences), where)
            pairs.append(pair(" ".join(sentences[i] for i in indices), label))
    # The harder negative: the first evidence doc's best sentences that are no rationale.
    first_key = next(iter(record["evidence"]))
    sentences = sentences_of(_doc_id(first_key, where))
    rationale = {i for s in record["evidence"][first_key] for i in s["sentences"]}
    if len(rationale) < len(sentences):
        pairs.append(pair(_best_sentences(claim, sentences, rationale), "unsupported"))
    return pairs


def scifact_pairs(
    claims_path: str | Path, corpus_path: str | Path, split: str, *, seed: int = 13
) -> list[SupportPair]:
    """Supported, contradicted and unsupported claims from one split of SciFact.

    Claims are split 70/15/15 into train/validation/test by a permutation of their
    sorted ids drawn with ``seed``; within a split they keep file order. Per claim:

    - each evidence set gives its rationale sentences, joined by a space in document
      order, labelled ``"supported"`` (SUPPORT) or ``"contradicted"`` (CONTRADICT);
    - a claim with evidence also gets one harder ``"unsupported"`` pair: the two
      sentences of its first evidence document (the cited document the evidence
      names first) that BM25 ranks best for the claim among those that are not
      rationale sentences of any of its evidence sets; skipped if none is left;
    - a claim without evidence gets one ``"unsupported"`` pair: the two sentences of
      its first cited document that BM25 ranks best for the claim.

    Sentences are always joined in document order; each BM25 index is built over the
    sentences of that one document. ``group`` is the claim id.
    """
    _check_split(split)
    _check_count("seed", seed)
    claims = _load_claims(claims_path)
    corpus = _load_corpus(corpus_path)
    ids = [record["id"] for record in claims]
    if len(set(ids)) != len(ids):
        raise InvalidInputError("claim ids", ids, "give a claims file whose ids are unique")
    members = set(_assign(_permuted(sorted(ids), seed), _SCIFACT_WEIGHTS, "scifact claims")[split])
    return [p for record in claims if record["id"] in members for p in _claim_pairs(record, corpus)]


def halueval_rows(path: str | Path, split: str, *, seed: int = 13) -> list[dict[str, str]]:
    """The rows of one split of HaluEval QA, with the split of :func:`halueval_pairs`.

    Each row is ``{"knowledge", "question", "right_answer", "hallucinated_answer"}``, in
    file order. The ``k``-th row gives pairs ``2k`` and ``2k + 1`` of
    ``halueval_pairs(path, split, seed=seed)`` (whose ``group`` is the row's index in the
    file), so a caller can judge the question and each answer separately.
    """
    _check_split(split)
    _check_count("seed", seed)
    rows = _load_halueval(path)
    members = _assign(_permuted(range(len(rows)), seed), _HALUEVAL_WEIGHTS, "halueval rows")
    return [rows[i] for i in sorted(members[split])]
