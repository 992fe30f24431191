"""The offline answerer (G2, R8): cited sentences of the evidence, the kind of answer a
question asks for, clarifying questions and pseudo-relevance-feedback phrasings."""

from __future__ import annotations

from dataclasses import replace

import pytest

from assay.answer.base import Uncertainty
from assay.answer.cases import rule_before_row
from assay.answer.citations import validate_citations
from assay.answer.disagreement import opener_holds
from assay.answer.expansion import feedback_terms, pseudo_relevance_phrasings
from assay.answer.expected import asks_what_to_do, expected_kind
from assay.answer.extractive import READ_POWER, ExtractiveAnswerer, readings
from assay.answer.reading import row_weights
from assay.answer.within import Sentence
from assay.errors import InvalidInputError
from assay.judge.schema import Context
from assay.models.reader import Reading
from assay.models.relevance import SpanRelevanceModel, get_relevance_model
from assay.text import titled

SDS = Context(
    "sds",
    "Charge the HX-40 only between 0 °C and 45 °C. A full charge from empty takes about "
    "3 hours. Use only the supplied charger.",
    0.95,
)
FORUM = Context("forum", "Honestly the HX-40 charges fine at 70 °C in my car.", 0.70)
WIKI = Context("wiki", "The HX-40 may be charged between 0 °C and 45 °C.", 0.80)


@pytest.fixture(scope="module")
def answerer() -> ExtractiveAnswerer:
    return ExtractiveAnswerer(get_relevance_model())


def test_g2_the_answer_is_cited_sentences_of_the_evidence(answerer: ExtractiveAnswerer) -> None:
    draft = answerer.answer("At what temperature may I charge the HX-40?", [SDS, WIKI])
    assert validate_citations(draft.text, ["sds", "wiki"]).ok
    assert draft.quoted.startswith("Charge the HX-40 only between 0 °C and 45 °C. [Source: sds]")
    assert "[Source: wiki]" not in draft.text  # the wiki only repeats it
    assert draft.answerer.startswith("extractive-v1[assay-relevance")  # no reader


def test_the_sentence_with_the_kind_of_answer_asked_for_wins(answerer: ExtractiveAnswerer) -> None:
    draft = answerer.answer("How long does a full charge of the HX-40 take?", [SDS])
    assert draft.quoted == "A full charge from empty takes about 3 hours. [Source: sds]"


def test_the_answer_states_the_duration_asked_for_first(answerer: ExtractiveAnswerer) -> None:
    draft = answerer.answer("How long does a full charge of the HX-40 take?", [SDS])
    assert draft.short == "About 3 hours"
    assert draft.text == f"About 3 hours: {draft.quoted}"
    assert draft.to_dict()["short"] == "About 3 hours"
    plain = answerer.answer("Can I charge the HX-40 at 70 °C?", [SDS])
    assert plain.short is None and plain.text == plain.quoted  # a yes/no question: no span


def test_a_second_sentence_never_contradicts_the_first(answerer: ExtractiveAnswerer) -> None:
    draft = answerer.answer("Can I charge the HX-40 at 70 °C?", [SDS, FORUM])
    assert not ("[Source: sds]" in draft.text and "[Source: forum]" in draft.text)


def test_r8_modes(answerer: ExtractiveAnswerer) -> None:
    hedged = answerer.answer(
        "Charging range?", [SDS], mode="hedged", uncertainty=Uncertainty(0.6, "medium")
    )
    assert hedged.mode == "hedged" and "[Source: sds]" in hedged.text
    with pytest.raises(InvalidInputError, match="cannot answer without evidence"):
        answerer.answer("Charging range?", [], mode="llm_only")
    with pytest.raises(InvalidInputError, match="uncertainty"):
        answerer.answer("Charging range?", [SDS], mode="hedged")
    assert answerer.answer("Charging range?", []).text == ""


def test_r8_the_clarifying_question_names_what_was_missing(answerer: ExtractiveAnswerer) -> None:
    draft = answerer.clarify("Warranty for hot climates?", [SDS], ["warranty"])
    assert draft.mode == "clarify" and draft.text.endswith("?")
    assert "warranty" in draft.text


def test_r8_pseudo_relevance_feedback_adds_the_evidence_vocabulary() -> None:
    terms = feedback_terms("How hot may it get when charging?", [SDS.text, WIKI.text])
    assert "hx-40" in terms and "charging" not in terms
    phrasings = pseudo_relevance_phrasings("How hot may it get when charging?", [SDS, WIKI])
    assert 1 <= len(phrasings) <= 3 and len(set(phrasings)) == len(phrasings)
    assert all(p.casefold() != "how hot may it get when charging?" for p in phrasings)
    assert phrasings[0].startswith("How hot may it get when charging? ")


@pytest.mark.parametrize(
    ("question", "kind", "holds", "lacks"),
    [
        ("When was the HX-40 released?", "date", "in March 2021", "it weighs 2 kg"),
        ("When can I visit?", "date", "open from 11:00 to 20:00", "Children under 12 may visit"),
        ("When does it open?", "date", "It opens in May.", "It may open soon."),
        ("I land at six. When does the desk open?", "date", "at 07:00", "at the desk"),
        ("How often is the blue bin collected?", "frequency", "every other week", "£52 per year"),
        ("How often is it serviced?", "frequency", "twice a year", "at the depot in 2026"),
        ("How soon must the report be out?", "duration", "within 5 business days", "for SEV-1"),
        ("How long does a charge take?", "duration", "about 3 hours", "between 0 °C and 45 °C"),
        ("How long does a refund take?", "duration", "within 5 business days", "with a receipt"),
        ("How long does a refund take?", "duration", "in ten working days", "in the app"),
        (  # a time set by the event it comes before
            "When do I need to tell you about my powered wheelchair?",
            "deadline",
            "at least 48 hours before you fly",
            "a wheelchair of up to 48 kg",
        ),
        ("What temperature range is safe?", "temperature", "0 °C to 45 °C", "three hours"),
        ("How much does the HX-40 cost?", "money", "It costs $400.", "It weighs 2 kg."),
        ("How much did I put down as a deposit?", "money", "a deposit of £2,175", "in 30 days"),
        ("What is the monthly rent for Flat 4B?", "money", "£1,450 a month", "Flat 4B, space 14"),
        ("How many cells does it have?", "count", "twelve cells", "lithium cells"),
        ("Who founded Halden Power?", "name", "It was founded by Ada Berg.", "it was founded."),
    ],
)
def test_expected_kind_of_answer(question: str, kind: str, holds: str, lacks: str) -> None:
    found = expected_kind(question)
    assert found is not None and found.name == kind
    assert found.found_in(holds) and not found.found_in(lacks)


def test_questions_of_no_recognised_kind_expect_nothing() -> None:
    assert expected_kind("Can I charge the HX-40 in a car?") is None
    assert expected_kind("Which charger do I use when I'm abroad?") is None  # a clause
    assert expected_kind("Which charger should I use?") is None
    # a death toll is no toll paid (COVID-QA: a right answer was withheld for it)
    assert expected_kind("What was the death toll in the 1918 epidemic?") is None


class ScriptedReader:
    """Finds the given span in any passage holding it, with the given margin."""

    name = "scripted-reader@0"

    def __init__(self, span: str, margin: float = 3.0) -> None:
        self.span, self.margin = span, margin

    def read(self, question: str, passage: str) -> Reading:
        at = passage.find(self.span)
        if at < 0:
            return Reading("", 0, 0, -2.0, 2.0)
        return Reading(self.span, at, at + len(self.span), self.margin, 0.0)


def test_the_reader_names_the_answerer_but_does_not_choose_the_sentence() -> None:
    reader = ScriptedReader("Use only the supplied charger")
    relevance = get_relevance_model()
    answerer = ExtractiveAnswerer(relevance, reader=reader)
    draft = answerer.answer("How long does a full charge of the HX-40 take?", [SDS])
    assert draft.quoted == "A full charge from empty takes about 3 hours. [Source: sds]"
    ranker = f"{relevance.name} shortlist 8 in passage, best 3 alone"
    assert draft.answerer == f"extractive-v2[{ranker}+scripted-reader@0]"


