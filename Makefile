# One task runner for people and CI alike.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

DATA   ?= ../shared/data
DATA_MORE ?= ../shared/data_more

.PHONY: install browser postgres run test test-llm test-long lint format bench bench-models bench-judge bench-pipeline bench-pipeline-llm bench-answers bench-answers-llm bench-correctness bench-correctness-forms bench-calibration bench-ingest bench-serve bench-walkthrough bench-postgres bench-access serve train-models train-correctness-llm write-questions teach bench-teacher llm llm-stop clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)  ## create the virtualenv and install assay with its dev tools

run: install  ## the walkthrough: build the demo knowledge base, ask it, score, verify the audit log
	ASSAY=$(BIN)/assay bash examples/demo.sh

test: install browser postgres  ## the test suite (unit, property and end-to-end tests, on SQLite and on PostgreSQL)
	$(BIN)/python -m pytest

browser:  ## Debian's Chromium, for the dashboard and calibration report browser tests (Playwright never downloads one)
	@command -v chromium >/dev/null || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; }

postgres:  ## Debian's PostgreSQL and pgvector 0.8.0 (built from its pinned source if Debian has no package); the tests start their own private server
	@bash scripts/postgres.sh install

test-long: install  ## the long checks: B3 risk guarantee over 500 splits, and the fuzz run (>= 10,000 API requests, 3,750 CLI files; minutes)
	ASSAY_DATA=$(DATA) $(BIN)/python -m pytest -m long tests/long
	ASSAY_FUZZ_EXAMPLES=250 $(BIN)/python -m pytest -s tests/http/test_fuzz.py tests/e2e/test_fuzz_cli.py

LLM_URL   ?= http://127.0.0.1:8765/v1
LLM_MODEL ?= qwen2.5-coder-1.5b-instruct

test-llm: install  ## the tests against the real local LLM (starts it; `make llm` builds it first)
	bash scripts/llm.sh start
	ASSAY_LLM_URL=$(LLM_URL) ASSAY_LLM_MODEL=$(LLM_MODEL) $(BIN)/pytest -m llm tests/llm

lint: install  ## ruff and mypy, as CI runs them
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: install  ## retrieval quality on SQuAD 2.0 and Cranfield; speed of ingest, ask and start-up beside their floors -> docs/benchmarks.md
	$(BIN)/python bench/retrieval.py --write
	$(BIN)/python bench/speed.py --squad $(DATA)/squad_v2_dev/dev-v2.0.reconstructed.json --write

bench-models: install  ## relevance and support models on every dataset, left out of fitting, beside baselines; conflicts between passages; the reader -> docs/benchmarks.md; then relevance chunk by chunk on the ordinary-documents suite (printed)
	$(BIN)/python bench/models.py --data $(DATA) --more $(DATA_MORE) --write
	$(BIN)/python bench/conflicts.py --data $(DATA) --more $(DATA_MORE) --write
	$(BIN)/python bench/reader.py --data $(DATA) --more $(DATA_MORE) --write
	$(BIN)/python bench/ordinary_relevance.py

bench-judge: install  ## the answer judge's score, faithful vs hallucinated, on held-out data -> docs/benchmarks.md
	$(BIN)/python bench/judge.py --data $(DATA) --more $(DATA_MORE) --write

bench-pipeline: install  ## ask's answers and abstentions on SQuAD 2.0 test articles beside BERT, and knowledge bases without the answer -> docs/benchmarks.md
	$(BIN)/python bench/pipeline.py --data $(DATA) --more $(DATA_MORE) --write

bench-pipeline-llm: install  ## the same, with a third release that asks the local LLM (`make llm` builds it) whether the cited passage answers, and reranks legal and safety_critical with it (about 3.5 hours on 2 cores)
	bash scripts/llm.sh start
	ASSAY_LLM_URL=$(LLM_URL) ASSAY_LLM_MODEL=$(LLM_MODEL) ASSAY_LLM_TIMEOUT=120 \
	  $(BIN)/python bench/pipeline.py --data $(DATA) --more $(DATA_MORE) --write

bench-answers: install  ## what users get: answered right / wrong / withheld and abstained rightly, on the ordinary-documents suite (bench/ordinary), SQuAD 2.0 test articles, TAT-QA, XQuAD, PolicyQA and COVID-QA, beside the previous release (about 4 minutes on 2 cores) -> docs/benchmarks.md
	$(BIN)/python bench/ordinary/check.py
	$(BIN)/python bench/answers.py --data $(DATA) --more $(DATA_MORE) --questions 30 --squad-questions 100 --write

