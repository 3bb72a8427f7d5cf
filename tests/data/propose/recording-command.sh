#!/bin/sh
# Records what a command proposer's command gets: the prompt on stdin and its environment, one file of each per
# call in the folder $1. The first call answers with a candidate that includes /proc/self/environ, later calls
# with a good one.
dir=$1
n=$(ls "$dir" | grep -c '^prompt-')
cat > "$dir/prompt-$n.txt"
env > "$dir/env-$n.txt"
if [ "$n" -eq 0 ]; then
    cat "$(dirname "$0")/include-environ-answer.md"
else
    cat "$(dirname "$0")/good-answer.md"
fi
