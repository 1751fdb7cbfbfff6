#!/usr/bin/env bash
# `make deb-test`: install the Debian package in a scratch Debian system and run it there.
#
#   packaging/deb_test.sh FIRST.deb SECOND.deb
#
# FIRST and SECOND are two builds of the same bundle, SECOND's version higher (make deb-test builds
# revision 1 and 2). The scratch system is a minimal Debian (debootstrap --variant=minbase, the
# suite of this machine) in build/deb-test/base, made once (a few minutes, about 300 MB; delete the
# folder to make a new one) and copied fresh for every run to build/deb-test/root; apt's downloads
# are kept in build/deb-test/archives. The package is installed with apt-get in a chroot, so its
# Depends are resolved from the Debian mirror as they would be on a table PC. No systemd runs in a
# chroot: for the upgrade a stand-in systemctl (which says drr-station is running) and
# /run/systemd/system stand for it. Needs root (chroot, mounts) and the Debian mirror.
# It prints PASS/FAIL per check and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
FIRST=${1:?usage: packaging/deb_test.sh FIRST.deb SECOND.deb}
SECOND=${2:?usage: packaging/deb_test.sh FIRST.deb SECOND.deb}
WORK=$PWD/build/deb-test
BASE=$WORK/base
ROOTFS=$WORK/root
ARCHIVES=$WORK/archives
SUITE=${DEB_TEST_SUITE:-$(. /etc/os-release && echo "$VERSION_CODENAME")}
MIRROR=${DEB_TEST_MIRROR:-http://deb.debian.org/debian}

die() { echo "deb-test: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and its mounts): sudo make deb-test"
[ -f "$FIRST" ] && [ -f "$SECOND" ] || die "no package at $FIRST or $SECOND (make deb)"
v1=$(dpkg-deb -f "$FIRST" Version)
v2=$(dpkg-deb -f "$SECOND" Version)
dpkg --compare-versions "$v2" gt "$v1" || die "$SECOND ($v2) is not newer than $FIRST ($v1)"

if ! command -v debootstrap >/dev/null; then
    echo "deb-test: installing debootstrap (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null || die "apt-get install debootstrap failed"
fi
mkdir -p "$WORK" "$ARCHIVES/partial"
if [ ! -f "$BASE/.complete" ]; then
    echo "deb-test: debootstrap $SUITE (minbase) into $BASE, once"
    rm -rf "$BASE"
    debootstrap --variant=minbase "$SUITE" "$BASE" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
        || die "debootstrap failed: $(tail -3 "$WORK/debootstrap.log")"
    rm -rf "$BASE/var/cache/apt/archives"/*.deb
    touch "$BASE/.complete"
fi

unmount() {
    for m in var/cache/apt/archives dev/pts dev proc; do
        mountpoint -q "$ROOTFS/$m" && umount -l "$ROOTFS/$m"
    done
    return 0
}
trap unmount EXIT
unmount
rm -rf "$ROOTFS"
cp -a "$BASE" "$ROOTFS"
mount -t proc proc "$ROOTFS/proc"
mount --bind /dev "$ROOTFS/dev"
mount --bind /dev/pts "$ROOTFS/dev/pts"
mount --bind "$ARCHIVES" "$ROOTFS/var/cache/apt/archives"
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
cp "$FIRST" "$ROOTFS/tmp/first.deb"
cp "$SECOND" "$ROOTFS/tmp/second.deb"

# A command in the scratch system, as root or (as_drr) as the package's user.
in_root() { env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive chroot "$ROOTFS" "$@"; }
as_drr() { in_root runuser -u drr -- "$@"; }

failures=0
pass() { printf 'PASS  %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; failures=$((failures + 1)); }
check() { # check NAME COMMAND...: PASS when the command succeeds
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

# 1. install: apt resolves the Depends from the mirror
in_root apt-get update -qq >"$WORK/apt-update.log" 2>&1 || die "apt-get update failed: $(tail -3 "$WORK/apt-update.log")"
start=$(date +%s)
if in_root apt-get install -y -q --no-install-recommends /tmp/first.deb >"$WORK/install.log" 2>&1; then
    pass "apt-get install $v1 ($(( $(date +%s) - start )) s, $(grep -c '^Setting up' "$WORK/install.log") packages set up)"
else
    fail "apt-get install $v1: $(tail -5 "$WORK/install.log")"
    exit 1
fi
system_user_in_dialout() { [ "$(in_root id -u drr)" -lt 1000 ] && in_root id -nG drr | grep -qw dialout; }
check "the user drr is a system user in dialout: $(in_root id drr)" system_user_in_dialout
mode_of() { in_root stat -c '%a %U:%G' "$1"; }
check "/var/lib/drr $(mode_of /var/lib/drr), /etc/drr/keys $(mode_of /etc/drr/keys), /var/log/drr $(mode_of /var/log/drr)" \
    test "$(mode_of /var/lib/drr)|$(mode_of /etc/drr/keys)|$(mode_of /var/log/drr)" = "750 drr:drr|700 drr:drr|750 drr:drr"
check "/opt/drr/current -> $(in_root readlink /opt/drr/current)" test "$(in_root readlink /opt/drr/current)" = "$v1"
missing=$(in_root sh -c 'ldd /opt/drr/current/_internal/PySide6/Qt/plugins/platforms/libqxcb.so | grep "not found"')
check "Qt's xcb plugin finds every library it links (the Depends)${missing:+: $missing}" test -z "$missing"
check "the first configuration ran drr db upgrade: $(grep -m1 'journal.sqlite: schema' "$WORK/install.log")" \
    grep -q '/var/lib/drr/journal.sqlite: schema' "$WORK/install.log"

# the units' syntax (the host's systemd-analyze; the programs they name are in the scratch system only)
if command -v systemd-analyze >/dev/null; then
    units=("$ROOTFS"/usr/lib/systemd/system/drr-*.service)
    problems=$(systemd-analyze verify "${units[@]}" 2>&1 | grep -vE "is not executable|man xinit|^$")
    check "systemd-analyze verify ${units[*]##*/}${problems:+: $problems}" test -z "$problems"
fi

# 2. run as drr: the version and a headless round, into the package's journal, keys and logs
version=$(as_drr drr --version 2>&1)
check "drr --version as drr: $version" test "$version" = "drr ${v1%-*}"
check "drr --version as root runs as drr: $(in_root drr --version 2>&1)" test "$(in_root drr --version 2>&1)" = "$version"
# stderr as systemd would connect it: JOURNAL_STREAM names the stream, so the records go there too
start=$(date +%s)
if as_drr sh -c 'JOURNAL_STREAM=$(stat -L -c "%d:%i" /proc/self/fd/2) exec drr table run --headless --rounds 1 --wheel sim --speed 100' \
    >"$WORK/round.out" 2>"$WORK/round.journal"; then
    pass "drr table run --headless --rounds 1 as drr ($(( $(date +%s) - start )) s): $(tail -1 "$WORK/round.out")"
else
    fail "drr table run --headless: $(tail -5 "$WORK/round.out" "$WORK/round.journal")"
fi
check "its log records went to the journal stream with their priority ($(grep -c '^<[0-7]>' "$WORK/round.journal") lines)" \
    grep -q '^<6>' "$WORK/round.journal"
check "and to /var/log/drr/drr.jsonl ($(in_root wc -l </dev/null /var/log/drr/drr.jsonl 2>/dev/null | cut -d' ' -f1) lines)" \
    in_root test -s /var/log/drr/drr.jsonl
check "the journal is /var/lib/drr/journal.sqlite: $(mode_of /var/lib/drr/journal.sqlite)" \
    test "$(in_root stat -c %U /var/lib/drr/journal.sqlite)" = drr
keys=$(in_root find /etc/drr/keys -type f -printf '%m %u %f\n')
bad=$(echo "$keys" | grep -v '^600 drr ')
check "the key and witness files are in /etc/drr/keys, 600 drr: $(echo "$keys" | tr '\n' ';')" \
    test -n "$keys" -a -z "$bad"
audit=$(as_drr drr audit verify 2>&1 | tail -1)
check "drr audit verify as drr: $audit" sh -c "echo \"$audit\" | grep -q '^OK'"

# 3. upgrade to SECOND with the station "running" (a stand-in systemctl; no systemd in a chroot)
# apt runs dpkg with PATH=/usr/sbin:/usr/bin:/sbin:/bin (DPkg::Path): the stand-in goes in /usr/sbin
[ ! -e "$ROOTFS/usr/sbin/systemctl" ] || die "the scratch system has a systemctl of its own"
mkdir -p "$ROOTFS/run/systemd/system"
cat >"$ROOTFS/usr/sbin/systemctl" <<'EOF'
#!/bin/sh
echo "systemctl $*" >>/tmp/systemctl.log
case "$1" in
    is-active) [ "$3" = drr-station.service ] && [ -f /tmp/station-runs ] ;;
    stop) [ "$2" = drr-station.service ] && rm -f /tmp/station-runs; exit 0 ;;
    start) [ "$2" = drr-station.service ] && touch /tmp/station-runs; exit 0 ;;
    *) exit 0 ;;
