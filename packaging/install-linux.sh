#!/bin/sh
# Install the unpacked bundle on a Linux table PC or workstation (run it from the bundle's folder):
#
#     sudo ./install-linux.sh
#
# Copies the bundle to $PREFIX (default /opt/drr), links /usr/local/bin/drr to it, and installs the
# Start-menu entry, the icon and the systemd user service drr-station.service (installed, not
# enabled: `systemctl --user enable --now drr-station` starts the station with the session). Re-running it upgrades in place; the settings file, the journal
# and the logs live elsewhere (see docs/installation.md) and are never touched.
# DESTDIR stages everything under another root (packaging tests use it).
set -eu

PREFIX=${PREFIX:-/opt/drr}
DESTDIR=${DESTDIR:-}
HERE=$(cd "$(dirname "$0")" && pwd)

[ -x "$HERE/drr" ] || { echo "install-linux.sh: run me from the unpacked bundle (no drr beside me)" >&2; exit 1; }

root="$DESTDIR$PREFIX"
mkdir -p "$root"
# Replace the program folder as a whole so files of an older version do not linger.
rm -rf "$root/_internal"
cp -a "$HERE/." "$root/"

mkdir -p "$DESTDIR/usr/local/bin"
ln -sf "$PREFIX/drr" "$DESTDIR/usr/local/bin/drr"

icon="$HERE/_internal/resources/icons/drr.png"
mkdir -p "$DESTDIR/usr/share/icons/hicolor/256x256/apps" "$DESTDIR/usr/share/applications"
cp "$icon" "$DESTDIR/usr/share/icons/hicolor/256x256/apps/diamond-rush-roulette.png"
sed "s#^Exec=.*#Exec=$PREFIX/drr#" "$HERE/drr.desktop" >"$DESTDIR/usr/share/applications/diamond-rush-roulette.desktop"
if [ -f "$HERE/drr-station.service" ]; then
    mkdir -p "$DESTDIR/usr/lib/systemd/user"
    sed "s#^ExecStart=.*#ExecStart=$PREFIX/drr#" "$HERE/drr-station.service" >"$DESTDIR/usr/lib/systemd/user/drr-station.service"
fi

if [ -z "$DESTDIR" ]; then
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q /usr/share/icons/hicolor || true
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q /usr/share/applications || true
fi

echo "installed $("$root/drr" --version) in $PREFIX"
echo "next: add the station's user to the 'dialout' group for the wheel's serial port, then: drr config init"
