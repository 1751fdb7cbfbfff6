#!/usr/bin/env bash
# `make dist-test`: prove the bundle runs on a machine without the source tree or the venv.
#
# Copies dist/drr to a fresh temporary folder, then runs it there with an empty environment
# (no PYTHONPATH, no VIRTUAL_ENV, a PATH of system folders only, a throw-away HOME), checks
# each command's result, and prints the bundle's size and start time for docs/packaging.md.
# Usage: packaging/dist_test.sh [BUNDLE_DIR] [REFERENCE_DRR]
#   BUNDLE_DIR     the built bundle (default dist/drr)
#   REFERENCE_DRR  the venv's drr, whose `drr settle` output the bundle must reproduce
set -uo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
BUNDLE=${1:-dist/drr}
REFERENCE=${2:-.venv/bin/drr}
[ -x "$BUNDLE/drr" ] || { echo "no bundle at $BUNDLE (run make dist)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/drr-dist-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp -a "$BUNDLE" "$WORK/drr"
cp packaging/examples/round.json "$WORK/round.json"
cp tests/data/ss2-capture-b.log "$WORK/capture.log" 2>/dev/null || true
mkdir -p "$WORK/home"
cd "$WORK"

# The clean environment every bundle command runs in.
run() {
    env -i HOME="$WORK/home" PATH=/usr/bin:/bin LANG=C.UTF-8 TMPDIR="$WORK" QT_QPA_PLATFORM=offscreen \
        "$WORK/drr/drr" "$@"
}

failures=0
pass() { printf 'PASS  %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; failures=$((failures + 1)); }
has_command() { run --help | grep -qE "^    $1 "; }

# 1. version
version=$(run --version 2>&1)
expected=$("$SRC/$REFERENCE" --version 2>&1)
[ "$version" = "$expected" ] && pass "drr --version: $version" || fail "drr --version: '$version' (venv says '$expected')"

# 2. settle: the same bytes as the venv's drr on the example round; an illegal wager still exits 2
if run settle round.json >settle.out 2>settle.err && "$SRC/$REFERENCE" settle round.json >settle.ref 2>/dev/null \
    && cmp -s settle.out settle.ref; then
    pass "drr settle round.json (identical to the venv's output)"
else
    fail "drr settle round.json: $(head -c 300 settle.err)"
fi
sed 's/"amount": "5"/"amount": "5.001"/' round.json >bad-round.json
run settle bad-round.json >/dev/null 2>bad.err
code=$?
[ "$code" = 2 ] && grep -q "w1" bad.err && pass "drr settle refuses an illegal wager (exit 2, names w1)" \
    || fail "drr settle bad wager: exit $code, $(cat bad.err)"

# 3. the bundled Rules Submission
rules=$(find "$WORK/drr" -path '*resources/rules/default.toml' | head -1)
if [ -n "$rules" ] && run rules check "$rules" >rules.out 2>&1; then
    pass "drr rules check <bundled default.toml>: $(head -1 rules.out)"
else
    fail "drr rules check on the bundled default: ${rules:-not in the bundle} $(head -3 rules.out 2>/dev/null)"
fi
run rules show >/dev/null 2>rules-show.err && pass "drr rules show (shipped rules found inside the bundle)" \
    || fail "drr rules show: $(cat rules-show.err)"

# 4. settings
run config check >config.out 2>&1 && pass "drr config check: $(cat config.out)" || fail "drr config check: $(cat config.out)"
run config show --json >/dev/null 2>config.err && pass "drr config show --json" || fail "drr config show: $(cat config.err)"

# 5. the store: Alembic migrations are read from the bundle, the journal verifies
if has_command db; then
    if run db upgrade --db "sqlite:///$WORK/journal.sqlite" >db.out 2>&1 \
        && run audit verify --db "sqlite:///$WORK/journal.sqlite" >audit.out 2>&1; then
        pass "drr db upgrade + drr audit verify: $(tail -1 audit.out)"
    else
        fail "drr db upgrade / audit verify: $(cat db.out audit.out 2>/dev/null | tail -3)"
    fi
else
    echo "MISSING drr db (store commands not in this build)"
fi

# 6. the wheel decoder on a real capture
if has_command wheel && [ -f capture.log ]; then
    results=$(run wheel decode --protocol ss2 --results capture.log 2>/dev/null | wc -l)
    [ "$results" -gt 0 ] && pass "drr wheel decode --results: $results results" || fail "drr wheel decode: no results"
fi

# 7. the GUI, offscreen
if has_command screenshots; then
    if run screenshots shots >shots.out 2>&1 && [ -n "$(find shots -name '*.png' -size +1k)" ]; then
        pass "drr screenshots: $(find shots -name '*.png' | wc -l) PNG files"
    else
        fail "drr screenshots: $(tail -5 shots.out)"
    fi
else
    echo "MISSING drr screenshots (GUI command not in this build)"
fi

# 8. the Linux installer shipped beside the program, staged under a fake root
if [ -x "$WORK/drr/install-linux.sh" ]; then
    if DESTDIR="$WORK/root" "$WORK/drr/install-linux.sh" >install.out 2>&1 \
        && [ -x "$WORK/root/opt/drr/drr" ] \
        && [ -f "$WORK/root/usr/share/applications/diamond-rush-roulette.desktop" ] \
        && [ -f "$WORK/root/usr/share/icons/hicolor/256x256/apps/diamond-rush-roulette.png" ] \
        && [ "$(env -i HOME="$WORK/home" PATH=/usr/bin:/bin "$WORK/root/opt/drr/drr" --version)" = "$version" ]; then
        pass "install-linux.sh (staged): $(tail -2 install.out | head -1)"
    else
        fail "install-linux.sh: $(cat install.out)"
    fi
else
    fail "install-linux.sh is not beside the program"
fi

# 9. figures for docs/packaging.md
size=$(du -sh "$WORK/drr" | cut -f1)
files=$(find "$WORK/drr" -type f | wc -l)
runs=10
start=$(date +%s%N)
for _ in $(seq $runs); do run --version >/dev/null; done
end=$(date +%s%N)
echo "bundle: $size in $files files; drr --version: $(( (end - start) / runs / 1000000 )) ms mean wall time over $runs runs"

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "dist-test: all checks passed"
