"""The offline answerer: the admitted sentence that best answers, cited.

Nothing is generated, so nothing can be invented: the answer quotes one sentence of the
admitted evidence. The relevance model rates every sentence, weighted by its evidence's
confidence (``0.5 + 0.5 * confidence``) and, where a chat model read the passages for the
set's judgment, by its reading of the passage (:func:`readings`), quartered when it
lacks the kind of answer the question asks for (:mod:`assay.answer.expected`: "how long"
wants a duration) and again when it, with its passage's title path, states another year,
quarter, gender or model than the question (:mod:`assay.answer.qualifiers`); a table row
weighs less when the question names less of its header than of another row's of the
same table ("an adult ticket": the Adult row, not the Family row that mentions adults).
Which sentence leads is :mod:`assay.answer.choose`: the best-rated one, unless an
admitted passage of another, stronger or clearly more reliable source answers too. The
reader (:mod:`assay.answer.reading`) reads the strongest passages with their titles
first; when it finds no answer in any of them the answerer declines (an empty draft whose
``declined`` says why) rather than quote a topical sentence, unless one of them holds
a table row that the question names (:func:`assay.answer.reading.named_row`: the reader,
trained on prose, does not read tables), which then leads; and it declines when the
lead sentence states the answer only for another item than the question names ("first
car" for "a second car"). A sentence that asks, or says that someone does not know ("The
ranger station had no idea", of a forum post asking the question), answers nothing, and
evidence of nothing else is declined. The answer opens with the short answer: the cell
of a table row whose column the question names, else the reader's span within the quoted
sentence when it is short, else the date, quantity or name the question asks for
(:mod:`assay.answer.short`) from the clause that keeps to the question's qualifiers:
"About 3 hours: A full charge from empty takes about 3 hours. [Source: ...]". Answering
passages of other sources that give another value are named in ``Draft.disagreements``.
The relevance model reads a shortlist of the sentences (:data:`SHORTLIST`): all of the
strongest passage's, then those of the others that share the most words with the
question. A model that reads spans (the shipped heads) reads them first out of their
passages' token states, which ingest kept, and encodes only the best
:data:`CONFIRMED` of them to read them alone; any other model encodes each one.
Hedged answers carry the same text; the pipeline states the uncertainty. There is no
``llm_only`` answer without a language model. Clarifying questions come from a
template, phrasings from pseudo-relevance feedback (:mod:`assay.answer.expansion`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from assay.answer.base import AnswerMode, Draft, Uncertainty
from assay.answer.bounds import exceeds_bound, falls_short, per_each
from assay.answer.cases import with_rule
from assay.answer.choose import YES_OR_NO, Choice, Sentence, choose
from assay.answer.citations import cite, defuse_citations
from assay.answer.columns import column_clashes
from assay.answer.disagreement import opener_holds
from assay.answer.expansion import pseudo_relevance_phrasings
from assay.answer.expected import (
    AnswerKind,
    asks_what_to_do,
    asks_yes_or_no,
    expected_kind,
    wants_explanation,
)
from assay.answer.headings import dated_heading, heading_answer
from assay.answer.qualifiers import Qualifiers, qualifiers
from assay.answer.reading import (
    MARGIN_FLOOR,
    Found,
    named_row,
    read_evidence,
    rival_cells,
    row_weights,
    table_cell,
)
from assay.answer.short import lead_value, short_answer
from assay.answer.steps import with_steps
from assay.answer.within import POINTS_BACK, question_words_in, sentence_after, sentence_before
from assay.errors import InvalidInputError
from assay.judge.schema import Context, SourceConflict
from assay.models.definitions import defines
from assay.models.reader import SpanReader
from assay.models.relevance import RelevanceModel, SpanRelevanceModel
from assay.text import NAME, content_terms, sentence_spans, stem, term_cosine, titled

__all__ = ["READ_POWER", "ExtractiveAnswerer", "readings"]

_WRONG_KIND = 0.25  # weight of a sentence without the kind of answer asked for
#: the power of the chat model's belief a passage's sentences weigh by: its beliefs are
#: compressed (answering passages read 0.5-0.9, others 0.3-0.7). On the fitting suite's
#: first 69 answerable questions (informational) the drafts held the answer 42 times as
#: rated and 44 weighed by the square within each source; weighed across sources (46)
#: the reading let a forum post that echoes a question lead over the official answer
READ_POWER = 2.0
#: a sentence that asks ("Has management said anything about it?"), its emphasis aside:
#: a forum post's question, or an FAQ's heading, which the answer follows
_ASKS = re.compile(r"\?[*_\"')\]]*\s*$")
#: a sentence that says its writer (or someone) does not know: "The ranger station had no
#: idea", of a forum post that asks the question, answered "Can I fly my drone over
#: Kestrel Fjord national park?" (published at 0.56)
_UNKNOWING = re.compile(
    r"\b(?:no idea|no clue|not sure|unsure|(?:do|does|did)(?: not|n't) know|"
    r"(?:nobody|no one|no-one) (?:knows|knew)|can't say|cannot say|wondering)\b",
    re.IGNORECASE,
)
#: the most sentences a yes-or-no answer is quoted with from its passage's opening
OPENER_SENTENCES = 2
#: the most sentences after a bound the question's count goes past that are quoted with it
SEQUELS = 2


#: sentences the relevance model reads (it encodes each one it has not seen): those of
#: the strongest passage, then the others sharing the most words with the question. On
#: 623 SQuAD 2.0 questions against the 35 dev articles the quoted sentence stayed the
#: same for 96.8% of them and held the answer 487 times against 484, while a new
#: question encoded 7.2 sentences instead of 19.3
SHORTLIST = 8
#: how many of the shortlist are read alone (encoded) after a span model read them all
#: inside their passages: on 448 SQuAD 2.0 dev questions the draft stayed the same for
#: 96.4% (held the answer 76.6% against 76.8%). Quoting the best read in the passage
#: changed 21% of drafts and cost 0.03-0.04 AUROC of the answer's confidence on the
#: SQuAD test articles: the correctness model reads the answer alone
CONFIRMED = 3
#: for a yes-or-no question, how many sources with no rated sentence (the strongest
#: passage's sentences filled the shortlist) have their best sentence read aside, only
#: to find a disagreement: a data sheet's "must not run dry for more than 3 minutes" left
#: a forum post's "sat there humming in an empty bilge for over an hour" unread. Read
#: aside, such a sentence never takes the lead: rated like the rest, a chat post that
#: echoed the question outrated the official table row and led
ASIDE_SOURCES = 2


def _declined(found: Sequence[Found], kind: AnswerKind | None) -> str:
    """Why no answer was drafted: the reader found none in the strongest passages."""
    what = f"the {kind.description} it asks for" if kind is not None else "an answer to it"
    if len(found) == 1:
        return f"the one passage of the evidence that bears on the question does not state {what}"
    return f"none of the {len(found)} strongest passages of the evidence states {what}"


def _only_asked(
    question: str, lead: Sentence, split: tuple[list[str], list[_Span], list[bool]]
) -> bool:
    """Whether the lead's passage bears on ``question`` only by asking it: the lead names
    none of its words, and another sentence of the passage asks and names some ("Is
    there a bar?" of a review "Lovely screens. Is there a bar, or just the kiosk?", whose
    "Lovely screens." was published at 0.94). A bare yes or no of an FAQ answers."""
    if question_words_in(question, lead.text) or YES_OR_NO.match(lead.text):
        return False
    return any(
        w.context is lead.context and _ASKS.search(s) and question_words_in(question, s)
        for s, w, _ in zip(*split, strict=True)
    )


def _named_row(question: str, found: Sequence[Found]) -> Sentence | None:
    """The table row the question names in the strongest read passage that holds one."""
    for f in found:
        where = named_row(question, defuse_citations(f.context.text))
        if where is not None:
            return Sentence(f.context, *where, 1.0)
    return None


def readings(evidence: Sequence[Context]) -> dict[int, float]:
    """What each passage's sentences weigh for the chat model's reading of it (keyed by
    ``id`` of the context), among the passages of its source: its belief that the
    passage states the answer, where it read the passage (:attr:`Context.read`), over
    the best belief among its source's passages, to the power :data:`READ_POWER`; a
    passage it did not read counts as the one it read as least answering; 1.0 each where
    it read none. The best-read passage of each source weighs 1.0, so which source may
    lead stays :mod:`assay.answer.choose`'s: a forum post the chat model reads as
    answering never outweighs an official text that answers too."""
    unread = min((c.read for c in evidence if c.read is not None), default=1.0)
    belief = {id(c): unread if c.read is None else c.read for c in evidence}
    best: dict[str | None, float] = {}
    for c in evidence:
        best[c.source_id] = max(best.get(c.source_id, 0.0), belief[id(c)])
    return {
        id(c): (belief[id(c)] / best[c.source_id]) ** READ_POWER if best[c.source_id] else 1.0
        for c in evidence
    }


def _who(c: Context) -> str:
    """The source of a passage, as the notes name it."""
    if c.source_id is None:
        return "another passage"
    return f"{c.source_id} ({c.source_kind})" if c.source_kind else c.source_id


def _terms(text: str) -> Counter[str]:
    return Counter(stem(t) for t in content_terms(text))


@dataclass(frozen=True, slots=True)
class _Span:
    """Where a sentence sits: characters ``[start, end)`` of its context's text."""

    context: Context
    start: int
    end: int


