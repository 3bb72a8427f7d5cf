#!/bin/sh
# Starts three sleepers that the command's stop must reach: one in a session of its own, one that also left its
# parent (a double fork), one in the background. Writes their process ids to $1, then $2: "hang" never answers,
# "answer" answers and exits, leaving them running.
pids="$1"
cat > /dev/null
setsid sh -c 'echo $$ >> "$1"; exec sleep 600' sh "$pids" &
(setsid sh -c 'echo $$ >> "$1"; exec sleep 600' sh "$pids" &)
sh -c 'echo $$ >> "$1"; exec sleep 600' sh "$pids" &
while [ "$(cat "$pids" 2>/dev/null | wc -l)" -lt 3 ]; do sleep 0.05; done
if [ "$2" = answer ]; then
    cat "$(dirname "$0")/good-answer.md"
    exit 0
fi
sleep 600
