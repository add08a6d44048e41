#!/usr/bin/env bash
# A throwaway CA and one server certificate it signs (2 days), for local HTTPS: the link fixture,
# the demo and the TLS tests of `pushledger serve`.
#   scripts/test-ca.sh DIR CA-NAME SAN...   → DIR/ca.pem, ca.key, server.pem, server.key
# Each SAN is DNS:host or IP:address; the first one's value is the server certificate's CN.
# Every run makes a new CA key and serial, so two runs' certificates never verify each other.
set -euo pipefail
dir=${1:?usage: test-ca.sh DIR CA-NAME SAN...}
name=${2:?usage: test-ca.sh DIR CA-NAME SAN...}
shift 2
[ $# -gt 0 ] || { echo "test-ca: name at least one SAN (DNS:host or IP:address)" >&2; exit 64; }
command -v openssl >/dev/null || { echo "test-ca: openssl is not installed (scripts/deps.sh openssl)" >&2; exit 1; }
mkdir -p "$dir"
san=$(IFS=,; echo "$*")
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$name" \
    -keyout "$dir/ca.key" -out "$dir/ca.pem" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=${1#*:}" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days 2 \
    -extfile <(printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san") -out "$dir/server.pem" 2>/dev/null
rm -f "$dir/server.csr"