def _balanced(span: str) -> bool:
    """Whether every bracket ``span`` opens it closes, and the other way round."""
    depth = 0
    for ch in span:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _with_antecedent(lead: Sentence, *, named_again: bool = True) -> Sentence:
    """``lead`` with the sentence before it in its line when it opens by pointing back
    to that one (:data:`~assay.answer.within.POINTS_BACK`): "Seafield Road is controlled
    from 1 April to 30 September. Outside those months anyone may park in the bays."
    quoted whole; or names as "the" something that one brought in ("a reminder" ... "the
    reminder"): "We'll send
    you a reminder after 14 days. If the bill is still unpaid 28 days after the reminder,
    we may pass it to a debt collection agency." quoted whole for "What happens if I miss
    a payment?" (``named_again=False``: not so, for a yes-or-no question, whose answer
    the rule gives and whose sentence before may open with another question's "Yes.")."""
    before = sentence_before(lead)  # none for the first of its line: no sure antecedent
    if before is None:
        return lead
    again = named_again and _names_again(lead.context.text[slice(*before)], lead.text)
    if POINTS_BACK.search(lead.text) or again:
        return replace(lead, start=before[0])
    return lead


#: what a sentence brings in: the word or two after "a" or "an" ("a reminder", "a
#: written reminder")
_BROUGHT_IN = re.compile(r"\ban?\s+([a-z]+)(?:\s+([a-z]+))?", re.IGNORECASE)


