#!/usr/bin/env bash
# hardware/kernel/prepare.sh - gets Debian's kernel ready to boot under QEMU for
# ForceStage's real-kernel tests, once; later calls reuse the cache.
#
#   1. downloads (apt-get download, no install) the kernel image that
#      linux-image-amd64 depends on, its headers, kbuild and linux-source;
#   2. builds the IIO modules Debian leaves out (configfs glue, software
#      triggers: hrtimer and sysfs) out of tree against those headers;
#   3. builds a busybox initramfs whose init mounts the host's / read-only over
#      virtio-9p and hands over to hardware/kernel/guest-init.sh, and a second
#      one (initramfs-systemd-init) that boots systemd on it for systemd.sh.
#
# Cache: $FORCESTAGE_KERNEL_CACHE (default /var/cache/forcestage-kernel). It must
# not be under /tmp: the guest covers /tmp with its own tmpfs.
# Prints "KREL=<release>" and "CACHE=<dir>" on stdout when ready.
# Exit codes: 2 a package or tool is missing (run: bash hardware/setup.sh --kernel),
#             3 the modules failed to build (log kept in the cache), 1 other.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${FORCESTAGE_KERNEL_CACHE:-/var/cache/forcestage-kernel}
say() { echo "hardware/kernel/prepare: $*" >&2; }
die() { say "$2"; exit "$1"; }

case "$CACHE" in /tmp/*|/tmp) die 2 "FORCESTAGE_KERNEL_CACHE=$CACHE is under /tmp, which the guest hides behind a tmpfs; choose another folder";; esac
for tool in qemu-system-x86_64 busybox apt-get dpkg-deb make gcc xz cpio depmod; do
    command -v "$tool" >/dev/null || die 2 "$tool is not installed; run: bash hardware/setup.sh --kernel"
done
[ -x /bin/busybox ] && file_static=$(ldd /bin/busybox 2>&1 || true)
case "${file_static:-}" in *"not a dynamic"*|*"statically linked"*) ;; *) die 2 "/bin/busybox is not the static busybox; run: bash hardware/setup.sh --kernel (busybox-static)";; esac

if [ -z "${KREL:-}" ]; then
    KREL=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -1)
fi
[ -n "$KREL" ] || die 2 "apt-cache knows no linux-image-amd64; run apt-get update (bash hardware/setup.sh --kernel does)"
SERIES=${KREL%%.0-*}.0; SERIES=${SERIES%.0}      # 6.1.0-56-amd64 -> 6.1
ABI=${KREL%-amd64}                                 # 6.1.0-56
mkdir -p "$CACHE/debs"
cd "$CACHE"

# -- 1. packages -----------------------------------------------------------------
want=("linux-image-$KREL" "linux-headers-$KREL" "linux-headers-$ABI-common" "linux-kbuild-$SERIES" "linux-source-$SERIES")
for p in "${want[@]}"; do
    ls debs/"${p}"_*.deb >/dev/null 2>&1 && continue
    say "downloading $p"
    (cd debs && apt-get download "$p" >/dev/null 2>"$CACHE/download.log") ||
        die 2 "cannot download $p ($(grep -m1 -E '^E:' "$CACHE/download.log" || echo 'see '"$CACHE"/download.log)); run apt-get update, or set KREL to a release apt-cache knows"
done

# -- 2. kernel tree, headers, the IIO sources Debian does not build -------------
KROOT=$CACHE/kroot-$KREL; HDR=$CACHE/headers-$KREL; SRC=$CACHE/src-$KREL
KB=$HDR/usr/src/linux-headers-$KREL
if [ ! -e "$KROOT/.ready" ]; then
    say "unpacking $KREL"
    rm -rf "$KROOT" "$HDR" "$SRC"; mkdir -p "$KROOT" "$HDR" "$SRC"
    dpkg-deb -x debs/linux-image-"$KREL"_*.deb "$KROOT"
    for d in debs/linux-headers-*_*.deb debs/linux-kbuild-*_*.deb; do dpkg-deb -x "$d" "$HDR"; done
    # the arch Makefile includes the common headers by their installed path
    sed -i "s|^include /usr/src/|include $HDR/usr/src/|" "$KB/Makefile"
    dpkg-deb --fsys-tarfile debs/linux-source-"$SERIES"_*.deb |
        tar -xO --wildcards './usr/src/linux-source-*.tar.xz' | xz -dc |
        tar -x -C "$SRC" --strip-components=1 --wildcards \
            '*/drivers/iio/industrialio-configfs.c' '*/drivers/iio/industrialio-sw-trigger.c' \
            '*/drivers/iio/trigger/iio-trig-hrtimer.c' '*/drivers/iio/trigger/iio-trig-sysfs.c'
    touch "$KROOT/.ready"
