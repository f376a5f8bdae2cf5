#!/usr/bin/env bash
# CI: build the package, install it in this machine with dpkg -i, and use it from
# the installed paths: the version, the three completions, the man page, the
# unit (systemd-analyze verify, where present). Purges it afterwards. Then, where
# QEMU and Debian's kernel are ready (bash hardware/setup.sh --kernel), the same
# package under a real systemd and udev on a real kernel: hardware/kernel/systemd.sh.
# Needs root.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Under /var/tmp, not /tmp: the kernel guest sees the host's / but has its own /tmp.
out=$(mktemp -d /var/tmp/forcestage-deb.XXXXXX)
trap 'rm -rf "$out"' EXIT
OUT="$out" bash hardware/debian/build.sh
deb=$(ls "$out"/forcestage_*.deb)
dpkg-deb --info "$deb" | sed -n '/Package:/,/Description:/p'
dpkg -i "$deb"
trap 'dpkg --purge forcestage >/dev/null || true; rm -rf "$out"' EXIT
fail() { echo "hardware/debian/ci.sh: $*" >&2; exit 1; }
v=$(cd / && /usr/bin/forcestage --version) || fail "the installed forcestage does not run"
[ "$v" = "$(dpkg-deb -f "$deb" Version)" ] || fail "--version says $v, the package $(dpkg-deb -f "$deb" Version)"
echo "installed /usr/bin/forcestage --version: $v"
[ "$(cd / && /usr/bin/forcestage-service --version)" = "$v" ] || fail "the installed forcestage-service does not run or states another version"
# run and status reach it: an unanswered socket is exit 1 from either program.
s=$(cd / && /usr/bin/forcestage status --socket /nonexistent/forcestage.sock 2>&1) && fail "status on no socket succeeded"
case $s in "forcestage status: cannot connect"*) ;; *) fail "forcestage status: $s" ;; esac
bash -n /usr/share/bash-completion/completions/forcestage || fail "the bash completion does not parse"
bash -c 'source /usr/share/bash-completion/completions/forcestage && complete -p forcestage' || fail "the bash completion registers nothing"
grep -q '^#compdef forcestage' /usr/share/zsh/vendor-completions/_forcestage || fail "zsh completion"
grep -q "complete -c 'forcestage'" /usr/share/fish/vendor_completions.d/forcestage.fish || fail "fish completion"
for shell in bash zsh fish; do /usr/bin/forcestage completions "$shell" >/dev/null || fail "forcestage completions $shell"; done
zcat /usr/share/man/man1/forcestage.1.gz | grep -q '^\.Nm forcestage' || fail "the man page"
if command -v man >/dev/null; then man -l /usr/share/man/man1/forcestage.1.gz 2>/dev/null | grep -q "completions" || fail "man cannot render the page"; fi
getent passwd forcestage >/dev/null || fail "postinst made no forcestage user"
ls /usr/share/forcestage/profiles/*.toml >/dev/null || fail "no example profiles"
/usr/bin/forcestage profile --help >/dev/null
if command -v systemd-analyze >/dev/null; then
    systemd-analyze verify /usr/lib/systemd/system/forcestage.service || fail "systemd-analyze verify rejects the unit"
    echo "systemd-analyze verify: the unit is accepted"
    # The shipped uinput drop-in, put where docs/service.md says, must verify too and reach ExecStart.
    d=/etc/systemd/system/forcestage.service.d
    install -D -m 0644 /usr/share/forcestage/systemd/uinput.conf "$d/uinput.conf"
    trap 'rm -f "$d/uinput.conf"; rmdir "$d" 2>/dev/null || true; dpkg --purge forcestage >/dev/null || true; rm -rf "$out"' EXIT
    systemd-analyze verify /usr/lib/systemd/system/forcestage.service || fail "systemd-analyze verify rejects the unit with uinput.conf"
    systemd-analyze cat-config systemd/system/forcestage.service | grep -qx 'Environment=FORCESTAGE_OUTPUTS=--uinput' ||
        fail "systemd does not read the uinput drop-in from $d"
    rm -f "$d/uinput.conf"; rmdir "$d" 2>/dev/null || true
    echo "systemd-analyze verify: the unit with the uinput drop-in is accepted"
else
    echo "systemd-analyze is not here: unit not verified"
fi
echo "debian package: built, installed, used and verified"
dpkg --purge forcestage >/dev/null
# Under systemd as PID 1 with udev, on Debian's kernel with the real ti-ads1015 driver (about
# 2 minutes under QEMU's software emulation); its guest installs the package into an overlay
# of this machine's /, so it runs after the purge above.
if command -v qemu-system-x86_64 >/dev/null; then
    logs=$(mktemp -d /var/tmp/forcestage-systemd.XXXXXX)
    bash hardware/kernel/systemd.sh --deb "$deb" --out "$logs" ||
        fail "the package under systemd on the real kernel failed (hardware/kernel/systemd.sh); the guest's logs: $logs/.fs/"
    rm -rf "$logs"
else
    echo "QEMU or Debian's kernel is not here (bash hardware/setup.sh --kernel): the package not started under systemd"
fi