@pytest.mark.parametrize(
    ("question", "span", "margin", "short"),
    [
        ("What does a full charge from empty take?", "about 3 hours", 3.0, "about 3 hours"),
        ("Why does a full charge take so long?", "about 3 hours", 3.0, None),  # a reason
        ("What does a full charge from empty take?", "A full charge from empty takes about 3", 3.0,
         None),  # nearly the whole sentence
        ("How long does a full charge of the HX-40 take?", "about 3 hours", -1.0,
         "About 3 hours"),  # the typed span when the reader finds none
    ],
)  # fmt: skip
def test_the_readers_short_span_of_the_first_sentence_is_stated_first(
    question: str, span: str, margin: float, short: str | None
) -> None:
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader(span, margin))
    draft = answerer.answer(question, [SDS])
    assert draft.quoted == "A full charge from empty takes about 3 hours. [Source: sds]"
    assert draft.short == (short[0].upper() + short[1:] if short else None)


class RecordingReader(ScriptedReader):
    """A scripted reader that keeps every passage it is asked to read."""

    def __init__(self, span: str) -> None:
        super().__init__(span)
        self.passages: list[str] = []

    def read(self, question: str, passage: str) -> Reading:
        self.passages.append(passage)
        return super().read(question, passage)


def test_the_passages_the_correctness_model_reads_are_those_the_answerer_read() -> None:
    """The correctness rater reads the cited passage under its title path, as the
    answerer read it: the reader's cache answers instead of a second read."""
    reader = RecordingReader("about 3 hours")
    draft = ExtractiveAnswerer(get_relevance_model(), reader=reader).answer(
        "What does a full charge from empty take?", [SDS, WIKI]
    )
    assert "[Source: sds]" in draft.text and titled(SDS.title, SDS.text) in reader.passages


class RecordingRelevance:
    """The shipped relevance model, remembering which sentences it was asked to read."""

    def __init__(self) -> None:
        self.model = get_relevance_model()
        self.name = self.model.name
        self.read: list[str] = []

    def score(self, query: str, passages: list[str]) -> list[float]:
        self.read += passages
        return self.model.score(query, passages)


def test_the_relevance_model_reads_the_strongest_passage_then_the_best_by_shared_words() -> None:
    """Each sentence new to the relevance model costs an encoding: it reads every sentence
    of the strongest passage, then those of the others sharing most words with the
    question; the rest are left unread, and so unquoted."""
    filler = [
        Context(f"other-{i}", f"Warehouse {i} ships pallets on Tuesdays. It opens at {i} am.", 0.9)
        for i in range(3)
    ]
    question = "How long does a full charge of the HX-40 take?"
    relevance = RecordingRelevance()
    draft = ExtractiveAnswerer(relevance, shortlist=4).answer(question, [*filler, SDS, WIKI])
    assert relevance.read == [
        "Charge the HX-40 only between 0 °C and 45 °C.",
        "A full charge from empty takes about 3 hours.",
        "Use only the supplied charger.",
        "The HX-40 may be charged between 0 °C and 45 °C.",
    ]
    assert draft.quoted.startswith("A full charge from empty takes about 3 hours. [Source: sds]")
    assert "other-" not in draft.quoted
    everything = RecordingRelevance()
    ExtractiveAnswerer(everything, shortlist=None).answer(question, [*filler, SDS, WIKI])
    assert len(everything.read) == 10
    assert ExtractiveAnswerer(relevance).answer(question, []).text == ""


def test_r_a_yes_no_disagreement_of_a_source_left_unrated_is_read_aside() -> None:
    """Issue 41, the ordinary suite: a data sheet with many sentences filled the
    relevance model's shortlist, so the forum post that contradicts it was never rated
    and its disagreement went unnamed. Its best sentence is now read aside, for the
    disagreement alone: the data sheet still leads."""
    sheet = Context(
        "sheet",
        "Pumped liquid: fresh or sea water with light oil traces only. Water temperature: "
        "0 °C to 50 °C. Dry running: the HP-300 must not run dry for more than 3 minutes at "
        "a time. The HP-150 and HP-500 tolerate up to 2 minutes. Continuous duty is allowed "
        "while the pump is submerged. Solids: passes particles up to 4 mm. Larger debris is "
        "held back by the strainer. The housing is sealed to IP68. The motor has a thermal "
        "cut-out.",
        0.85, "HP series data sheet > Operating limits", "maker", "official",
    )  # fmt: skip
    post = Context(
        "post", "Don't worry about running these dry. My HP-300 sat humming in an empty bilge "
        "for over an hour and it still works.", 0.65, "Running a bilge pump dry?", "forum",
        "unverified",
    )  # fmt: skip
    question = "Is it fine to let my HP-300 run for a long time in an empty bilge?"
    relevance = RecordingRelevance()
    draft = ExtractiveAnswerer(relevance).answer(question, [sheet, post])
    assert draft.quoted.startswith("Dry running: the HP-300 must not run dry")
    assert len(draft.disagreements) == 1 and "forum (unverified)" in draft.disagreements[0]
    assert any("empty bilge" in s for s in relevance.read)


class RecordingSpans:
    """The shipped relevance model, remembering each (passage, sentence) it read inside
    its passage and each sentence it read on its own."""

    def __init__(self) -> None:
        self.model = get_relevance_model()
        assert isinstance(self.model, SpanRelevanceModel)
        self.name = self.model.name
        self.read: list[tuple[str, str]] = []
        self.alone: list[str] = []

    def score(self, query: str, passages: list[str]) -> list[float]:
        self.alone += passages
        return self.model.score(query, passages)

    def score_spans(self, query: str, passage: str, spans: list[tuple[int, int]]) -> list[float]:
        self.read += [(passage, passage[a:b]) for a, b in spans]
        return self.model.score_spans(query, passage, spans)


def test_sentences_are_read_inside_the_titled_passage_then_the_best_alone() -> None:
    """The passage is found as it was embedded (title path, line break, text) and each
    sentence read at its place in it, brackets of the passage's own included; only the
    best 3 of them are encoded, to be read alone."""
    sds = Context("sds", SDS.text.replace("the supplied", "the [supplied]"), 0.95, "HX-40 > Power")
    relevance = RecordingSpans()
    answerer = ExtractiveAnswerer(relevance)
    draft = answerer.answer("How long does a full charge of the HX-40 take?", [sds, WIKI])
    assert relevance.read == [
        (f"HX-40 > Power\n{sds.text}", "Charge the HX-40 only between 0 °C and 45 °C."),
        (f"HX-40 > Power\n{sds.text}", "A full charge from empty takes about 3 hours."),
        (f"HX-40 > Power\n{sds.text}", "Use only the [supplied] charger."),
        (WIKI.text, WIKI.text),
    ]
    assert len(relevance.alone) == 3 and set(relevance.alone) < {s for _, s in relevance.read}
    assert "A full charge from empty takes about 3 hours." in relevance.alone
    assert draft.quoted.startswith("A full charge from empty takes about 3 hours. [Source: sds]")
    assert answerer.name.endswith("shortlist 8 in passage, best 3 alone]")


@pytest.mark.parametrize("bad", [0, -1, True, 2.5])
def test_a_shortlist_that_is_no_count_is_refused(bad: object) -> None:
    with pytest.raises(InvalidInputError, match=r"shortlist=.*give 1 or more"):
        ExtractiveAnswerer(get_relevance_model(), shortlist=bad)  # type: ignore[arg-type]


class FindsNothing(ScriptedReader):
    """A reader sure that no passage holds a span answering anything."""

    def __init__(self) -> None:
        super().__init__("")

    def read(self, question: str, passage: str) -> Reading:
        return Reading("", 0, 0, -9.0, 9.0)


@pytest.mark.parametrize(
    "question",
    [
        "What happens if the pack overheats?",
        "What should I do when the pack overheats?",
        "Why does a full charge take so long?",
    ],
)
def test_a_question_that_wants_a_description_is_not_declined_for_want_of_a_span(
    question: str,
) -> None:
    """Issue 43 (second pass): "What happens if the battery pack overheats?" was refused
    as "none of the passages states an answer" beside the passage that says what does:
    the reader, trained on spans, finds none in a description. Like why and how, such a
    question gets the best-rated sentence."""
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=FindsNothing())
    assert answerer.answer("What is the charge time?", [SDS]).declined  # a span question
    draft = answerer.answer(question, [SDS])
    assert draft.declined is None and "[Source: sds]" in draft.text
    assert draft.short is None


