#!/usr/bin/env bash
# Tests/elsewhere.sh - the tests that could depend on where the clone lives, run from a
# copy of this tree in a folder whose path has a dot, a space and a non-ASCII letter,
# under /tmp (which the real kernel's guest covers with its own overlay):
#
#   bash Tests/elsewhere.sh [FOLDER]        # default: "/tmp/fs tëst.d/p"
#
# It copies the working tree (tracked files and untracked ones git does not ignore;
# no .build), builds the tests there and runs the path suites (PathTextTests, and
# SystemdUnitTests, which writes the build's path into a unit file) and the
# real-kernel suite (RealKernel: hardware/kernel/run.sh boots the guest from that
# folder). `.ci/run` runs it; it takes a full debug build (about 5 minutes on 2 cores)
# and one boot of the guest. Needs what the real-kernel suite needs (root,
# `bash hardware/setup.sh --kernel`); without it that suite skips, saying so.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-/tmp/fs tëst.d/p}
case "$dest" in /*) ;; *) echo "Tests/elsewhere.sh: $dest: give an absolute folder" >&2; exit 64;; esac
case "$root/" in "$dest"/*) echo "Tests/elsewhere.sh: $dest holds this checkout; give another folder" >&2; exit 64;; esac
rm -rf "$dest"; mkdir -p "$dest"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$dest"
cd "$dest"
echo "Tests/elsewhere.sh: testing from $dest"
swift build --build-tests
swift test --skip-build --filter 'PathTextTests|SystemdUnitTests|RealKernel'
cd / && rm -rf "$dest"