esac
EOF
chmod 755 "$ROOTFS/usr/sbin/systemctl"
touch "$ROOTFS/tmp/station-runs"
start=$(date +%s)
if in_root apt-get install -y -q --no-install-recommends /tmp/second.deb >"$WORK/upgrade.log" 2>&1; then
    pass "apt-get install $v2 over $v1 ($(( $(date +%s) - start )) s)"
else
    fail "upgrade to $v2: $(tail -8 "$WORK/upgrade.log")"
fi
# each step's first line in apt's output, which must come in this order
line_of() { grep -n -m1 -E "$1" "$WORK/upgrade.log" | cut -d: -f1; }
order=""
for step in "stopping drr-station.service" "kept in /opt/drr/previous" "the journal before" \
    "journal.sqlite: schema .* (is current|upgraded)" "starting drr-station.service again"; do
    order="$order $(line_of "$step")"
done
in_order() {
    local prev=0 n=0 line
    for line in $order; do
        [ "$line" -gt "$prev" ] || return 1
        prev=$line
        n=$((n + 1))
    done
    [ "$n" = 5 ]
}
check "the upgrade stopped the station, kept $v1, backed the journal up, ran drr db upgrade, started the station (apt's lines$order)" in_order
calls=$(grep -E 'stop|start' "$ROOTFS/tmp/systemctl.log" 2>/dev/null | tr '\n' ';')
check "the stand-in systemctl saw: $calls" test "$calls" = "systemctl stop drr-station.service;systemctl start drr-station.service;"
current_is_v2_alone() { [ "$(in_root readlink /opt/drr/current)" = "$v2" ] && [ ! -e "$ROOTFS/opt/drr/$v1" ]; }
check "/opt/drr/current -> $(in_root readlink /opt/drr/current); $v1 gone from /opt/drr" current_is_v2_alone
kept=$(as_drr /opt/drr/previous/"$v1"/drr --version 2>&1)
check "the previous version is kept and runs: /opt/drr/previous/$v1/drr --version: $kept" test "$kept" = "drr ${v1%-*}"
check "the journal before the upgrade: $(in_root ls /var/lib/drr/backups 2>&1)" \
    in_root test -d "/var/lib/drr/backups/before-$v2"