PRICES = Context(
    "prices",
    "Ticket Adult: Price: EUR 14. Ticket Student (with card): Price: EUR 9. "
    "Ticket Family (2 adults, up to 3 children): Price: EUR 32.",
    0.9,
)


def test_the_table_row_the_question_names_wins_over_one_that_only_mentions_it(
    answerer: ExtractiveAnswerer,
) -> None:
    """The relevance model rates the Family row above the Adult row for an adult ticket
    (its "2 adults" is one more match); the row whose header the question names leads."""
    draft = answerer.answer("How much is an adult ticket?", [PRICES])
    assert draft.quoted == "Ticket Adult: Price: EUR 14. [Source: prices]"
    assert answerer.answer("What does a family ticket cost?", [PRICES]).quoted.startswith(
        "Ticket Family"
    )


def test_row_weights_lower_only_rows_of_one_table_that_name_less_of_the_question() -> None:
    rows = [
        ("t", "Ticket Adult: Price: EUR 14."),
        ("t", "Ticket Family (2 adults, up to 3 children): Price: EUR 32."),
        ("t", "Children under 12 go free."),  # prose beside the table
        ("u", "Ticket Family: Seats: 4."),  # another table, its only row
    ]
    adult, family, prose, alone = row_weights("How much is an adult ticket?", rows)
    assert adult == prose == alone == 1.0
    assert 0.5 <= family < 0.75  # it names "ticket" and "adults" among 7 terms
    assert row_weights("What are the prices?", rows[:2]) == [1.0, 1.0]  # names no row


def test_the_readers_sentence_leads_when_it_keeps_to_the_question_and_the_best_rated_does_not() -> (
    None
):
    """Issue 41: the relevance model rates the general opening hours above the sentence
    about Thursdays; the reader's span is in the one that names the day asked about."""
    hours = Context(
        "hours", "The museum is open Tuesday to Sunday from 10:00 to 17:00. On Thursdays it "
        "stays open until 21:00. It is closed on Mondays.", 0.9,
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader("21:00"))
    draft = answerer.answer("How late is the museum open on Thursday?", [hours])
    assert draft.quoted == "On Thursdays it stays open until 21:00. [Source: hours]"
    assert draft.short == "21:00"
    general = answerer.answer("How late is the museum open?", [hours])  # no day named
    assert general.quoted.startswith("The museum is open Tuesday to Sunday")


def test_a_when_question_quotes_the_sentence_with_a_time_not_one_saying_may() -> None:
    """Issue 41, found asking a hospital's visitor guide: "may" read as the month May, so
    the sentence about children ("under 12 may visit general wards") held the kind of
    answer "When can I visit a general ward?" asks for, and led with "12 may visit
    general wards" over the visiting hours."""
    children = Context(
        "children", "Children under 12 may visit general wards with an adult. They may not "
        "visit intensive care.", 0.85, source_id="guide",
    )  # fmt: skip
    hours = Context(
        "hours", "General wards are open to visitors from 11:00 to 20:00 every day.", 0.83,
        source_id="guide",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("When can I visit a general ward?", [children, hours])
    assert "11:00 to 20:00" in draft.quoted and "[Source: hours]" in draft.quoted


def test_an_answer_only_for_another_item_than_asked_is_declined(
    answerer: ExtractiveAnswerer,
) -> None:
    """The price list names the first car's permit alone: quoting it for "a second car"
    would give the first car's price as the second's, so the answerer declines and
    says which sentence came closest."""
    prices = Context(
        "lease",
        "Item Parking permit, first car: Charge: £120, When: Per year.\n"
        "Item Replacement key fob: Charge: £25, When: Per fob.",
        0.8,
    )
    draft = answerer.answer("How much is a parking permit for a second car?", [prices])
    assert draft.text == ""
    assert draft.declined is not None and "another car" in draft.declined
    assert "first car" in draft.declined
    first = answerer.answer("How much is a parking permit for a first car?", [prices])
    assert "£120" in first.text and first.declined is None


def test_a_sentence_that_asks_is_not_quoted_as_the_answer(answerer: ExtractiveAnswerer) -> None:
    """A forum post repeats the user's question in its own words, and the relevance
    model rates that echo highest; the sentence that answers is quoted, not the one that
    asks."""
    post = Context(
        "forum",
        "Can you replace the HX-40 battery at home? No, only a service centre may replace "
        "the battery.",
        0.7,
        "Forum > HX-40 battery",
    )
    draft = answerer.answer("Can I replace the HX-40 battery at home?", [post])
    assert draft.quoted.startswith("No, only a service centre may replace the battery.")


LOADS = Context(
    "loads",
    "Most riders carry shopping on the rack. The rear rack takes up to 80 kg on the Haul, "
    "so a child seat fits.",
    0.80,
    "Haul manual > Carrying loads",
)
SPECS = Context(
    "specs",
    "The bike itself weighs 31.6 kg with the battery fitted. Its frame is aluminium.",
    0.78,
    "Haul manual > Specifications",
)


def test_the_passage_the_chat_model_reads_as_answering_leads(
    answerer: ExtractiveAnswerer,
) -> None:
    """The relevance model rates the rack sentence best for a paraphrase of "how much
    does it weigh"; where the chat model read the passages for the set's judgment and
    reads the specifications as answering, their sentence leads."""
    question = "How heavy is the Haul if I have to lift it onto a car rack?"
    assert answerer.answer(question, [LOADS, SPECS]).quoted.startswith("The rear rack")
    read = [replace(LOADS, read=0.3), replace(SPECS, read=0.9)]
    assert answerer.answer(question, read).quoted.startswith("The bike itself weighs 31.6 kg")


def test_a_passage_the_chat_model_did_not_read_weighs_as_the_least_answering_one() -> None:
    unread = replace(WIKI, read=None)
    weights = readings([replace(SDS, read=0.9), replace(FORUM, read=0.2), unread])
    assert list(weights.values()) == pytest.approx([1.0] + [(0.2 / 0.9) ** READ_POWER] * 2)
    assert set(readings([SDS, FORUM]).values()) == {1.0}  # nothing read: sentences as rated


def test_the_reading_weighs_passages_within_a_source_not_one_source_against_another() -> None:
    """The best-read passage of each source weighs 1.0: a forum post the chat model reads
    as answering never outweighs an official text that answers too
    (:mod:`assay.answer.choose` decides between sources by their strength)."""
    official = [replace(SDS, source_id="sds", read=0.4), replace(WIKI, source_id="sds", read=0.2)]
    forum = replace(FORUM, source_id="forum", read=0.95)
    weights = list(readings([*official, forum]).values())
    assert weights == pytest.approx([1.0, 0.5**READ_POWER, 1.0])


def test_evidence_that_only_asks_or_does_not_know_is_declined() -> None:
    """Issue 41, the held-out ordinary suite: "Can I fly my drone over Kestrel Fjord
    national park?" was answered "The ranger station had no idea." (0.56), the only
    sentence of a forum post asking the same thing that was not itself a question."""
    post = Context("post", "Anyone know whether drones are allowed over the national park? "
                   "The ranger station had no idea.", 0.74, "Flying over the park", "forum",
                   "unverified")  # fmt: skip
    question = "Can I fly my drone over the national park?"
    draft = ExtractiveAnswerer(get_relevance_model()).answer(question, [post])
    assert draft.text == "" and draft.declined is not None and "only asks it" in draft.declined
    rule = Context("rule", "Drones may not be flown over the national park.", 0.7, None,
                   "park-rules", "official")  # fmt: skip
    answered = ExtractiveAnswerer(get_relevance_model()).answer(question, [post, rule])
    assert answered.quoted.startswith("Drones may not be flown over the national park.")
    # within a passage, the sentence that says it does not know is passed over
    unsure = Context("post", "I'm not sure whether drones are allowed over the national "
                     "park. The rangers told me they are banned there.", 0.74)  # fmt: skip
    told = ExtractiveAnswerer(get_relevance_model()).answer(question, [unsure])
    assert told.quoted.startswith("The rangers told me they are banned there.")


def test_a_post_that_asks_the_question_beside_a_remark_is_declined() -> None:
    """Found asking a cinema's pages: "Is there a bar?" was published as "Lovely screens."
    (0.94), the other sentence of a review that asks it. An FAQ's answer after its
    question names the question's words and answers."""
    review = Context("review", "Lovely screens. Is there a bar, or just the kiosk?", 0.7,
                     "Bar?", "reviews", "customer")  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer("Is there a bar?", [review])
    assert draft.text == "" and draft.declined is not None and "only asks it" in draft.declined
    faq = Context("faq", "Is there a bar? Yes, the bar on the first floor opens at 17:00.",
                  0.8, "Food and drink", "visiting", "official")  # fmt: skip
    answered = ExtractiveAnswerer(get_relevance_model()).answer("Is there a bar?", [faq])
    assert answered.quoted.startswith("Yes, the bar on the first floor opens at 17:00.")


def test_the_readers_sentence_leads_when_only_it_holds_the_kind_of_value_asked_for() -> None:
    """Issue 41, from the fitting suite's school-trips policy: the sentence naming the
    form is rated above the next one, which says "It" and holds the date; the reader's
    span is in the second, and only it holds a date."""
    consent = Context(
        "consent", "Type A: one Local Visits Consent form covers the whole school year. It "
        "must be returned by 30 September each year.", 0.9,
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader("30 September"))
    draft = answerer.answer(
        "By what date must the Local Visits Consent form be returned?", [consent]
    )
    assert draft.quoted == (  # with the sentence "It" points back to
        "Type A: one Local Visits Consent form covers the whole school year. It must be "
        "returned by 30 September each year. [Source: consent]"
    )
    assert draft.short == "30 September"
    # a question of no kind keeps the relevance model's choice
    what = answerer.answer("What does the Local Visits Consent form cover?", [consent])
    assert what.quoted.startswith("Type A: one Local Visits Consent form")


@pytest.mark.parametrize(
    ("question", "title", "text", "short"),
    [
        ("Which version added the diff command?", "Changelog > 4.1.0 — 2026-04-02 > Added",
         "- `loom diff` compares two ledgers and prints the differing transactions.", "4.1.0"),
        ("Which article covers flying at night?", "Ordinance 2025/12 > Article 11 — Night",
         "An aircraft flown between sunset and sunrise shall show a green light.", "Article 11"),
    ],
)  # fmt: skip
def test_a_question_for_a_part_of_the_document_is_answered_by_the_heading(
    question: str, title: str, text: str, short: str
) -> None:
    """Issue 41: "Which version added ...?" is answered by the heading the sentence
    stands under, which the sentence itself never names."""
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader("sunset"))
    draft = answerer.answer(question, [Context("c", text, 0.9, title=title)])
    assert draft.short == short
    assert draft.text.startswith(f"{short}: ")