fi

# -- 3. the missing modules --------------------------------------------------------
MODS=$KROOT/lib/modules/$KREL
if [ ! -e "$MODS/extra/.ready" ]; then
    say "building industrialio-configfs, industrialio-sw-trigger, iio-trig-hrtimer, iio-trig-sysfs"
    B=$CACHE/build-$KREL; rm -rf "$B"; mkdir -p "$B"
    cp "$SRC"/drivers/iio/industrialio-{configfs,sw-trigger}.c "$SRC"/drivers/iio/trigger/iio-trig-{hrtimer,sysfs}.c "$B/"
    printf 'obj-m := industrialio-configfs.o industrialio-sw-trigger.o iio-trig-hrtimer.o iio-trig-sysfs.o\n' > "$B/Kbuild"
    t0=$(date +%s.%N)
    if ! make -C "$KB" M="$B" -j"$(nproc)" modules >"$CACHE/modules-build.log" 2>&1; then
        die 3 "the IIO trigger modules failed to build against linux-headers-$KREL: $(grep -m1 -E 'error|Error' "$CACHE/modules-build.log" || tail -1 "$CACHE/modules-build.log") (whole log: $CACHE/modules-build.log)"
    fi
    mkdir -p "$MODS/extra"; cp "$B"/*.ko "$MODS/extra/"
    depmod -b "$KROOT" "$KREL"
    printf '%.1f\n' "$(echo "$(date +%s.%N) - $t0" | bc)" > "$MODS/extra/.build-seconds"
    touch "$MODS/extra/.ready"
    say "modules built in $(cat "$MODS/extra/.build-seconds") s"
fi

# -- 4. the initramfs --------------------------------------------------------------
INITRD=$CACHE/initramfs-$KREL.cpio.gz
# Rebuilt when the init script differs from the one it was built from (a content
# stamp, not a date: two checkouts of different ages share this cache).
stamp() { { cat "$1"; echo "$2"; } | sha256sum | cut -c1-16; }
STAMP=$(stamp "$HERE/initramfs-init" "virtio_pci 9pnet_virtio 9p overlay")
if [ ! -e "$INITRD" ] || [ "$(cat "$INITRD.stamp" 2>/dev/null)" != "$STAMP" ]; then
    say "building the initramfs"
    R=$CACHE/initramfs-root; rm -rf "$R"; mkdir -p "$R"/{bin,dev,proc,sys,mods,host,outshare,rw}
    cp /bin/busybox "$R/bin/busybox"
    : > "$R/mods/order"
    for m in virtio_pci 9pnet_virtio 9p overlay; do
        modprobe -d "$KROOT" -S "$KREL" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
    done | awk '!seen[$0]++' | while read -r f; do cp "$f" "$R/mods/"; basename "$f" >> "$R/mods/order"; done
    install -m 0755 "$HERE/initramfs-init" "$R/init"
    (cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$INITRD.new" && mv "$INITRD.new" "$INITRD"
    echo "$STAMP" > "$INITRD.stamp"
fi
# -- 5. the initramfs that boots systemd (hardware/kernel/systemd.sh): overlayfs too --
INITRD_SYSTEMD=$CACHE/initramfs-systemd-$KREL.cpio.gz
STAMP_SYSTEMD=$(stamp "$HERE/initramfs-systemd-init" "virtio_pci 9pnet_virtio 9p overlay")
if [ ! -e "$INITRD_SYSTEMD" ] || [ "$(cat "$INITRD_SYSTEMD.stamp" 2>/dev/null)" != "$STAMP_SYSTEMD" ]; then
    say "building the systemd initramfs"
    R=$CACHE/initramfs-systemd-root; rm -rf "$R"; mkdir -p "$R"/{bin,dev,proc,sys,mods,host,outshare,rw,newroot}
    cp /bin/busybox "$R/bin/busybox"
    : > "$R/mods/order"
    for m in virtio_pci 9pnet_virtio 9p overlay; do
        modprobe -d "$KROOT" -S "$KREL" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
    done | awk '!seen[$0]++' | while read -r f; do cp "$f" "$R/mods/"; basename "$f" >> "$R/mods/order"; done
    install -m 0755 "$HERE/initramfs-systemd-init" "$R/init"
    (cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$INITRD_SYSTEMD.new" && mv "$INITRD_SYSTEMD.new" "$INITRD_SYSTEMD"
    echo "$STAMP_SYSTEMD" > "$INITRD_SYSTEMD.stamp"
fi
echo "KREL=$KREL"
echo "CACHE=$CACHE"
