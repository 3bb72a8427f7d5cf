#!/bin/sh
# Writes the prompt it was given next to the answer, so a test can check what a command reads.
cat > "$1"
cat "$(dirname "$0")/good-answer.md"
