# Sourced by scripts/db.sh and scripts/patroni.sh: where a project-local cluster lives.
# pg_folder SUBDIR sets `dir` to .pgdata/SUBDIR of the repository ($root) and `as_pg` to the
# prefix that runs a command as the postgres user. PostgreSQL refuses to run as root: as root,
# its tools run as postgres, in a folder it can reach (a clone under /root is not reachable
# for it, so the folder falls back to /tmp).
pg_folder() {
    dir="$root/.pgdata/$1"
    as_pg=()
    if [ "$(id -u)" -eq 0 ]; then
        as_pg=(runuser -u postgres -- env -C /)
        mkdir -p "$dir"
        chown postgres "$dir" 2>/dev/null || true
        if ! runuser -u postgres -- test -w "$dir" 2>/dev/null; then
            rmdir "$dir" 2>/dev/null || true
            dir="/tmp/pushledger-pg-$(printf '%s' "$root" | md5sum | cut -c1-10)/$1"
            mkdir -p "$dir"
            chown postgres "$dir" "$(dirname "$dir")"
        fi
    fi
    mkdir -p "$dir"
}
