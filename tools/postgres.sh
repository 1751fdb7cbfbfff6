#!/usr/bin/env bash
# The local PostgreSQL the tests and the floor benchmarks use (127.0.0.1:5432, trust auth, database
# `test`): started with Debian's cluster tools if it is down, the database made if it is missing.
# With no PostgreSQL to start, one line says what to install and the script fails (make stops); with
# --if-present it fails silently instead (`make test`: the test session then starts a server of its own).
set -euo pipefail
quiet_if_none=false
[ "${1:-}" = "--if-present" ] && quiet_if_none=true

ready() { pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; }

if ! ready && command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    for version in /etc/postgresql/*/; do
        pg_ctlcluster --skip-systemctl-redirect "$(basename "$version")" main start >/dev/null 2>&1 || true
    done
    for _ in 1 2 3 4 5 6 7 8 9 10; do ready && break; sleep 0.5; done
fi
if ! ready; then
    $quiet_if_none && exit 1
    echo "PostgreSQL is not running at 127.0.0.1:5432 and could not be started: install it" \
        "(sudo apt-get install -y postgresql, with trust auth for 127.0.0.1) or set DRR_TEST_PG_URL" \
        "(DRR_BENCH_PG_URL for make bench-scale) to a PostgreSQL that runs" >&2
    exit 1
fi
if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'test'" \
    | grep -q 1; then
    createdb -h 127.0.0.1 -U postgres test
fi