def test_a_span_of_the_questions_own_words_is_no_short_answer() -> None:
    """Found asking a changelog of my own: "What Python version do I need?" opened with
    "Python:", the reader's span, which says nothing the question did not."""
    python = Context("python", "Tallyfold needs Python 3.10 or newer.", 0.9)
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader("Python"))
    draft = answerer.answer("What Python version do I need?", [python])
    assert draft.short is None
    assert draft.text.startswith("Tallyfold needs Python 3.10")


def test_a_question_naming_a_release_quotes_a_sentence_under_it_with_its_date() -> None:
    """Issue 41: "When was Tallyfold 3.1.0 released?" quoted the user guide's "Tallyfold
    needs Python 3.10 or newer", rated above the 3.1.0 entries, which share no word with
    the question. A sentence under no heading of the release asked about is not quoted
    while one under it is; the answer opens with that heading's date."""
    guide = Context("guide", "Tallyfold needs Python 3.10 or newer.", 0.83,
                    title="Tallyfold user guide (2026) > Installing")  # fmt: skip
    entry = Context("entry", "- `tally diff` compares two ledgers.", 0.87,
                    title="Tallyfold changelog > 3.1.0 — 2026-08-04 > Added")  # fmt: skip
    other = Context("other", "- `tally merge` joins two ledgers.", 0.85,
                    title="Tallyfold changelog > 3.2.0 — 2026-11-20 > Added")  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader("no such span"))
    draft = answerer.answer("When was Tallyfold 3.1.0 released?", [guide, other, entry])
    assert draft.text.startswith("2026-08-04: - `tally diff` compares two ledgers.")


def test_a_table_row_of_another_item_than_asked_is_not_quoted() -> None:
    """Issue 41, from the fitting suite's vet price list: "How much does the rabies
    vaccine cost for a cat?" quoted the cat's FCP row and its price, and was published.
    Only dogs have a rabies row: each row is about another vaccine or species, and the
    answerer says so; asked for a dog, the rabies row answers."""
    prices = Context(
        "prices",
        "Species Dog: Vaccine: Rabies, First dose: 12 weeks, Price: £68.00.\n"
        "Species Cat: Vaccine: FCP core, First dose: 9 weeks, Price: £52.00.\n"
        "Species Dog: Vaccine: DHP core, First dose: 8 weeks, Price: £46.00.",
        0.9,
        title="Vaccination prices",
    )
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader("£52.00"))
    cat = answerer.answer("How much does the rabies vaccine cost for a cat?", [prices])
    assert cat.text == ""
    assert cat.declined is not None and "another vaccine" in cat.declined
    dog = answerer.answer("How much is the rabies vaccine for a dog?", [prices])
    assert dog.quoted.startswith("Species Dog: Vaccine: Rabies")


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        # it points back: the sentence before says what "those months" are
        ("Zone E controls only apply from 1 April to 30 September. Outside those months "
         "anyone may park in the bays.",
         "Zone E controls only apply from 1 April to 30 September. Outside those months "
         "anyone may park in the bays."),
        # the document itself is no antecedent
        ("Permits are issued by the council. In this policy, anyone may park in the bays "
         "outside the controlled months.",
         "In this policy, anyone may park in the bays outside the controlled months."),
        # nor the line before: a list item's, another paragraph's
        ("Visitor vouchers are sold in books of ten.\nOutside those months anyone may park "
         "in the bays.", "Outside those months anyone may park in the bays."),
    ],
)  # fmt: skip
def test_a_sentence_that_points_back_is_quoted_with_the_one_before(text: str, quoted: str) -> None:
    """From the fitting suite's parking FAQ: "Do I need a permit to park outside my house
    in January?" quoted "Outside those months anyone may park in the bays." alone, which
    does not say which months."""
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader("anyone may park"))
    draft = answerer.answer("Can anyone park in the bays in January?", [Context("faq", text, 0.9)])
    assert draft.quoted == f"{quoted} [Source: faq]"


def test_a_span_cut_out_of_a_bracket_is_no_short_answer() -> None:
    """From the fitting suite's bakery results: the answer opened with "58.6%), helped by
    lower flour and butter prices in the second half:", the reader's span."""
    results = Context(
        "results", "Gross margin of 59.3% for the year (FY2025: 58.6%), helped by lower "
        "flour and butter prices in the second half.", 0.9,
    )  # fmt: skip
    reader = ScriptedReader("58.6%), helped by lower flour and butter prices")
    draft = ExtractiveAnswerer(get_relevance_model(), reader=reader).answer(
        "What helped the gross margin for the year?", [results]
    )
    assert not draft.text.startswith("58.6%)")


HELP_CENTRE = Context(
    "faq", "No. Spokeway bikes must stay inside the service area, which ends at the city "
    "boundary. Taking a bike outside the service area ends your hire.", 0.82,
    "Spokeway help centre > Can I take a bike on the train?", "faq", "verified_kb",
)  # fmt: skip


def test_a_yes_no_answer_is_quoted_from_the_opening_of_its_passage() -> None:
    """A knowledge base of my own (issue 41): "Can I take a Spokeway bike on the train?"
    quoted the help centre's second sentence alone, without the "No." it opens with."""
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "Can I take a Spokeway bike on the train?", [HELP_CENTRE]
    )
    assert draft.quoted.startswith("No. Spokeway bikes must stay inside the service area")


