#!/usr/bin/env bash
# Runs a test command with a time limit, so a test that hangs fails the run with its name instead of
# running into CI's own limit with nothing said.
#   scripts/watchdog.sh SECONDS COMMAND…
# Past SECONDS it prints the threads of every process under COMMAND (gdb, when installed), then the
# Swift Testing tests that started and never ended (last, where a truncated log still shows them),
# stops COMMAND and exits 124. Otherwise it exits with COMMAND's status.
set -uo pipefail
if [ "${1:-}" = --help ] || [ $# -lt 2 ]; then
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
    [ "${1:-}" = --help ] && exit 0 || exit 2
fi
limit=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# setsid: the command and its children form a group of their own, stopped together.
setsid "$@" > >(tee "$log") 2>&1 &
pid=$!
start=$SECONDS
while kill -0 "$pid" 2>/dev/null; do
    if [ $((SECONDS - start)) -ge "$limit" ]; then
        descendants() {
            local child
            for child in $(pgrep -P "$1"); do
                echo "$child"
                descendants "$child"
            done
        }
        echo "watchdog: still running after ${limit} s: $*" >&2
        if command -v gdb >/dev/null; then
            for process in "$pid" $(descendants "$pid"); do
                [ "$(cat "/proc/$process/comm" 2>/dev/null)" = tee ] && continue
                echo "watchdog: threads of $(tr '\0' ' ' < "/proc/$process/cmdline" 2>/dev/null | cut -c1-160)" >&2
                timeout 120 gdb -p "$process" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 25' \
                    2>/dev/null | grep -E '^(Thread|#)' >&2
            done
        fi
        echo "watchdog: tests started and not ended:" >&2
        # Swift Testing: "◇ Test NAME started." and "✔/✘ Test NAME [with N test cases] passed|failed after …".
        awk '
            / Test case / { next }
            match($0, / Test .* started\.$/) {
                name = substr($0, RSTART + 6, RLENGTH - 15); open[name] = 1; next
            }
            match($0, / Test .* (passed|failed) after /) || match($0, / Test .* skipped/) {
                text = substr($0, RSTART + 6)
                sub(/ (passed|failed) after .*| skipped.*/, "", text)
                sub(/ with [0-9]+ test cases?$/, "", text)
                delete open[text]
            }
            END { for (name in open) print "watchdog:   " name }
        ' "$log" | sort >&2
        kill -TERM -- "-$pid" 2>/dev/null
        sleep 5
        kill -KILL -- "-$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        exit 124
    fi
    sleep 2
done
wait "$pid"
