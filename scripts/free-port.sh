#!/usr/bin/env bash
# Prints a TCP port on 127.0.0.1 that nothing listens on, below the kernel's ephemeral range:
# an outgoing connection of a test client can hold a port in that range, and a server then
# cannot bind it although nothing listens there. Scanned from a random point so processes
# started together rarely pick the same. TestSupport's `ServeProcess.freePort` keeps the same rule.
#
# Ports 24320-24999 are the Patroni test cluster's alone (`--patroni`): a node whose machine is
# killed comes back on the same port, so nothing else may take that port while it is down.
#   scripts/free-port.sh                      a port outside the Patroni block
#   scripts/free-port.sh --patroni [PORT...]  a port in the block, none of the PORTs given
set -euo pipefail
block_low=24320
block_high=24999
taken=" "
if [ "${1:-}" = --patroni ]; then
    shift
    low=$block_low high=$block_high taken=" $* "
else
    low=20000
    ephemeral=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    [ "$ephemeral" -gt "$low" ] 2>/dev/null || ephemeral=32768
    high=$((ephemeral - 1))
fi
span=$((high - low + 1))
start=$((RANDOM * 32768 + RANDOM))
for i in $(seq 0 $((span - 1))); do
    p=$((low + (start + i) % span))
    [ "$taken" != "${taken/ $p /}" ] && continue
    if [ "$low" != "$block_low" ] && [ "$p" -ge "$block_low" ] && [ "$p" -le "$block_high" ]; then continue; fi
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; exit 0; fi
done
echo "free-port: no free port in $low-$high" >&2
exit 1