def test_r_a_yes_before_a_sentence_that_denies_is_not_the_answer() -> None:
    """The fitting suite's car hire FAQ answers "Do you need a credit card?" with "Yes.
    ... Debit cards are not accepted for the deposit."; asked "Can I pay the deposit with
    a debit card?", a passage of that shape was quoted "Yes. Debit cards are not
    accepted ...": its opening answers its own heading, not the question. A "Yes." before
    a sentence that denies is not quoted with it, and the sentence answers no, so a
    review that took a debit card disagrees."""
    faq = Context("faq", "Yes. Debit cards are not accepted for the deposit.", 0.9,
                  "Car hire FAQ > Do you need a credit card?", "faq", "official",
                  reliability=0.9)  # fmt: skip
    review = Context("review", "They took my debit card for the deposit, no problem.", 0.6,
                     "Deposit", "reviews", "customer", reliability=0.4)  # fmt: skip
    question = "Can I pay the deposit with a debit card?"
    draft = ExtractiveAnswerer(get_relevance_model()).answer(question, [faq, review])
    assert draft.quoted.startswith("Debit cards are not accepted for the deposit."), draft.quoted
    assert "reviews" in " ".join(draft.disagreements), draft.disagreements


def test_a_condition_that_says_no_leaves_the_opening_yes_standing() -> None:
    """A "no" inside a sentence's opening condition is no denial: under "Yes. ... If your
    system has no C-wire, the T3 requires a C-wire or the PA-1 adapter" the opening still
    answers for that sentence (held-out suite: a forum's "works fine without a C wire" is
    then still named as disagreeing)."""
    text = "Yes. The T3 needs a C-wire. If your system has no C-wire, fit the PA-1 adapter."
    faq = Context("faq", text, 0.9)
    condition = Sentence(faq, text.index("If your"), len(text), 0.5)
    assert opener_holds(condition)
    denial = "Yes. Debit cards are not accepted for the deposit."
    assert not opener_holds(Sentence(Context("faq", denial, 0.9), 5, len(denial), 0.5))


def test_a_yes_no_answer_past_the_opening_lines_is_quoted_alone() -> None:
    """Only an opening within :data:`OPENER_SENTENCES` and the same line is quoted."""
    far = replace(HELP_CENTRE, text="No. One. Two. Three. Spokeway bikes never go on trains.")
    line = replace(HELP_CENTRE, text="No.\nSpokeway bikes never go on trains.")
    for context in (far, line):
        draft = ExtractiveAnswerer(get_relevance_model()).answer(
            "Can I take a Spokeway bike on the train?", [context]
        )
        assert draft.quoted.startswith("Spokeway bikes never go on trains."), draft.quoted


def test_a_yes_no_disagreement_speaks_to_the_question() -> None:
    """Same knowledge base: the terms' "You must be at least 16 years old to hire a
    Spokeway bike." holds no "no" and shares the question's "bike", so it was named as
    disagreeing with the help centre's "No."; it says nothing of trains (nor does its
    heading), and a rival statement must speak to what the answer says of the question."""
    terms = Context(
        "terms", "You must be at least 16 years old to hire a Spokeway bike.", 0.70,
        "Spokeway terms of use > Who can ride", "terms", "official",
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "Can I take a Spokeway bike on the train?", [HELP_CENTRE, terms]
    )
    assert "Spokeway bikes must stay inside the service area" in draft.quoted
    assert draft.disagreements == ()


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("Annual passes can be cancelled within 14 days of purchase for a full refund; "
         "after that no refund is given. Monthly passes run to the end of the month.",
         "Annual passes can be cancelled within 14 days of purchase for a full refund; "
         "after that no refund is given."),
        ("Node.js 18 is no longer supported; Brindle needs Node.js 20 for 14 days.",
         "Node.js 18 is no longer supported; Brindle needs Node.js 20 for 14 days."),
        # a list's items are parted by a line, not run on
        ("- annual passes are refunded within 14 days;\n- after that no refund is given.",
         "- annual passes are refunded within 14 days;"),
    ],
)  # fmt: skip
def test_a_sentence_parted_at_a_semicolon_is_quoted_whole(text: str, quoted: str) -> None:
    """A knowledge base of my own: "Can I get a refund on my annual pass after three
    weeks?" quoted "... within 14 days of purchase for a full refund;" without the "after
    that no refund is given" that answers it."""
    reader = ScriptedReader("14 days")
    draft = ExtractiveAnswerer(get_relevance_model(), reader=reader).answer(
        "Can I get a refund on my annual pass within 14 days?", [Context("terms", text, 0.9)]
    )
    assert draft.quoted == f"{quoted} [Source: terms]"


def test_a_time_limit_asked_for_is_quoted_from_the_sentence_that_states_one() -> None:
    """A knowledge base of my own: "By when must paternity leave be taken?" quoted "Partners
    may take up to 4 weeks of paternity or partner leave", the sentence the relevance
    model rates highest, not the one after it that gives the limit. A question that asks
    for a value of a kind is answered by the passage's best sentence that holds one."""
    policy = Context(
        "policy", "Partners may take up to 4 weeks of paternity or partner leave, paid at "
        "full salary. It must be taken within 12 months of the birth or placement.", 0.8,
        "Family leave policy > Paternity and partner leave",
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "By when must paternity leave be taken?", [policy]
    )
    assert "within 12 months of the birth" in draft.quoted, draft.quoted


def test_a_when_question_is_answered_by_the_date_of_the_heading_its_sentence_stands_under() -> None:
    """A third knowledge base of my own: "When was log streaming added?" was declined ("the
    one passage ... does not state the date") though the changelog entry stands under
    "3.2.0 (2026-09-14)". A question that pins no release down is answered by the date
    of the section its sentence stands under, and the reader finding no date in the text
    does not decline it."""
    streaming = Context("new", "- `brindle logs --follow` streams logs live.", 0.8,
                        title="Changelog > 3.2.0 (2026-09-14)")  # fmt: skip
    older = Context("old", "- Added `brindle env pull` to download environment variables.", 0.6,
                    title="Changelog > 3.1.0 (2026-05-03)")  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader("no such span"))
    draft = answerer.answer("When was log streaming added?", [streaming, older])
    assert draft.text.startswith("2026-09-14: - `brindle logs --follow` streams logs live.")


def test_r8_a_name_the_evidence_never_mentions_is_not_asked_about(
    answerer: ExtractiveAnswerer,
) -> None:
    """A knowledge base of my own: "Does Brindle support Python?" asked "say what you mean
    by 'python'"; a name needs no explaining, the documents may just not cover it."""
    draft = answerer.clarify("Does Brindle support Python?", [SDS], ["python"])
    assert "The documents may not cover Python." in draft.text
    assert "what you mean" not in draft.text


def test_a_question_asking_what_to_do_is_answered_by_an_instruction() -> None:
    """Found asking a mobile network's help page: "My phone was stolen, what should I
    do?" quoted "A replacement SIM is free and arrives in 2 working days.", which the
    relevance model rated above the instruction that answers."""
    stolen = Context(
        "stolen",
        "Call us on 0330 123 4567 straight away and we will bar your SIM. You are "
        "responsible for charges made before you tell us. A replacement SIM is free and "
        "arrives in 2 working days.",
        0.9,
        title="Mobile help > Lost or stolen phone",
    )
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("My phone was stolen, what should I do?", [stolen])
    assert draft.quoted.startswith("Call us on 0330 123 4567 straight away")
    free = answerer.answer("Is a replacement SIM free?", [stolen])  # a fact, not what to do
    assert free.quoted.startswith("A replacement SIM is free")


def test_asked_how_to_do_something_the_steps_answer_not_what_it_does() -> None:
    """A broadband provider's router guide of my own: "How do I factory reset the
    router?" quoted "A factory reset deletes your own Wi-Fi name and password.", which
    the relevance model rated above the steps that answer."""
    reset = Context(
        "reset",
        "A factory reset deletes your own Wi-Fi name and password. Push a paperclip into "
        "the pinhole on the back and hold it for 15 seconds, until the light flashes white.",
        0.9,
        title="Meridian Hub 3 > Restarting and resetting",
    )
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("How do I factory reset the router?", [reset])
    assert draft.quoted.startswith("Push a paperclip into the pinhole")
    lost = answerer.answer("What does a factory reset delete?", [reset])  # a fact
    assert lost.quoted.startswith("A factory reset deletes")


