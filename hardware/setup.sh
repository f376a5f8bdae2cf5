#!/usr/bin/env bash
# Installs what ForceStage needs from Debian: libiio (headers and library),
# its utilities (iio_info, iio_readdev), iiod, and tmux (the meter's screen test
# captures it from a tmux pane). Safe to run again: it only
# calls apt when something is missing. Needs root (or sudo).
set -euo pipefail
packages=(libiio-dev libiio-utils iiod tmux util-linux)  # util-linux: unshare (emulator), prlimit (kill-mid-save test)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
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
