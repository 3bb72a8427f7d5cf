#!/bin/sh
# Reads the prompt, answers with a candidate that takes NVRTC minutes to compile.
cat > /dev/null
cat "$(dirname "$0")/slow-compile-answer.md"