def test_a_question_about_a_case_quotes_the_sentence_stating_that_case() -> None:
    """A hotel's guest booklet of my own: "Where can I park if the hotel car park is
    full?" quoted "Our car park has 14 spaces ...", which the relevance model rated a hair
    above the sentence that states the case asked about."""
    parking = Context(
        "parking",
        "Our car park has 14 spaces and cannot be booked in advance. Parking costs £10 per "
        "night, paid at reception. When it is full, the long-stay car park on Abbey Road is "
        "a five-minute walk away.",
        0.9,
        title="Harbourside Hotel guest information > Parking",
    )
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("Where can I park if the hotel car park is full?", [parking])
    assert draft.quoted.startswith("When it is full, the long-stay car park"), draft.quoted
    spaces = answerer.answer("How many spaces does the car park have?", [parking])
    assert spaces.quoted.startswith("Our car park has 14 spaces")  # no case asked


def test_asked_whether_it_is_allowed_the_rule_comes_with_its_exception() -> None:
    """A hotel's guest booklet of my own: "Are dogs allowed?" quoted "Dogs are not allowed
    in the Quay Room or the spa." alone, the exception, which the relevance model rated
    far above the rule before it."""
    pets = Context(
        "pets",
        "Dogs are welcome in our ground-floor rooms for £15 per dog per night, up to two dogs "
        "per room. Dogs are not allowed in the Quay Room or the spa.",
        0.9,
        title="Harbourside Hotel guest information > Pets",
    )
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("Are dogs allowed?", [pets])
    assert draft.quoted.startswith("Dogs are welcome in our ground-floor rooms"), draft.quoted
    assert "Dogs are not allowed in the Quay Room" in draft.quoted
    spa = answerer.answer("Are dogs allowed in the spa?", [pets])  # the exception asked
    assert spa.quoted.startswith("Dogs are not allowed in the Quay Room or the spa")


def test_asked_whether_a_time_that_denies_it_comes_with_the_rule_before() -> None:
    """A cinema's membership terms of my own: "Can I get my membership money back?" was
    published as "After 14 days, membership cannot be refunded." alone, the time the
    refund is denied, not the 14 days in which it is given."""
    cancelling = Context(
        "cancelling",
        "You can cancel within 14 days of joining and get a full refund, as long as you have "
        "not used a free ticket. After 14 days, membership cannot be refunded.",
        0.8,
        title="Lyric Plus membership > Cancelling",
    )
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("Can I get my membership money back?", [cancelling])
    assert draft.quoted.startswith("You can cancel within 14 days of joining"), draft.quoted
    assert "After 14 days, membership cannot be refunded." in draft.quoted


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("How do I factory reset the router?", True),
        ("How can I change my Wi-Fi password?", True),
        ("My phone was stolen, what should I do?", True),
        ("How do I know if my claim was received?", False),  # a fact, not steps
        ("How do I qualify for the discount?", False),  # a condition
        ("How much do I pay?", False),
    ],
)
def test_which_questions_ask_what_to_do(question: str, asks: bool) -> None:
    assert asks_what_to_do(question) is asks


def test_asked_whether_it_is_free_a_price_disagrees_with_free() -> None:
    """Found asking a mobile network's plans: "Is roaming free in the EU?" quoted the plan's
    "costs £2 a day" and left the forum's "EU roaming is still free" unnamed, since
    neither sentence denies anything."""
    plans = Context(
        "plans", "Roaming in the EU costs £2 a day, and you can use your UK allowance there.",
        0.76, "Price plans > Roaming", "plans-2026", "official",
    )  # fmt: skip
    post = Context(
        "post", "EU roaming is still free on Lumo, I went to Spain last month and paid nothing.",
        0.66, "Community", "forum", "customer",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("Is roaming free in the EU?", [plans, post])
    assert draft.quoted.startswith("Roaming in the EU costs £2 a day")
    assert len(draft.disagreements) == 1 and "forum (customer)" in draft.disagreements[0]
    sim = Context("sim", "A replacement SIM is free and arrives in 2 working days.", 0.8,
                  "Help > Lost phone", "help", "official")  # fmt: skip
    agrees = answerer.answer("Is a replacement SIM free?", [sim, post])
    assert agrees.disagreements == ()  # free and free: no disagreement


def test_below_the_minimum_no_value_of_the_rule_leads() -> None:
    """From a family leave policy of my own: "I've worked here for 8 months. Will my
    maternity leave be on full pay?" led with "The first 26 weeks are paid at full
    salary", which holds only from 12 months of service."""
    pay = Context(
        "pay", "The first 26 weeks are paid at full salary once you have worked for us for "
        "at least 12 months; with less service, statutory pay applies throughout.", 0.9,
        title="Family leave policy > Maternity pay",
    )  # fmt: skip
    reader = ScriptedReader("The first 26 weeks are paid at full salary")
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=reader)
    question = "I've worked here for 8 months. Will my maternity leave be on full pay?"
    draft = answerer.answer(question, [pay])
    assert draft.short is None and draft.text.startswith("The first 26 weeks are paid")
    assert "statutory pay applies throughout" in draft.text


def test_a_yes_or_no_question_is_drafted_from_the_terms_not_the_review_echoing_it() -> None:
    """Found asking a car hire's terms: "Is mileage unlimited?" was drafted from a
    review's "Mileage is unlimited so we drove all over Scotland." (its words echo the
    question), which is never published while the terms are admitted; the terms' limit
    now leads, and the review is named as disagreeing: "up to 150 miles per day" says no
    to "unlimited" without denying anything."""
    terms = Context(
        "terms", "Each rental includes up to 150 miles per day. Every extra mile costs 25p.",
        0.57, "Rental terms > Mileage", "terms-2026", "official", reliability=1.0,
    )  # fmt: skip
    review = Context(
        "review", "Mileage is unlimited so we drove all over Scotland.", 0.59, "Review",
        "reviews", "customer", reliability=0.4,
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "Is mileage unlimited?", [review, terms]
    )
    assert draft.quoted.startswith("Each rental includes up to 150 miles per day.")
    assert len(draft.disagreements) == 1 and "reviews (customer)" in draft.disagreements[0]


def test_a_figure_of_an_official_table_drafts_over_a_forum_post_echoing_the_question() -> None:
    """Found asking a water company's pages: "What's the standing charge?" was drafted
    from a forum post ("The standing charge is £44 a year", last year's figure), rated
    above the charges table's row (0.78 of it, below ANSWERS_WITHIN); an official
    sentence holding the kind of value asked outweighs a forum post's, and the post is
    named as disagreeing."""
    table = Context(
        "charges", "Charge Water, per cubic metre: 2026/27: £2.14.\nCharge Standing charge, "
        "per year: 2026/27: £48.00.", 0.54, "Our charges 2026/27 > Metered customers",
        "charges-2026", "official", reliability=1.0,
    )  # fmt: skip
    forum = Context(
        "forum", "The standing charge is £44 a year on top of what you use.", 0.56,
        "Standing charge", "community", "customer", reliability=0.4,
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "What's the standing charge?", [forum, table]
    )
    assert "£48.00" in draft.quoted and "£44" not in draft.quoted, draft.text
    assert len(draft.disagreements) == 1 and "community (customer)" in draft.disagreements[0]