#: a thing named as known: "the reminder", not "the house of the Baryczko family", which
#: its own words define
_THE = re.compile(r"\bthe\s+([a-z]+)\b(?!\s+(?:of|that|which|who|whose|where)\b)", re.I)


def _names_again(before: str, sentence: str) -> bool:
    """Whether ``sentence`` names as "the" something ``before`` brought in with "a" or
    "an", and does not bring it in itself ("a town house of the Burbach family" ... "the
    house of the Baryczko family" is another house)."""
    brought = {
        w.lower() for m in _BROUGHT_IN.finditer(before) for w in m.groups()
        if w and len(w) > 3 and content_terms(w)
    }  # fmt: skip
    again = {m.group(1).lower() for m in _THE.finditer(sentence)}
    own = {w.lower() for m in _BROUGHT_IN.finditer(sentence) for w in m.groups() if w}
    return bool((brought & again) - own)


def _whole_sentence(lead: Sentence) -> Sentence:
    """``lead`` with the rest of its sentence where a semicolon parted them (sentences are
    read apart at semicolons, but quoted whole): "Annual passes can be cancelled within
    14 days of purchase for a full refund; after that no refund is given." A part runs on
    into the next on the same line (a list's items stand on lines of their own)."""
    text = lead.context.text
    spans = sentence_spans(text)
    start, end = lead.start, lead.end

    def runs_on(b: int, a: int) -> bool:  # the part ending at b runs on into the one at a
        return text[b - 1 : b] == ";" and "\n" not in text[b:a]

    for a, b in reversed([s for s in spans if s[1] <= start]):  # back to the sentence's start
        if not runs_on(b, start):
            break
        start = a
    for a, b in [s for s in spans if s[0] >= end]:  # and on to its end
        if not runs_on(end, a):
            break
        end = b
    return replace(lead, start=start, end=end)


