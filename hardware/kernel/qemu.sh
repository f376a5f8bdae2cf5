# hardware/kernel/qemu.sh - sourced by run.sh and systemd.sh: Debian's kernel
# booted under QEMU the same way for both, with the host's / shared read-only
# over 9p (tag host) and the results folder $OUT writable (tag out). Needs
# KREL, CACHE, OUT, FS, TIMEOUT and say() from the caller.

# ACCEL: software emulation by default (a /dev/kvm node can be present where KVM does not work).
ACCEL=${FORCESTAGE_KERNEL_ACCEL:-tcg}
case "$ACCEL" in tcg|kvm) ;; *) say "FORCESTAGE_KERNEL_ACCEL=$ACCEL: use tcg or kvm"; exit 64;; esac
CONSOLE=$OUT/console.log

# put NAME VALUE: the request's value NAME, one raw line in $FS/NAME, which the
# guest reads with `IFS= read -r` (a path may hold spaces, quotes and non-ASCII
# letters, which neither the kernel command line nor a sourced file carries
# safely); a value with a newline is refused.
put() {
    case "$2" in *"
"*) say "$1 '$2' holds a newline, which the guest cannot be handed; use another folder"; exit 64;; esac
    printf '%s\n' "$2" > "$FS/$1"
}

# boot_guest INITRD APPEND: starts QEMU in the background with initramfs INITRD
# (a file in $CACHE) and kernel command line APPEND (after console=ttyS0 quiet
# panic=-1); sets TP (the timeout's pid) and t0 (the start, for the wall time).
boot_guest() {
    t0=$(date +%s.%N)
    timeout --kill-after=5 "$TIMEOUT" qemu-system-x86_64 -accel "$ACCEL" -m 1G -smp 1 -display none -no-reboot \
        -serial "file:$CONSOLE" -monitor none \
        -kernel "$CACHE/kroot-$KREL/boot/vmlinuz-$KREL" -initrd "$CACHE/$1" \
        -append "console=ttyS0 quiet panic=-1 $2" \
        -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
        -virtfs "local,path=$OUT,mount_tag=out,security_model=none,multidevs=remap" </dev/null >"$FS/qemu.log" 2>&1 &
    TP=$!
}

# The last stage the guest announced on its console, if any.
laststage() { grep -a 'forcestage-kernel: stage' "$CONSOLE" 2>/dev/null | tail -1 | sed 's/.*stage //' | tr -d '\r' || true; }