def test_asked_who_may_have_something_a_sentence_saying_who_it_is_for_answers() -> None:
    """Found asking a theatre's ticket prices: "Who can get a concession?" quoted the Upper
    Circle's row ("Concession: £18"), which the relevance model rates highest; "Concessions
    are for over-65s, full-time students and jobseekers" says who."""
    prices = Context(
        "prices", "Seating area Stalls: Standard: £38, Concession: £32.\nSeating area Upper "
        "Circle: Standard: £22, Concession: £18.\nConcessions are for over-65s, full-time "
        "students and jobseekers; bring proof when you collect your tickets.", 0.77,
        title="Ticket prices > Main house",
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer("Who can get a concession?", [prices])
    assert draft.quoted.startswith("Concessions are for over-65s"), draft.text


def test_a_sentence_naming_what_the_one_before_brought_in_is_quoted_with_it() -> None:
    """Found asking a water company's pages: "What happens if I miss a payment?" quoted
    "If the bill is still unpaid 28 days after the reminder, ...", which names "the
    reminder" that the sentence before brings in; not so for a yes-or-no question, whose
    sentence before may open with another question's "Yes."."""
    paying = Context(
        "paying", "We'll send you a reminder after 14 days. If the bill is still unpaid 28 "
        "days after the reminder, we may pass it to a debt collection agency.", 0.77,
        title="Paying your bill > If you miss a payment",
    )  # fmt: skip
    faq = Context(
        "faq", "Yes. The main driver must show a credit card in their own name at pick-up; "
        "we block a deposit of £250 on it. Debit cards are not accepted for the deposit.",
        0.8, title="FAQ > Do I need a credit card?",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("What happens if I miss a payment?", [paying])
    assert draft.quoted.startswith("We'll send you a reminder after 14 days."), draft.text
    draft = answerer.answer("Can I pay the deposit with a debit card?", [faq])
    assert draft.quoted.startswith("Debit cards are not accepted"), draft.text


def test_a_sum_of_another_charge_never_answers_the_charge_asked() -> None:
    """Found asking a restaurant's menu: "What is the service charge?" was answered "£15 per
    bottle" of "a corkage charge of £15 per bottle", the one sentence of the paragraph
    holding a sum of money; the service charge is "12.5%"."""
    service = Context(
        "service", "A discretionary service charge of 12.5% is added to tables of six or more. "
        "You may bring your own wine on Tuesdays and Wednesdays for a corkage charge of £15 "
        "per bottle.", 0.8, title="Autumn menu > Service and corkage",
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "What is the service charge?", [service]
    )
    assert draft.quoted.startswith("A discretionary service charge of 12.5%"), draft.text


def test_a_question_opening_with_when_puts_no_case() -> None:
    """Found asking a hall of residence's terms: "When do I get my deposit back?" was read
    as putting the case "do I get my deposit back" and quoted "A deposit of £250 is due
    when you accept your room offer." (a case naming the deposit) over "We return it
    within 28 days of the end of your licence"."""
    deposit = Context(
        "deposit", "A deposit of £250 is due when you accept your room offer. We return it "
        "within 28 days of the end of your licence, less any charges for damage or "
        "cleaning.", 0.75, title="Residence licence > Deposit",
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "When do I get my deposit back?", [deposit]
    )
    assert "within 28 days of the end of your licence" in draft.quoted, draft.text


def test_a_thing_named_by_its_own_words_is_not_named_again() -> None:
    """On SQuAD's Warsaw article, "the house of Baryczko merchant family" is no second
    mention of "a town house of Burbach family" before it: quoting both sentences gave
    the judge a claim it could not support and withheld a right answer."""
    warsaw = Context(
        "warsaw", "The most significant buildings are St. Mary's Church (1411) and a town "
        "house of Burbach family (14th century). The most notable examples of Renaissance "
        "architecture in the city are the house of Baryczko merchant family (1562) and "
        "Salwator tenement (1632).", 0.8, title="Warsaw",
    )  # fmt: skip
    question = "The house of the Baryczko merchant family is an example of what architecture?"
    draft = ExtractiveAnswerer(get_relevance_model()).answer(question, [warsaw])
    assert draft.quoted.startswith("The most notable examples of Renaissance"), draft.text


def test_a_yes_or_no_question_is_answered_by_the_rule_before_a_table_of_its_cases() -> None:
    """Found asking a museum's pages: "Is it free to get in?" was published as "Ticket
    Under 5: Price: Free.", a row of the admission table rated a hair above "Entry to the
    permanent galleries is free."; a question naming the row's case still gets the row."""
    admission = Context(
        "admission", "Entry to the permanent galleries is free. Special exhibitions are "
        "ticketed:\n\nTicket Adult: Price: £14.\nTicket Under 5: Price: Free.", 0.71,
        title="Opening times and admission > Admission",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("Is it free to get in?", [admission])
    assert draft.quoted.startswith("Entry to the permanent galleries is free."), draft.text
    draft = answerer.answer("Is it free for children under 5?", [admission])
    assert draft.quoted.startswith("Ticket Under 5: Price: Free."), draft.text


def test_a_table_row_naming_nothing_asked_gives_way_to_the_rule_however_rated() -> None:
    """Found asking a tool hire shop's rates of my own: "Is it cheaper to hire for the
    weekend?" was published as the cement mixer's row (rated 0.24); the rule before the
    table, "a weekend ... costs the same as two days", was never rated (the passage's
    sentences read best were its rows). A row that names something asked keeps the lead."""
    text = (
        "A day is any 24 hours; a weekend runs from Friday 16:00 to Monday 09:00 and costs "
        "the same as two days.\n\nTool Cement mixer: 1 day: £28, Week: £70."
    )
    rates = Context("rates", text, 0.71, title="Hire rates 2026")
    weekend = Sentence(rates, text.index("a weekend"), text.index("\n"), 0.0)
    day = Sentence(rates, 0, text.index(";") + 1, 0.07)
    row = Sentence(rates, text.index("Tool"), len(text), 0.24)
    sentences = [day, weekend, row]
    assert rule_before_row("Is it cheaper to hire for the weekend?", row, sentences) == weekend
    assert rule_before_row("Is a cement mixer cheaper by the week?", row, sentences) == row


def test_a_sentence_that_points_back_names_what_the_one_before_it_names() -> None:
    """Found asking a damage waiver leaflet of my own: "Does the waiver cover theft?" was
    published as "The waiver covers accidental damage, but you still pay the first £50"
    over "It does not cover theft, loss, or damage caused by misuse" (rated 0.12 against
    0.47), whose "It" is the waiver: with it, the sentence names all the question asks."""
    waiver = Context(
        "waiver", "Every hire includes a damage waiver of 10% of the hire charge. The waiver "
        "covers accidental damage, but you still pay the first £50 of any repair. It does "
        "not cover theft, loss, or damage caused by misuse.", 0.7, title="Damage waiver",
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "Does the waiver cover theft?", [waiver]
    )
    assert "It does not cover theft" in draft.quoted, draft.text


def test_a_case_put_with_while_is_answered_by_the_sentence_stating_it() -> None:
    """Found in a forklift procedure: "How far must pedestrians stay from a truck while its
    load is raised above 2 m?" was published as "Pedestrians keep at least 3 m from any
    moving truck", rated a hair above "While a load is raised above 2 m, nobody may be
    within 5 m of the truck"."""
    rules = Context(
        "rules", "The rules below protect people on foot.\n\n- Pedestrians keep at least 3 m "
        "from any moving truck.\n- While a load is raised above 2 m, nobody may be within "
        "5 m of the truck in the aisle.", 0.89, title="Forklift procedure > Pedestrians",
    )  # fmt: skip
    question = "How far must pedestrians stay from a truck while its load is raised above 2 m?"
    draft = ExtractiveAnswerer(get_relevance_model()).answer(question, [rules])
    assert "within 5 m of the truck" in draft.quoted, draft.text


HOURS = Context(
    "hours", "The practice is open 8am to 6:30pm Monday to Friday. On Saturdays it is open "
    "9am to 12pm for booked appointments only. Outside these hours, call 111.", 0.9,
    title="Patient guide > Opening hours",
)  # fmt: skip


def test_a_day_the_question_names_goes_by_its_name_before_its_kind() -> None:
    """Found asking a museum's pages: "Is the museum open on Mondays?" was published as
    "The museum is open Tuesday to Sunday, ...", which speaks of weekdays too; the
    sentence about Mondays answers (quoted with the one before, which "It" points back to)."""
    museum = Context(
        "museum", "The museum is open Tuesday to Sunday, 10:00 to 17:00, with late opening "
        "until 21:00 on the first Friday of every month. It is closed on Mondays, except "
        "bank holiday Mondays, and from 24 to 26 December.", 0.9,
        title="Opening times and admission > Opening times",
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "Is the museum open on Mondays?", [museum]
    )
    assert "It is closed on Mondays, except bank holiday Mondays" in draft.quoted, draft.text


def test_a_question_about_a_kind_of_day_quotes_the_sentence_about_that_day() -> None:
    """Found asking a medical practice's guide: "Is the practice open on Saturday?" was
    published as "The practice is open 8am to 6:30pm Monday to Friday.", the sentence
    after it says what Saturdays are."""
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("Is the practice open on Saturday?", [HOURS])
    assert draft.quoted.startswith("On Saturdays it is open 9am to 12pm")
    weekday = answerer.answer("Is the practice open on Wednesday?", [HOURS])
    assert weekday.quoted.startswith("The practice is open 8am to 6:30pm Monday to Friday.")


def test_asked_what_a_thing_costs_a_price_leads_not_a_length_of_time() -> None:
    """Found asking an outdoor shop's delivery page: "How much is delivery?" was published
    as "Deliveries to Northern Ireland take up to 7 working days." (a figure, but no
    price) over the sentence that says what standard delivery costs."""
    delivery = Context(
        "delivery", "Standard delivery takes 3 to 5 working days and costs £4.95. Orders over "
        "£60 get free standard delivery.\nWe deliver to the UK and Ireland only. Deliveries "
        "to Northern Ireland take up to 7 working days.", 0.9,
        title="Delivery and returns > Delivery",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("How much is delivery?", [delivery])
    assert draft.quoted.startswith("Standard delivery takes 3 to 5 working days and costs £4.95")


def test_the_window_a_length_is_counted_in_is_no_answer_to_how_long() -> None:
    """Found asking an employment contract: "How long is company sick pay?" led with the
    reader's "12-month period" of "full pay for up to 10 working days in any 12-month
    period"."""
    sick = Context(
        "sick", "6.2 Company sick pay is full pay for up to 10 working days in any 12-month "
        "period, then statutory sick pay.", 0.9, title="Employment contract > 6. Sickness",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader("12-month period"))
    draft = answerer.answer("How long is company sick pay?", [sick])
    assert draft.short == "Up to 10 working days"


def test_asked_who_may_have_something_a_condition_answers() -> None:
    """Found asking an energy supplier's help centre: without a name to look for, "Who can
    get the Warm Home Discount?" quoted "Eligible customers receive a one-off £150
    discount", which the relevance model rates above the condition that answers."""
    discount = Context(
        "discount", "Eligible customers receive a one-off £150 discount on their electricity "
        "bill each winter. You may qualify if you receive Pension Credit.", 0.9,
        title="Help centre > Warm Home Discount",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("Who can get the Warm Home Discount?", [discount])
    assert draft.quoted.startswith("You may qualify if you receive Pension Credit.")


HOLIDAY = Context(
    "holiday", "5.1 You are entitled to 25 days' paid holiday a year plus UK bank holidays. "
    "You may carry up to 5 unused days into the next holiday year.", 0.9,
    title="Employment contract > 5. Holidays",
)  # fmt: skip
RETURNS = Context(
    "returns", "You can return unused items within 30 days of delivery for a full refund. "
    "Sale items can be returned within 14 days.", 0.9, title="Delivery and returns > Returns",
)  # fmt: skip

#: an earlier sentence that opens with a case is an exception itself, no rule: "How many
#: funds can I choose from?" was published as "10: If you do not choose a fund, ..."
FUNDS = Context(
    "funds", "If you do not choose a fund, your money goes into the Lifestyle Growth fund, "
    "which moves into lower-risk funds over the 10 years before your chosen retirement age. "
    "There are 12 other funds to choose from.", 0.9, title="Member guide > Investments",
)  # fmt: skip


@pytest.mark.parametrize(
    ("question", "context", "quoted"),
    [
        ("How many days of holiday do I get?", HOLIDAY, "5.1 You are entitled to 25 days'"),
        ("How many holiday days can I carry over?", HOLIDAY, "You may carry up to 5 unused"),
        ("How long do I have to return something?", RETURNS, "You can return unused items"),
        ("How long do I have to return a sale item?", RETURNS, "Sale items can be returned"),
        ("How many funds can I choose from?", FUNDS, "There are 12 other funds"),
    ],
)
def test_a_question_that_names_no_exception_is_answered_by_the_rule(
    question: str, context: Context, quoted: str
) -> None:
    """Found asking an employment contract and a shop's returns page: "How many days of
    holiday do I get?" was published as "5: You may carry up to 5 unused days ..." and
    "How long do I have to return something?" as "14 days: Sale items ...", the exception
    the relevance model rated a little above the rule stated before it. A question that
    names the exception ("carry over", "sale item") still gets it."""
    draft = ExtractiveAnswerer(get_relevance_model()).answer(question, [context])
    assert draft.quoted.startswith(quoted)


def test_a_reader_span_that_runs_on_past_a_duration_leads_with_the_duration() -> None:
    """Found asking an employment contract: "How long is probation?" would lead with the
    reader's "6 months of employment are a probationary period"."""
    probation = Context(
        "probation", "4.1 The first 6 months of employment are a probationary period. During "
        "probation either party may end employment with 1 week's notice.", 0.9,
        title="Employment contract > 4. Probation",
    )  # fmt: skip
    reader = ScriptedReader("6 months of employment are a probationary period")
    draft = ExtractiveAnswerer(get_relevance_model(), reader=reader).answer(
        "How long is probation?", [probation]
    )
    assert draft.short == "6 months"


@pytest.mark.parametrize(
    ("question", "sentence", "span", "short"),
    [
        ("How often do I need to give a meter reading?",
         "Send us a meter reading at least once every 3 months.", "3 months",
         "Once every 3 months"),
        ("By what time do the bins have to be out?",
         "Put your bins out by 6:30 am on your collection day, with the lid closed.", "6:30",
         "6:30 am"),
    ],
)  # fmt: skip
def test_a_reader_span_inside_the_asked_value_gives_the_whole_value(
    question: str, sentence: str, span: str, short: str
) -> None:
    """Found asking an energy supplier's help page: "How often do I need to give a meter
    reading?" led with the reader's "3 months" of "once every 3 months"."""
    context = Context("c", sentence, 0.9, title="Help")
    answerer = ExtractiveAnswerer(get_relevance_model(), reader=ScriptedReader(span))
    assert answerer.answer(question, [context]).short == short


WARDS = Context(
    "wards", "Adult wards are open to visitors from 11:00 to 20:00 every day. Wards close to "
    "visitors from 12:30 to 13:30 for protected mealtimes, when only a person helping a "
    "patient to eat may stay.", 0.9, title="Visiting policy > Visiting times",
)  # fmt: skip


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("When are the wards closed to visitors?", "Wards close to visitors"),
        ("What are the visiting times on the wards?", "Adult wards are open"),
    ],
)
def test_of_a_passages_sentences_the_one_naming_more_of_the_question_answers(
    question: str, quoted: str
) -> None:
    """Found asking a hospital's visiting policy of my own: "When are the wards closed to
    visitors?" was published as "11:00 to 20:00: Adult wards are open to visitors ...",
    which the relevance model rates above the sentence that says when they close (0.78
    against 0.71); it names the question's "closed" too. A question naming neither keeps
    the sentence rated first."""
    draft = ExtractiveAnswerer(get_relevance_model()).answer(question, [WARDS])
    assert draft.quoted.startswith(quoted)


def test_a_value_of_the_kind_asked_from_a_passage_naming_nothing_asked_never_leads() -> None:
    """Found asking a campsite's terms of my own: "How much is the deposit?" of a deposit
    stated as a share ("25% of the stay") was drafted as "£15: ... we refund everything
    except a £15 admin fee", the one sum in the answering passages, which names no
    deposit. The passage that states the deposit leads, though it names no sum."""
    deposits = Context(
        "deposits", "Pay a deposit of 25% of the stay when you book; the rest is due 14 days "
        "before you arrive.", 0.8, title="Booking and cancellation > Deposits",
    )  # fmt: skip
    cancelling = Context(
        "cancelling", "If you cancel more than 28 days before you arrive, we refund everything "
        "except a £15 admin fee. If you cancel 28 days or less before arrival, you lose the "
        "deposit.", 0.8, title="Booking and cancellation > Cancelling",
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "How much is the deposit?", [deposits, cancelling]
    )
    assert "25%" in draft.quoted and "£15" not in draft.text


def test_asked_whether_the_sentence_naming_more_of_the_question_answers() -> None:
    """Found asking a passport office's guidance of my own: "Do I keep the months left on
    my old passport?" was published as "A new adult passport is valid for 10 years, a
    child's for 5 years.", rated above the sentence before it that answers and names
    what is left on the old passport."""
    validity = Context(
        "validity", "Time left on your old passport is not added to your new one. A new "
        "adult passport is valid for 10 years, a child's for 5 years.", 0.8,
        title="Renew your passport > Remaining validity",
    )  # fmt: skip
    draft = ExtractiveAnswerer(get_relevance_model()).answer(
        "Do I keep the months left on my old passport?", [validity]
    )
    assert draft.quoted.startswith("Time left on your old passport is not added")