def _with_sequel(question: str, lead: Sentence) -> Sentence:
    """``lead`` with the sentence after it on its line: where the question's count goes
    past the bound ``lead`` states (:func:`~assay.answer.bounds.exceeds_bound`), the rule
    goes on there ("Each further item costs £10, up to 6 items in total."); and with the
    one after that where the count goes past that one's bound too ("35 kg" against "up
    to 23 kg. A bag over 23 kg and up to 32 kg costs £45 ... Bags over 32 kg are not
    accepted"), at most :data:`SEQUELS` sentences."""
    for _ in range(SEQUELS):
        after = sentence_after(lead)
        if after is None:
            break
        lead = replace(lead, end=after[1])
        if not exceeds_bound(question, lead.context.text[after[0] : after[1]]):
            break
    return lead


def _with_opener(lead: Sentence) -> Sentence:
    """``lead`` quoted from the opening of its passage when that opens with the answer to
    a yes-or-no question ("No. A voucher is only valid in the zone printed on it. If your
    visitor parks in a neighbouring zone, ..."): the reader reads the answer first, not
    only the sentence that best matched the question's words. Only within the opening
    line and at most :data:`OPENER_SENTENCES` sentences from it."""
    text = lead.context.text
    if lead.start == 0 or not opener_holds(lead) or "\n" in text[: lead.start]:
        return lead
    if sum(1 for _, b in sentence_spans(text) if b <= lead.start) > OPENER_SENTENCES:
        return lead
    return replace(lead, start=0)


def _read_in_passages(model: SpanRelevanceModel, question: str, spans: list[_Span]) -> list[float]:
    """``model``'s relevance of each sentence, read out of its passage's token states
    (ingest kept them: no sentence is encoded); each passage is read once."""
    by_context: dict[int, list[int]] = {}
    for n, span in enumerate(spans):
        by_context.setdefault(id(span.context), []).append(n)
    out = [0.0] * len(spans)
    for group in by_context.values():
        context = spans[group[0]].context
        passage = titled(context.title, context.text)
        shift = len(passage) - len(context.text)  # the title path before the text
        read = model.score_spans(
            question, passage, [(spans[n].start + shift, spans[n].end + shift) for n in group]
        )
        for n, score in zip(group, read, strict=True):
            out[n] = score
    return out


