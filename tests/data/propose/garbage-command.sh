#!/bin/sh
cat > /dev/null
printf 'I am sorry, I cannot help with that.\n\001\002\377\376 {not json'
