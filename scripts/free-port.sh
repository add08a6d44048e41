#!/usr/bin/env bash
# Prints a TCP port on 127.0.0.1 that nothing listens on.
set -euo pipefail
for p in $(shuf -i 20000-40000 -n 200); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; exit 0; fi
done
echo "free-port: none found" >&2
exit 1
