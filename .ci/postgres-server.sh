# A throwaway PostgreSQL 15 server, for `.ci/run` and `.ci/with-postgres`
# (sourced, not run). `start_postgres` creates a cluster in a temporary
# directory (initdb: trust authentication, UTF8, C locale), starts it on
# 127.0.0.1 and a free port, creates the database `coherence`, and exports
# COHERENCE_POSTGRES_URL=postgres://postgres@127.0.0.1:<port>/coherence.
# It installs an EXIT trap that stops the server and deletes the directory,
# success or failure. As root, the server runs as the `postgres` user
# (PostgreSQL refuses to run as root).

postgres_bin="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
postgres_dir=""
postgres_started=0

postgres_as_server() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

stop_postgres() {
    if [ "$postgres_started" -eq 1 ]; then
        postgres_as_server "$postgres_bin/pg_ctl" -D "$postgres_dir/data" -m immediate -w stop >/dev/null 2>&1 || true
        postgres_started=0
    fi
    if [ -n "$postgres_dir" ]; then rm -rf "$postgres_dir"; postgres_dir=""; fi
}

start_postgres() {
    if [ ! -x "$postgres_bin/initdb" ]; then
        echo "postgres: $postgres_bin/initdb not found; install postgresql-15 (apt-get install postgresql-15)" >&2
        return 2
    fi
    postgres_dir="$(mktemp -d /tmp/coherence-postgres.XXXXXX)"
    trap stop_postgres EXIT
    if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$postgres_dir"; fi
    # A free port: bound by the kernel, released, then taken by the server.
    local port
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    postgres_as_server "$postgres_bin/initdb" -D "$postgres_dir/data" -U postgres --auth=trust -E UTF8 --locale=C \
        >"$postgres_dir/initdb.log" 2>&1 || { cat "$postgres_dir/initdb.log" >&2; return 1; }
    postgres_started=1
    postgres_as_server "$postgres_bin/pg_ctl" -D "$postgres_dir/data" -l "$postgres_dir/server.log" -w -t 60 \
        -o "-h 127.0.0.1 -p $port -k $postgres_dir -c fsync=off -c max_connections=200" start >/dev/null \
        || { cat "$postgres_dir/server.log" >&2; return 1; }
    postgres_as_server "$postgres_bin/createdb" -h 127.0.0.1 -p "$port" -U postgres -E UTF8 -O postgres coherence
    export COHERENCE_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/coherence"
    echo "postgres: PostgreSQL 15 at $COHERENCE_POSTGRES_URL" >&2
}
