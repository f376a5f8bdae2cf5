#!/usr/bin/env bash
# Installs what ForceStage needs from Debian: libiio (headers and library),
# its utilities (iio_info, iio_readdev), iiod, valgrind (the instruction counts of
# the regression run) and tmux (the meter's screen test
# captures it from a tmux pane). Safe to run again: it only
# calls apt when something is missing. Needs root (or sudo).
#
# --kernel (or FORCESTAGE_KERNEL=1) also installs what the real-kernel tests
# need (QEMU, static busybox, the module build tools, python3 for the feeder,
# evtest to read the uinput device back in the guest)
# and prepares Debian's kernel with hardware/kernel/prepare.sh (downloads about
# 225 MB once into /var/cache/forcestage-kernel, builds the trigger modules).
set -euo pipefail
kernel=${FORCESTAGE_KERNEL:-0}
for arg in "$@"; do
    case "$arg" in
        --kernel) kernel=1;;
        *) echo "hardware/setup.sh: unknown option $arg; the only one is --kernel" >&2; exit 64;;
    esac
done
packages=(libiio-dev libiio-utils iiod tmux valgrind util-linux)  # util-linux: unshare (emulator), prlimit (kill-mid-save test)
if [ "$kernel" = 1 ]; then
    packages+=(qemu-system-x86 busybox-static gcc make bc xz-utils cpio kmod python3 gcc-12 evtest systemd udev)  # systemd, udev: the package under systemd as PID 1 in the guest (hardware/kernel/systemd.sh)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
prepare_kernel() {
    [ "$kernel" = 1 ] || return 0
    bash "$(dirname "$0")/kernel/prepare.sh" >/dev/null
}
if [ ${#missing[@]} -eq 0 ]; then
    prepare_kernel
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then sudo="sudo"; else
        echo "hardware/setup.sh: need root to install ${missing[*]}; run it as root or install them yourself" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y "${missing[@]}"
prepare_kernel