if as_drr drr table run --headless --rounds 1 --wheel sim --speed 100 >"$WORK/round2.out" 2>&1 \
    && as_drr drr audit verify >"$WORK/audit2.out" 2>&1; then
    pass "after the upgrade: a headless round and drr audit verify: $(tail -1 "$WORK/audit2.out")"
else
    fail "after the upgrade: $(tail -3 "$WORK/round2.out" "$WORK/audit2.out")"
fi

# 4. roll-back and forth
out=$(in_root drr-rollback 2>&1)
check "drr-rollback: $(echo "$out" | head -1)" test "$(in_root readlink /opt/drr/current)" = "previous/$v1"
check "drr --version after the roll-back: $(as_drr drr --version 2>&1)" test "$(as_drr drr --version 2>&1)" = "drr ${v1%-*}"
in_root drr-rollback "$v2" >/dev/null 2>&1
check "drr-rollback $v2: back to $(in_root readlink /opt/drr/current)" test "$(in_root readlink /opt/drr/current)" = "$v2"

# 5. remove and purge: the program goes, the evidence stays
rm -rf "$ROOTFS/run/systemd" "$ROOTFS/usr/sbin/systemctl"
in_root apt-get purge -y -q diamond-rush-roulette >"$WORK/purge.log" 2>&1
check "apt-get purge: /opt/drr gone; the journal, keys and logs kept" \
    sh -c "[ ! -e '$ROOTFS/opt/drr' ] && [ -f '$ROOTFS/var/lib/drr/journal.sqlite' ] && [ -d '$ROOTFS/etc/drr/keys' ] && [ -f '$ROOTFS/var/log/drr/drr.jsonl' ] && [ ! -e '$ROOTFS/usr/bin/drr' ]"

echo "package: $(du -h "$FIRST" | cut -f1) ($(dpkg-deb -f "$FIRST" Installed-Size) KiB installed)"
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed (logs in $WORK)"
    exit 1
fi
echo "deb-test: all checks passed"
