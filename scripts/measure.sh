# Shared by scripts/bench.sh and scripts/capacity.sh (sourced): clocks, arithmetic, and CPU
# seconds of a process and of a whole Postgres cluster. CPU seconds, not wall time: on a
# machine shared with other work, wall time depends on the neighbours, CPU per event much less.
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
# CPU seconds (user + system) a live process has used.
cpu_seconds() { awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }
# The postmaster's pid of the cluster at URL $1 (the parent of its checkpointer).
postmaster_of() {
    psql "$1" -qAtc "select pid from pg_stat_activity where backend_type = 'checkpointer'" |
        xargs -I{} awk '{ print $4 }' /proc/{}/stat
}
# CPU seconds of the whole cluster whose postmaster is $postmaster: the postmaster with its
# reaped children (ended backends) plus every live child.
pg_cpu() {
    { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$postmaster/stat"
      for child in $(pgrep -P "$postmaster"); do awk '{ print $14 + $15 }' "/proc/$child/stat" 2>/dev/null || true; done
    } | awk -v t="$(getconf CLK_TCK)" '{ s += $1 } END { printf "%.2f", s / t }'
}
# After psql sessions end: their backends count once the postmaster has reaped them.
pg_cpu_settled() { sleep 1; pg_cpu; }
per_million() { calc "%.0f" "($2 - $1) * 1000000 / $3"; }
peak_rss_mib() { awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
# Waits until something listens on 127.0.0.1:$1; fails (printing log $3) when process $2 ends first.
wait_for_port() {
    for _ in $(seq 1 300); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        kill -0 "$2" 2>/dev/null || { cat "$3" >&2; return 1; }
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2; return 1
}