class ExtractiveAnswerer:
    """Answers with cited sentences of the evidence; see the module docstring."""

    can_answer_without_evidence = False

    def __init__(
        self,
        relevance: RelevanceModel | None = None,
        *,
        reader: SpanReader | None = None,
        shortlist: int | None = SHORTLIST,
    ) -> None:
        """``relevance`` ranks sentences (``None``: by the question's words they share);
        ``reader`` (:mod:`assay.models.reader`) finds the span that answers;
        ``shortlist`` is how many sentences ``relevance`` reads (see :meth:`_rank`; all
        of the strongest passage's even when they are more; ``None``: every sentence);
        the rest are not quoted."""
        given = 1 if shortlist is None else shortlist
        if isinstance(given, bool) or not isinstance(given, int) or given < 1:
            raise InvalidInputError("shortlist", shortlist, "give 1 or more")
        self.relevance = relevance
        self.reader = reader
        self.shortlist = shortlist
        ranker = "word overlap"
        if relevance is not None:
            ranker = relevance.name + ("" if shortlist is None else f" shortlist {shortlist}")
            if isinstance(relevance, SpanRelevanceModel):
                ranker += f" in passage, best {CONFIRMED} alone"
        self.name = f"extractive-v1[{ranker}]"
        if reader is not None:
            self.name = f"extractive-v2[{ranker}+{reader.name}]"

    def answer(
        self,
        question: str,
        evidence: Sequence[Context],
        *,
        mode: AnswerMode = "standard",
        uncertainty: Uncertainty | None = None,
    ) -> Draft:
        """The best-answering sentences of ``evidence``, each with its citation."""
        if mode == "llm_only":
            raise InvalidInputError(
                "answerer", self.name, "set ASSAY_ANSWERER=llm and ASSAY_LLM_URL for answers "
                "without evidence", problem="cannot answer without evidence",
            )  # fmt: skip
        if mode == "hedged" and uncertainty is None:
            raise InvalidInputError("uncertainty", None, "give the hedged answer's uncertainty")
        strongest = max(
            evidence, key=lambda c: -1.0 if c.confidence is None else c.confidence, default=None
        )
        sentences, of_strongest, where = [], [], []
        for context in evidence:
            text = defuse_citations(context.text)  # as long as the text: its spans hold
            for start, end in sentence_spans(text):
                if content_terms(text[start:end]):
                    sentences.append(text[start:end])
                    of_strongest.append(context is strongest)
                    where.append(_Span(context, start, end))
        if not sentences:
            return Draft("", self.name, None, mode)
        if all(_ASKS.search(s) or _UNKNOWING.search(s) for s in sentences):
            why = "the evidence that bears on it only asks it, or says that it does not know"
            return Draft("", self.name, None, mode, declined=why)
        kind, asked = expected_kind(question), qualifiers(question)
        found: list[Found] = []
        named: Sentence | None = None  # the table row that leads where nothing was read
        if self.reader is not None and not wants_explanation(question):
            found = read_evidence(self.reader, question, evidence)
            if (
                all(f.margin <= MARGIN_FLOOR for f in found)
                and not dated_heading(question, found)
                and not any(defines(question, c.text) for c in evidence)  # "- F22: ..."
            ):
                named = _named_row(question, found)
                if named is None:
                    return Draft("", self.name, None, mode, declined=_declined(found, kind))
        split = (sentences, where, of_strongest)
        other_row = column_clashes(question, sentences)  # a table row about another item
        choice = (
            Choice(named, None)
            if named is not None
            else self._choose(question, kind, asked, evidence, split, found, other_row)
        )
        if _only_asked(question, choice.lead, split):
            why = "the evidence that bears on it only asks it, or says that it does not know"
            return Draft("", self.name, None, mode, declined=why)
        yes_no = asks_yes_or_no(question)
        lead = _whole_sentence(_with_antecedent(choice.lead, named_again=not yes_no))
        if asks_what_to_do(question):  # "How do I top up the pressure?": all the steps
            lead = with_steps(lead)
        if yes_no:  # "Are dogs allowed?": the rule before its exception
            lead = _with_opener(with_rule(question, lead))
        past_bound = exceeds_bound(question, lead.text)  # "5 items" against "up to 3 items"
        if past_bound:
            lead = _with_sequel(question, lead)
        # "8 months" against "at least 12 months", "4 years" against "1 month for each
        # year": no value of the rule leads
        past_bound = past_bound or falls_short(question, lead.text) or per_each(question, lead.text)
        quote = defuse_citations(lead.text)
        other = asked.clashing(titled(lead.context.title, lead.text))
        column = next(  # the lead is one of the sentences, a named row too
            (c for w, c in zip(where, other_row, strict=True)
             if w.context is choice.lead.context and w.start == choice.lead.start),
            None,
        )  # fmt: skip
        if column is not None:
            other = [*other, column.lower()]
        if other:  # the best a sentence could do is state it for another item
            what = " or ".join(dict.fromkeys(other))
            said = quote.rstrip(" .")
            why = f'the evidence states it only for another {what} than asked: "{said}"'
            return Draft("", self.name, None, mode, declined=why)
        text = f"{quote} {cite(lead.context.id)}"
        # "Which version added ...?": the heading the sentence stands under answers
        own = defuse_citations(choice.lead.text)  # the short answer is the lead's own
        short = heading_answer(question, lead.context.title, own)
        short = None if past_bound else short or self._short(question, own, choice, kind)
        if short is not None and not _balanced(short):
            short = None  # "58.6%), helped by lower flour prices": cut out of a bracket
        if short is not None:
            short = short[0].upper() + short[1:]  # it opens the answer
            text = f"{short}: {text}"
        disagreements = tuple(
            f'{_who(d.context)} states "{d.states}", where {_who(lead.context)} states '
            f'"{short or quote}"; this answer follows the stronger evidence'
            for d in choice.disagreeing
        )
        conflicts = tuple(
            SourceConflict(
                claim=d.states, source_a=d.context.id, source_b=lead.context.id,
                nature="direct contradiction",
            )
            for d in choice.disagreeing
        )  # fmt: skip
        return Draft(
            text, self.name, None, mode, short, disagreements=disagreements, conflicts=conflicts
        )

    def _choose(
        self,
        question: str,
        kind: AnswerKind | None,
        asked: Qualifiers,
        evidence: Sequence[Context],
        split: tuple[list[str], list[_Span], list[bool]],
        found: Sequence[Found],
        other_row: Sequence[str | None],
    ) -> Choice:
        """The lead sentence (:func:`assay.answer.choose.choose`) of the evidence's
        sentences (``split``: each sentence, where it stands, whether it is of the
        strongest passage) as the relevance model rates them, each weighted by its
        evidence (see the module docstring); ``other_row``: the column on which each is
        a table row about another item (:func:`assay.answer.columns.column_clashes`)."""
        sentences, where, of_strongest = split
        tables = [(id(w.context), s) for s, w in zip(sentences, where, strict=True)]
        rows = row_weights(question, tables)
        read = readings(evidence)
        titles = [titled(w.context.title, s) for s, w in zip(sentences, where, strict=True)]
        # "When was 4.3.0 released?": where a sentence stands under that release, one
        # that does not is about another release (or none) and is never quoted. Only for
        # a question of a kind of value: for "What was fixed in 4.3.1?" the ratings within
        # the release's section are near zero, and the sentence quoted became noise
        of_release = [not asked.misses_release(t) for t in titles]
        other_release = 0.0 if kind is not None and any(of_release) else 1.0
        weights = [
            (1.0 if w.context.confidence is None else 0.5 + 0.5 * w.context.confidence)
            * read[id(w.context)]
            * (1.0 if kind is None or kind.found_in(s) else _WRONG_KIND)
            * (_WRONG_KIND if asked.clashes(t) or column else 1.0)
            * (1.0 if named else other_release)
            * (0.0 if _ASKS.search(s) or _UNKNOWING.search(s) else 1.0)  # it answers nothing
            * row
            for s, w, t, named, row, column in zip(
                sentences, where, titles, of_release, rows, other_row, strict=True
            )
        ]
        relevance = self._rank(question, sentences, weights, of_strongest, where)
        rated = [
            Sentence(w.context, w.start, w.end, r * weight)
            for w, r, weight in zip(where, relevance, weights, strict=True)
        ]
        yes_no = asks_yes_or_no(question)
        aside = self._aside(question, rated, weights) if yes_no else []
        choice = choose(
            rated, found, kind, yes_no=yes_no, asked=asked, question=question, aside=aside
        )
        assert choice is not None  # sentences is not empty
        return choice

    def _aside(self, question: str, rated: list[Sentence], weights: list[float]) -> list[Sentence]:
        """The sentences read aside for a yes-or-no question (:data:`ASIDE_SOURCES`):
        of each source none of whose sentences was rated, the one sharing the most words
        with ``question``, times its weight, rated by the relevance model."""
        if self.relevance is None:
            return []
        heard = {s.context.source_id for s in rated if s.score > 0}
        asked = _terms(question)
        best: dict[str | None, tuple[float, Sentence, float]] = {}
        for sentence, weight in zip(rated, weights, strict=True):
            source = sentence.context.source_id
            shared = term_cosine(asked, _terms(sentence.text)) * weight
            if source not in heard and shared > 0 and shared > best.get(source, (0.0,))[0]:
                best[source] = (shared, sentence, weight)
        unread = sorted(best.values(), key=lambda b: -b[0])[:ASIDE_SOURCES]
        read = self.relevance.score(question, [s.text for _, s, _ in unread]) if unread else []
        return [
            Sentence(s.context, s.start, s.end, r * weight)
            for (_, s, weight), r in zip(unread, read, strict=True)
        ]

    def _short(
        self, question: str, sentence: str, choice: Choice, kind: AnswerKind | None
    ) -> str | None:
        """The short answer that leads the quote: the cell of a table row the question's
        column names, none where the row's values compete, else the value the reader's
        span and the typed value of the lead sentence agree on
        (:func:`~assay.answer.short.lead_value`). ``kind`` is the kind of answer the
        question asks for (:func:`expected_kind`)."""
        if self.reader is None or wants_explanation(question):
            return short_answer(question, sentence) if self.reader is None else None
        cell = table_cell(question, sentence)
        if cell is not None:
            return cell
        if rival_cells(question, sentence):
            return None  # no column name picks one of the row's values
        return lead_value(question, sentence, choice.span, kind)

    def _rank(
        self,
        question: str,
        sentences: list[str],
        weights: list[float],
        strongest: list[bool],
        where: list[_Span],
    ) -> list[float]:
        """Relevance of each sentence; without a model, the share of the question's words
        it holds. The model reads the shortlist: every sentence of the strongest passage
        (``strongest``), then the others with the most shared words times ``weights``;
        the rest score 0. A model that reads spans reads them out of their passages'
        encodings first (``where``; ingest kept them) and alone only the best
        :data:`CONFIRMED`."""
        asked = _terms(question)
        if self.relevance is None:
            return [term_cosine(asked, _terms(s)) for s in sentences]
        keep = list(range(len(sentences)))
        if self.shortlist is not None and len(sentences) > self.shortlist:
            sure = [i for i in keep if strongest[i]]
            shared = {
                i: term_cosine(asked, _terms(sentences[i])) * weights[i]
                for i in keep
                if not strongest[i]
            }
            others = sorted(shared, key=lambda i: (-shared[i], i))
            keep = sorted(sure + others[: max(0, self.shortlist - len(sure))])
        if isinstance(self.relevance, SpanRelevanceModel):
            read = _read_in_passages(self.relevance, question, [where[i] for i in keep])
            in_passage = {i: r * weights[i] for i, r in zip(keep, read, strict=True)}
            keep = sorted(keep, key=lambda i: (-in_passage[i], i))[:CONFIRMED]
        out = [0.0] * len(sentences)
        read = self.relevance.score(question, [sentences[i] for i in keep])
        for i, score in zip(keep, read, strict=True):
            out[i] = score
        return out

    def clarify(self, question: str, evidence: Sequence[Context], missing: Sequence[str]) -> Draft:
        """Say what the evidence covers and ask about what it does not."""
        topics = [t for t, _ in Counter(
            t for c in evidence[:3] for t in content_terms(c.text) if len(t) > 3
        ).most_common(3)]  # fmt: skip
        found = f" I found passages about {', '.join(topics)}," if topics else ""
        gap = f" but none that mention {', '.join(missing)}." if missing else ""
        named = [m.group(0) for m in NAME.finditer(question) if m.group(0).lower() in missing]
        if named:  # "Python" needs no explaining: the documents may not cover it at all
            ask = f" Could you rephrase the question? The documents may not cover {named[0]}."
        elif missing:
            ask = f" Could you rephrase the question, or say what you mean by '{missing[0]}'?"
        else:
            ask = " Could you say more precisely what you would like to know?"
        return Draft(f"{found.strip()}{gap}{ask}".strip(), self.name, None, "clarify")

    def expand(self, question: str, evidence: Sequence[Context], n: int = 3) -> list[str]:
        """Phrasings by pseudo-relevance feedback from the top passages."""
        return pseudo_relevance_phrasings(question, evidence, n)
