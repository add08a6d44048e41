# Shared by scripts/bench.sh and scripts/capacity.sh (sourced): clocks, arithmetic, CPU seconds
# of a process, of a command's run and of a whole Postgres cluster, and the machine's idle share.
# CPU seconds, not wall time: on a machine shared with other work, wall time depends on the
# neighbours, CPU per event much less.
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
clk_tck=$(getconf CLK_TCK)
# CPU seconds (user + system) a live process has used.
cpu_seconds() { awk -v t="$clk_tck" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }
# CPU seconds of the processes "$1" (pids separated by spaces), summed.
backends_cpu_seconds() {
    local pid
    for pid in $1; do cpu_seconds "$pid"; echo; done | awk '{ s += $1 } END { printf "%.2f", s }'
}
# CPU seconds (user + system) of the ended children that shell $1 (its $BASHPID) has waited for,
# with theirs: getrusage(RUSAGE_CHILDREN) as /proc shows it. fork starts a subshell's at zero, so a
# subshell that runs one command and then this reads exactly that command's CPU.
waited_cpu_seconds() { awk -v t="$clk_tck" '{ printf "%.2f", ($16 + $17) / t }' "/proc/$1/stat"; }
# The machine's CPU time so far, every CPU, in jiffies: "idle all" (idle + iowait; user to steal,
# guest being counted in user already).
machine_jiffies() { awk '$1 == "cpu" { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat; }
# idle_share "IDLE ALL": the share of the machine's CPU time that was idle since that
# machine_jiffies, in % (near 0: the run was CPU-bound; well above: it waited on something else).
idle_share() {
    local now_jiffies
    now_jiffies=$(machine_jiffies)
    awk -v a="$1" -v b="$now_jiffies" 'BEGIN { split(a, x, " "); split(b, y, " ")
        printf "%.1f", (y[2] > x[2]) ? 100 * (y[1] - x[1]) / (y[2] - x[2]) : 0 }'
}
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
    } | awk -v t="$clk_tck" '{ s += $1 } END { printf "%.2f", s / t }'
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
