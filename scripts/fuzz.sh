#!/usr/bin/env bash
# `make fuzz`: schemathesis (PyPI) against docs/openapi.yaml and a real `pushledger serve` on a
# throwaway cluster. Checks: no server error, responses match their schema, status codes are
# documented. Not part of `make test` (it needs PyPI and takes its own time).
#   FUZZ_MAX_EXAMPLES  examples per operation and phase (default 300)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
venv=.build/fuzz-venv
cluster=fuzz
step() { printf '\n==> %s\n' "$*" >&2; }

if [ ! -x "$venv/bin/schemathesis" ]; then
    step "Installing schemathesis into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet schemathesis
fi

step "Building pushledger"
swift build --product pushledger 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2 || true
bin="$(swift build --show-bin-path)/pushledger"
[ -x "$bin" ] || { echo "fuzz: build failed" >&2; exit 1; }

step "Starting a throwaway cluster and the server"
server=""
cleanup() {
    [ -n "$server" ] && { kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
    DATABASE_URL= scripts/db.sh destroy "$cluster"
}
trap cleanup EXIT
DATABASE_URL= scripts/db.sh destroy "$cluster"
DATABASE_URL=$(DATABASE_URL= scripts/db.sh start "$cluster")
export DATABASE_URL
"$bin" migrate --log-level warning
telemetry_key=$("$bin" keys create --app com.example.shop --scope telemetry --log-level warning)
sends_key=$("$bin" keys create --app com.example.shop --scope sends --log-level warning)
port=$(scripts/free-port.sh)
log=.build/fuzz-serve.log
"$bin" serve --listen "127.0.0.1:$port" 2>"$log" &
server=$!
for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done

# One run per key scope: telemetry (and the open operations endpoints), then sends.
# Run from .build/fuzz: schemathesis keeps its cache in the working directory.
mkdir -p .build/fuzz
fuzz() {
    (cd .build/fuzz && PYTHONPATH="$root/scripts" SCHEMATHESIS_HOOKS=fuzz_hooks \
        "$root/$venv/bin/schemathesis" run "$root/docs/openapi.yaml" --url "http://127.0.0.1:$port" \
        --checks not_a_server_error,response_schema_conformance,status_code_conformance \
        --max-examples "${FUZZ_MAX_EXAMPLES:-300}" --seed 1 --workers 2 --no-color \
        --suppress-health-check all "$@")
}
status=0
step "schemathesis: /v1/telemetry, /healthz, /readyz, /metrics"
fuzz --exclude-path /v1/sends -H "Authorization: Bearer $telemetry_key" || status=1
step "schemathesis: /v1/sends"
fuzz --include-path /v1/sends -H "Authorization: Bearer $sends_key" || status=1
if grep -q 'level=error' "$log"; then
    step "server errors logged (from $log)"
    grep 'level=error' "$log" | head -20 >&2
    status=1
fi
exit $status