bench-answers-llm: install  ## the same on the ordinary-documents suite, offline and with the local LLM (`make llm` builds it) reading the evidence: the set's judgment and assay-correctness-llm (about 40 minutes on 2 cores; printed, rows in .cache/answers/llm.json)
	bash scripts/llm.sh start
	ASSAY_LLM_URL=$(LLM_URL) ASSAY_LLM_MODEL=$(LLM_MODEL) ASSAY_LLM_TIMEOUT=120 \
	  $(BIN)/python bench/answers.py --sets ordinary --llm reading --out .cache/answers/llm.json

bench-correctness: install  ## the shipped answer-correctness model on the same drafted answers of every held-aside knowledge base, beside support alone (20 minutes; --models compares releases)
	$(BIN)/python bench/correctness_models.py --data $(DATA) --more $(DATA_MORE)

bench-correctness-forms: install  ## logistic (shipped) beside splines and boosted trees on the same drafted answers, and what each held-aside set's own answers hold (30 minutes; answers kept in .cache/answers)
	$(BIN)/python -m assay.training.correctness_train --data $(DATA) --more $(DATA_MORE) \
	  --out .cache/answers/fitted --rows .cache/answers/fitting
	$(BIN)/python bench/correctness_models.py --data $(DATA) --more $(DATA_MORE) --rows .cache/answers/held
	$(BIN)/python bench/correctness_forms.py --fit-rows .cache/answers/fitting --held-rows .cache/answers/held

bench-calibration: install  ## calibration targets (Brier, ECE, AUROC, guaranteed thresholds) on held-out SQuAD 2.0 articles, every question (half an hour on 2 cores) -> docs/benchmarks.md
	$(BIN)/python bench/calibration.py --data $(DATA) --write

bench-ingest: install  ## hostile files (10 MB without a space, a 10 MB HTML page): seconds and peak memory; scoring during an upload -> docs/benchmarks.md
	$(BIN)/python bench/ingest.py --write

bench-serve: install postgres  ## HTTP load: /v1/score (20 candidates) and /v1/ask throughput and p50/p99, on SQLite and on PostgreSQL, 1, 2 and 4 workers -> docs/benchmarks.md
	$(BIN)/python bench/serve.py --workers 1 2 4 --write

bench-walkthrough: install  ## `ask` on the walkthrough's knowledge base: warm engine, new questions, p50/p95 beside its model work (issue 41's target: p50 <= 100 ms; 20 s)
	$(BIN)/python bench/ask_walkthrough.py --rounds 3

bench-postgres: install postgres  ## PostgreSQL + pgvector beside SQLite: search p50/p95 and recall@10 at 100k and 1M chunks, store ingest, audit appends with 1 and 8 writers -> docs/benchmarks.md
	$(BIN)/python bench/postgres.py --chunks 100000 1000000 --write

bench-access: install postgres  ## search filtered by access labels at 1M chunks: hybrid p50 and recall@10 for grants of 1%, 10%, 90%, 100% beside unfiltered, SQLite and PostgreSQL (about 40 min) -> docs/benchmarks.md; and the timing of an empty search for a hidden word
	$(BIN)/python bench/access.py --chunks 1000000 --write
	$(BIN)/python bench/access_timing.py

serve: install  ## the API and dashboard over the walkthrough's database (run `make run` first; keys: `assay keys create`)
	ASSAY_DB=.demo/assay.db $(BIN)/assay serve

CROSS_TRAIN := TOKENIZERS_PARALLELISM=false $(BIN)/python -m assay.training.cross_train

