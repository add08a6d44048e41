#!/usr/bin/env bash
# Installs the Debian packages PushLedger needs, or names them when we may not install.
# Usage: scripts/deps.sh [extra-package ...]   (`jdk`: a Java compiler, default-jdk-headless unless javac exists)
set -euo pipefail

packages=(libpq-dev libmicrohttpd-dev zlib1g-dev libcurl4-openssl-dev postgresql-15 postgresql-client-15 curl jq)
# `jdk` stands for a Java compiler: whichever JDK is present, else Debian's default one.
for p in "$@"; do
    if [ "$p" = jdk ]; then
        command -v javac >/dev/null 2>&1 || packages+=(default-jdk-headless)
    else
        packages+=("$p")
    fi
done
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    echo "deps: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    # etcd-server (and postgresql) start a system-wide service when installed. The project runs
    # its own on loopback instead: policy-rc.d answering 101 tells invoke-rc.d to start nothing.
    # A policy-rc.d that was already there stays as it was; ours is removed afterwards.
    policy=/usr/sbin/policy-rc.d
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        trap 'rm -f "$policy"' EXIT
    fi
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    echo "deps: install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
