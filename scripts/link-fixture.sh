#!/usr/bin/env bash
# A local HTTPS server for association-file checks: nginx with a CA made on the spot, one
# virtual host per folder of SITES (the folder name is the host name, chosen by SNI/Host).
#   scripts/link-fixture.sh start DIR SITES   → prints the port; DIR gets ca.pem, nginx.pid, error.log
#   scripts/link-fixture.sh stop DIR
# A site folder is served as its web root (files without an extension as application/json);
# an optional SITES/HOST/server.conf is included in that host's server block (redirects, types).
# Reach it with `pushledger links check --ca-file DIR/ca.pem --connect-to ::127.0.0.1:PORT`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command=${1:?usage: link-fixture.sh start DIR SITES | stop DIR}
dir=${2:?usage: link-fixture.sh start DIR SITES | stop DIR}

stop() {
    [ -f "$dir/nginx.pid" ] || return 0
    local pid
    pid=$(cat "$dir/nginx.pid")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 10); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    # A parent that blocks signals (some test runners) passes that mask on: KILL cannot be blocked.
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$dir/nginx.pid"
}

case "$command" in
stop) stop; exit 0 ;;
start) ;;
*) echo "link-fixture: unknown command $command" >&2; exit 64 ;;
esac

sites=$(cd "${3:?usage: link-fixture.sh start DIR SITES}" && pwd)
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { echo "link-fixture: nginx is not installed (scripts/deps.sh nginx)" >&2; exit 1; }
mkdir -p "$dir/tmp"
dir=$(cd "$dir" && pwd)
stop
hosts=()
for site in "$sites"/*/; do hosts+=("$(basename "$site")"); done

# The CA and one server certificate naming every host.
"$root/scripts/test-ca.sh" "$dir" "PushLedger link fixture CA" "${hosts[@]/#/DNS:}"

# A free port can be taken between the probe and nginx's bind (parallel tests): try a few.
for attempt in 1 2 3 4 5; do
port=$("$root/scripts/free-port.sh")
{
    # One process that stays in the foreground of its own fork: no user switch, no files outside DIR.
    echo "daemon on; master_process off; pid $dir/nginx.pid; error_log $dir/error.log warn;"
    echo "events { worker_connections 64; }"
    echo "http {"
    echo "  access_log off; server_tokens off; gzip off;"
    for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $dir/tmp/$t;"; done
    echo "  types { application/json json; text/html html; }"
    echo "  ssl_certificate $dir/server.pem; ssl_certificate_key $dir/server.key;"
    for host in "${hosts[@]}"; do
        echo "  server {"
        echo "    listen 127.0.0.1:$port ssl; server_name $host; root $sites/$host; default_type application/json;"
        [ -f "$sites/$host/server.conf" ] && echo "    include $sites/$host/server.conf;"
        echo "    location = /server.conf { return 404; }"
        echo "  }"
    done
    echo "}"
} > "$dir/nginx.conf"
# nginx must not hold the caller's pipes open: a caller reading to EOF would wait forever.
if ! "$nginx" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" </dev/null >/dev/null 2>"$dir/start.log"; then
    grep -q "Address already in use" "$dir/start.log" && [ "$attempt" -lt 5 ] && continue
    cat "$dir/start.log" >&2
    exit 1
fi
for _ in $(seq 1 100); do
    if [ -f "$dir/nginx.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; exit 0; fi
    sleep 0.05
done
break
done
echo "link-fixture: nginx did not start; see $dir/error.log" >&2
stop
exit 1
