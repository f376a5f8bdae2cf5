#!/usr/bin/env bash
# Builds the Debian package in one command:
#
#   bash hardware/debian/build.sh            # -> dist/forcestage_VERSION_ARCH.deb
#
# The binary is built with the Swift runtime linked in (--static-swift-stdlib),
# so the package needs no Swift on the target: only libiio and the C libraries
# it lists in Depends (found from the binary's own ldd). The man page comes from
# swift-argument-parser's generate-manual plugin, the completions from
# `forcestage completions`, the version from `forcestage --version`.
# Environment: OUT (default dist), SCRATCH (default .build-deb).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-dist}
scratch=${SCRATCH:-.build-deb}
log=$(mktemp)
stage=$(mktemp -d)
trap 'rm -rf "$stage" "$log"' EXIT

echo "== building forcestage and forcestage-service (release, Swift runtime linked statically)"
for product in forcestage forcestage-service; do
    swift build -c release --product "$product" --static-swift-stdlib --scratch-path "$scratch" >"$log" 2>&1 || { cat "$log"; exit 1; }
done
bin=$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/forcestage
# The service's program (run, status; no Foundation): what the unit starts and `forcestage run` execs.
service="$(dirname "$bin")/forcestage-service"
if ldd "$bin" | grep -qi mallocinterposer; then
    echo "hardware/debian/build.sh: $bin links malloc-interposer; the shipped binary must not" >&2
    exit 1
fi
version=$("$bin" --version)
arch=$(dpkg --print-architecture)

echo "== man page (swift-argument-parser generate-manual)"
# Debug configuration: reuses the build `swift test` made; the page is the same.
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}" +%Y-%m-%d)
swift package --disable-sandbox generate-manual --configuration debug --date "$date" >"$log" 2>&1 || { cat "$log"; exit 1; }
man=$(swift build --show-bin-path)/../plugins/GenerateManual/outputs/forcestage/forcestage.1
# forcestage's page: the plugin also writes a forcestage.1 for forcestage-service (whose root is named forcestage).
[ -f "$man" ] || man=$(find .build/plugins -path '*GenerateManual*/outputs/forcestage/forcestage.1' | head -1)
[ -f "$man" ] || { echo "hardware/debian/build.sh: generate-manual made no forcestage.1" >&2; cat "$log"; exit 1; }

echo "== staging $version for $arch"
install -D -m 0755 "$bin" "$stage/usr/bin/forcestage"
strip --strip-unneeded "$stage/usr/bin/forcestage"
install -D -m 0755 "$service" "$stage/usr/bin/forcestage-service"
strip --strip-unneeded "$stage/usr/bin/forcestage-service"
# The unit and the udev rule as shipped in hardware/, with the package's paths
# (/usr/local/bin/forcestage-service becomes /usr/bin/forcestage-service).
sed 's#/usr/local/bin/forcestage#/usr/bin/forcestage#' hardware/systemd/forcestage.service \
    | install -D -m 0644 /dev/stdin "$stage/usr/lib/systemd/system/forcestage.service"
sed 's#/usr/local/lib/forcestage/#/usr/lib/forcestage/#' hardware/udev/60-forcestage-iio.rules \
    | install -D -m 0644 /dev/stdin "$stage/usr/lib/udev/rules.d/60-forcestage-iio.rules"
install -D -m 0755 hardware/udev/forcestage-iio-permissions "$stage/usr/lib/forcestage/forcestage-iio-permissions"
install -D -m 0644 hardware/debian/61-forcestage-uinput.rules "$stage/usr/lib/udev/rules.d/61-forcestage-uinput.rules"
# The uinput drop-in, not active: docs/service.md, "Input device", says how to turn it on.
install -D -m 0644 hardware/systemd/forcestage.service.d/uinput.conf "$stage/usr/share/forcestage/systemd/uinput.conf"
install -D -m 0644 hardware/debian/sysusers.conf "$stage/usr/lib/sysusers.d/forcestage.conf"
install -D -m 0644 hardware/debian/tmpfiles.conf "$stage/usr/lib/tmpfiles.d/forcestage.conf"
for p in calibration/*.toml; do
    install -D -m 0644 "$p" "$stage/usr/share/forcestage/profiles/$(basename "$p")"
done
install -D -m 0644 "$man" "$stage/usr/share/man/man1/forcestage.1"
gzip -9n "$stage/usr/share/man/man1/forcestage.1"
"$bin" completions bash | install -D -m 0644 /dev/stdin "$stage/usr/share/bash-completion/completions/forcestage"
"$bin" completions zsh | install -D -m 0644 /dev/stdin "$stage/usr/share/zsh/vendor-completions/_forcestage"
"$bin" completions fish | install -D -m 0644 /dev/stdin "$stage/usr/share/fish/vendor_completions.d/forcestage.fish"
install -D -m 0644 README.md "$stage/usr/share/doc/forcestage/README.md"
for page in docs/*.md; do   # the README's links to docs/ resolve beside it
    install -D -m 0644 "$page" "$stage/usr/share/doc/forcestage/$page"
done

# Depends: the Debian packages that own the libraries the binaries load.
depends=$(ldd "$stage/usr/bin/forcestage" "$stage/usr/bin/forcestage-service" | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' \
    | while read -r lib; do dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true; done \
    | cut -d: -f1 | sort -u | paste -sd, | sed 's/,/, /g')
[ -n "$depends" ] || { echo "hardware/debian/build.sh: found no package for the binary's libraries" >&2; exit 1; }
size=$(du -sk "$stage" | cut -f1)
mkdir -p "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: forcestage
Version: $version
Architecture: $arch
Maintainer: ForceStage maintainers <forcestage@localhost>
Installed-Size: $size
Depends: $depends
Recommends: iiod, libiio-utils
Section: utils
Priority: optional
Description: force-press classifier for IIO force sensors (peek, pop, release)
 Reads force sensors through libiio and classifies presses into peek, pop,
 hold and release, as a systemd service with a Unix socket, an optional
 uinput input device and haptic feedback through force-feedback devices.
CONTROL
install -m 0755 hardware/debian/postinst "$stage/DEBIAN/postinst"
install -m 0755 hardware/debian/postrm "$stage/DEBIAN/postrm"

mkdir -p "$out"
deb="$out/forcestage_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zgzip --build "$stage" "$deb" >/dev/null
echo "built $deb ($(du -k "$deb" | cut -f1) kB; Depends: $depends)"
