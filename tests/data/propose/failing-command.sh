#!/bin/sh
cat > /dev/null
echo "quota exceeded for this key" >&2
exit 3
