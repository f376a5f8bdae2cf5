import Foundation
import ForceStageFormats
#if canImport(Glibc)
import Glibc
#endif

/// Mounts that give a process tree its own `/sys/bus` and `/dev`. Only ever
/// called inside a private mount namespace (see ``Emulator``): the mounts
/// vanish with the namespace's last process, so nothing is left behind.
public enum MountNamespace {
    /// Environment variable marking the re-executed process inside the namespace;
    /// it holds the outer process's mount namespace.
    public static let insideMarker = "FORCESTAGE_EMULATOR_NAMESPACE"
    /// Where the emulator keeps its own files, under the private `/sys/bus` tmpfs.
    public static let stateDirectory = "/sys/bus/.forcestage-emulator"

    private static func mountOrThrow(_ source: String, _ target: String, _ type: String?, _ flags: UInt, _ data: String?) throws {
        if mount(source, target, type, flags, data) != 0 {
            throw POSIXFailure(operation: "mount \(source) (\(type ?? "bind")) on", path: target)
        }
    }

    /// This process's mount namespace (`mnt:[inode]`).
    public static func currentNamespace() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/mnt")
    }

    /// Checks that this process is not in the mount namespace it was started
    /// from (recorded in ``insideMarker`` before the re-exec), so that a
    /// mistake can never mount over the real `/dev`.
    public static func isPrivate() -> Bool {
        guard let mine = currentNamespace(),
              let outer = ProcessInfo.processInfo.environment[insideMarker], outer.hasPrefix("mnt:") else { return false }
        return mine != outer
    }

    /// Mounts a tmpfs over `/sys/bus` (with `iio/devices` in it) and a tmpfs
    /// over `/dev` that carries every host entry but the IIO device nodes again
    /// (bind mounts), so the emulator can add `/dev/iio:deviceN`.
    public static func setUp() throws {
        guard isPrivate() else {
            throw POSIXFailure(operation: "refuse to mount outside a private mount namespace; run through `forcestage emulate`", path: "/", code: EPERM)
        }
        // Nothing we mount may propagate back to the host.
        try mountOrThrow("none", "/", nil, UInt(MS_REC | MS_PRIVATE), nil)
        try mountOrThrow("forcestage-sys", "/sys/bus", "tmpfs", UInt(MS_NOSUID | MS_NOEXEC), "mode=0755")
        let fm = FileManager.default
        try fm.createDirectory(atPath: "/sys/bus/iio/devices", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)

        // Keep the host's /dev reachable, then cover /dev and put every entry back.
        let hostDev = stateDirectory + "/host-dev"
        try fm.createDirectory(atPath: hostDev, withIntermediateDirectories: true)
        try mountOrThrow("/dev", hostDev, nil, UInt(MS_BIND | MS_REC), nil)
        try mountOrThrow("forcestage-dev", "/dev", "tmpfs", UInt(MS_NOSUID), "mode=0755")
        // Not the host's own IIO device nodes: the emulated tree hides their sysfs side, and a
        // bind mount on /dev/iio:deviceN would stop the emulator making its own node there
        // (a board with a real sensor, or the QEMU guest of the real-kernel tests).
        for entry in (try? fm.contentsOfDirectory(atPath: hostDev)) ?? [] where !entry.hasPrefix("iio:device") {
            let source = hostDev + "/" + entry
            let target = "/dev/" + entry
            var st = stat()
            guard lstat(source, &st) == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFLNK:
                if let dest = try? fm.destinationOfSymbolicLink(atPath: source) { symlink(dest, target) }
            case S_IFDIR:
                mkdir(target, st.st_mode & 0o7777)
                _ = mount(source, target, nil, UInt(MS_BIND | MS_REC), nil)
            default:
                let fd = open(target, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
                if fd >= 0 { close(fd) }
                _ = mount(source, target, nil, UInt(MS_BIND), nil)
            }
        }
        _ = umount2(hostDev, Int32(MNT_DETACH))
        rmdir(hostDev)
    }
}
