#!/usr/bin/env bash
# PostgreSQL with pgvector for assay's tests and benchmarks: installed from the
# system's Debian packages, pgvector built from its pinned source when Debian has no
# package of it for this PostgreSQL, and private throwaway clusters on loopback.
#
# Usage:
#   scripts/postgres.sh install        the server and pgvector (apt-get; needs root or sudo)
#   scripts/postgres.sh start DIR      a new cluster in the empty or missing folder DIR, on a
#                                      free loopback port; prints its URL
#   scripts/postgres.sh stop DIR       stop the cluster in DIR (DIR stays)
#   scripts/postgres.sh url DIR        the URL of the running cluster in DIR
#
# The cluster trusts local connections (it listens on 127.0.0.1 and a socket in DIR
# only) and has one superuser, `assay`, and one database, `assay`. As root, the server
# runs as the `postgres` system user (PostgreSQL refuses to run as root).
# ASSAY_PG_SERVER_OPTIONS adds server settings (`-c fsync=off` for a test run).
set -euo pipefail

PGVECTOR_VERSION=0.8.0
PGVECTOR_SHA256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
PGVECTOR_TARBALL="pgvector_${PGVECTOR_VERSION}.orig.tar.gz"

die() { echo "postgres.sh: $*" >&2; exit 1; }
sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

pg_bin() {  # the newest installed server's bin folder
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$dir" ] && [ -x "$dir/initdb" ] || return 1
    echo "$dir"
}

has_pgvector() {
    local share
    share=$("$(pg_bin)/pg_config" --sharedir 2>/dev/null) || return 1
    [ -f "$share/extension/vector.control" ]
}

debian_archive() {  # the Debian archive this machine's apt already uses (no host named here)
    local codename
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null \
        | awk -v c="$codename" '$2 == c { print $1; exit }'
}

build_pgvector() {
    local major archive work
    major=$(basename "$(dirname "$(pg_bin)")")
    sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        "postgresql-server-dev-$major" make gcc >/dev/null
    archive=$(debian_archive)
    [ -n "$archive" ] || die "no Debian archive in apt's sources to fetch pgvector's source from"
    work=$(mktemp -d)
    curl -fsSL --retry 3 -o "$work/$PGVECTOR_TARBALL" \
        "${archive%/}/pool/main/p/pgvector/$PGVECTOR_TARBALL"
    echo "$PGVECTOR_SHA256  $work/$PGVECTOR_TARBALL" | sha256sum -c --quiet - \
        || die "pgvector $PGVECTOR_VERSION source does not match its pinned sha256"
    tar -xzf "$work/$PGVECTOR_TARBALL" -C "$work"
    # OPTFLAGS="": no -march=native, so the library runs on any machine of this architecture
    make -s -C "$work/pgvector-$PGVECTOR_VERSION" OPTFLAGS="" PG_CONFIG="$(pg_bin)/pg_config" >/dev/null
    sudo_ make -s -C "$work/pgvector-$PGVECTOR_VERSION" PG_CONFIG="$(pg_bin)/pg_config" install >/dev/null
    rm -rf "$work"
}

install() {
    if ! pg_bin >/dev/null; then
        sudo_ apt-get update -qq
        sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    fi
    pg_bin >/dev/null || die "the postgresql package installed no server"
    has_pgvector && return 0
    local major
    major=$(basename "$(dirname "$(pg_bin)")")
    if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; then
        sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            "postgresql-$major-pgvector" >/dev/null
    else
        build_pgvector
    fi
    has_pgvector || die "pgvector did not install"
}

as_server() {  # run a server command as the user the cluster belongs to
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    local dir="${1:?give the cluster folder}" bin port
    bin=$(pg_bin) || die "no PostgreSQL server: run scripts/postgres.sh install"
    has_pgvector || die "no pgvector extension: run scripts/postgres.sh install"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [ -z "$(ls -A "$dir")" ] || die "$dir is not empty: give a new folder"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    as_server "$bin/initdb" -D "$dir/data" -U assay -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
    port=$(free_port)
    as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$dir" \
        -o "-c max_connections=200 ${ASSAY_PG_SERVER_OPTIONS:-}" start >/dev/null \
        || { cat "$dir/server.log" >&2; die "the server did not start"; }
    as_server "$bin/createdb" -h 127.0.0.1 -p "$port" -U assay assay
    echo "postgresql://assay@127.0.0.1:$port/assay" | as_server tee "$dir/url" >/dev/null
    cat "$dir/url"
}

stop() {
    local dir="${1:?give the cluster folder}"
    [ -f "$dir/data/postmaster.pid" ] || return 0
    as_server "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
}

case "${1:-help}" in
    install) install ;;
    start) start "${2:-}" ;;
    stop) stop "${2:-}" ;;
    url) cat "${2:?give the cluster folder}/url" ;;
    *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' ;;
esac