train-models: install  ## retrain the shipped models: the v1 feature heads (minutes) and the relevance head's adaptation to the ordinary documents (2 minutes), the cross-encoder (3 epochs, about 3 hours on 2 cores; resumable), the support stack over it (2 minutes), the reader from it (40 minutes; resumable), the answer-correctness model (15 minutes); then `make train-correctness-llm`
	$(BIN)/python -m pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m assay.training.train --data $(DATA) --out src/assay/models/shipped
	$(BIN)/python -m assay.training.adapt_relevance --data $(DATA) --out src/assay/models/shipped
	$(CROSS_TRAIN) train --data $(DATA) --more $(DATA_MORE) --out .train/cross-encoder --resume
	$(CROSS_TRAIN) train --data $(DATA) --more $(DATA_MORE) --out .train/cross-encoder-2 --resume \
	  --init-from .train/cross-encoder/checkpoint.pt --seed 14
	$(CROSS_TRAIN) train --data $(DATA) --more $(DATA_MORE) --out .train/cross-encoder-3 --resume \
	  --init-from .train/cross-encoder-2/checkpoint.pt --seed 15
	$(CROSS_TRAIN) export --checkpoint .train/cross-encoder-3/checkpoint.pt --version 1.1.0 \
	  --out src/assay/models/shipped/assay-cross-encoder
	$(BIN)/python -m assay.training.stack_train --data $(DATA) --more $(DATA_MORE) \
	  --out src/assay/models/shipped/assay-support-stack
	$(BIN)/python -m assay.training.reader_train train --data $(DATA) --more $(DATA_MORE) \
	  --out .train/reader --resume --init-from .train/cross-encoder-3/checkpoint.pt
	$(BIN)/python -m assay.training.reader_train export --checkpoint .train/reader/checkpoint.pt \
	  --version 1.0.0 --out src/assay/models/shipped/assay-reader
	$(BIN)/python -m assay.training.correctness_train --data $(DATA) --more $(DATA_MORE) \
	  --out src/assay/models/shipped/assay-correctness

train-correctness-llm: install  ## refit assay-correctness-llm, which also asks the local LLM (`make llm` builds it) about the cited passage and the answer's first statement (hours on 2 cores: 20 to 30 answers a minute alone; stopped, run it again and it goes on where it stopped)
	$(BIN)/python -m pip install --quiet -e '.[dev,train]'
	bash scripts/llm.sh start
	ASSAY_LLM_URL=$(LLM_URL) ASSAY_LLM_MODEL=$(LLM_MODEL) ASSAY_LLM_TIMEOUT=120 \
	  $(BIN)/python -m assay.training.correctness_train --data $(DATA) --more $(DATA_MORE) \
	  --llm --rows .cache/answers/llm-$$($(BIN)/python -c "from assay.models.relevance import get_relevance_model as g; print(g('assay-relevance').name.replace('@', '-'))") \
	  --out src/assay/models/shipped/assay-correctness-llm

QUESTION_MINUTES ?= 0

write-questions: install  ## reading questions for the reader, written by the local LLM (`make llm` builds it) for permissive passages and kept where the answer is verbatim; resumable, appends to .teach/reader-questions (on 2 idle cores about 20 s a passage and one kept pair a passage; QUESTION_MINUTES=N stops after N minutes)
	bash scripts/llm.sh start
	ASSAY_LLM_URL=$(LLM_URL) ASSAY_LLM_MODEL=$(LLM_MODEL) \
	  $(BIN)/python -m assay.training.written_questions --data $(DATA) --more $(DATA_MORE) \
	  --out .teach/reader-questions --minutes $(QUESTION_MINUTES)

TEACH_MINUTES ?= 0
TEACH_SETS ?=

teach: install  ## relevance labels from the local LLM (`make llm` builds it) for every commercially usable answerability set and the ordinary-documents suites' chunks; resumable, appends to labels/teacher-relevance (kept in git: hours of CPU; TEACH_MINUTES=N stops after N minutes, TEACH_SETS="a b" labels only those sets)
	bash scripts/llm.sh start
	ASSAY_LLM_URL=$(LLM_URL) ASSAY_LLM_MODEL=$(LLM_MODEL) \
	  $(BIN)/python -m assay.training.teach --data $(DATA) --more $(DATA_MORE) \
	  --out labels/teacher-relevance --minutes $(TEACH_MINUTES) $(if $(TEACH_SETS),--sets $(TEACH_SETS))

bench-teacher: install  ## the teacher's labels so far against the gold labels, beside cosine, assay-relevance and the cross-encoder -> docs/benchmarks.md
	$(BIN)/python bench/teacher.py --data $(DATA) --more $(DATA_MORE) --write

llm:  ## build the local OpenAI-compatible LLM server (first run: minutes) and start it
	bash scripts/llm.sh setup
	bash scripts/llm.sh start

llm-stop:
	bash scripts/llm.sh stop

format: install
	$(BIN)/ruff format src tests
	$(BIN)/ruff check --fix src tests

clean:
	rm -rf $(VENV) .demo .pytest_cache .mypy_cache .ruff_cache
