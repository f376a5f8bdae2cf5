#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ForceStageFormats

/// `forcestage-service`, the program that holds `run` and `status` without
/// Foundation (docs/benchmarks.md, "Footprint"), installed beside `forcestage`.
public enum ServiceExecutable {
    /// Its file name, beside `forcestage`.
    public static let name = "forcestage-service"

    /// The subcommands it runs in place of `forcestage`.
    public static let subcommands: Set<String> = ["run", "status"]

    /// When `arguments` (the program's argv, program first) name `run` or `status` and
    /// ``name`` is an executable beside this program, replaces this process with it: the
    /// same process id (systemd's main PID), the same arguments and `argv[0]`, so messages,
    /// options and exit statuses are those of the same code in this program. Returns
    /// (and the command runs here) when the program is not there or cannot be executed.
    public static func execIfInstalled(_ arguments: [String]) {
        guard arguments.count > 1, subcommands.contains(arguments[1]), let own = executablePath() else { return }
        let path = PathText.deletingLastComponent(own) + "/" + name
        guard access(path, X_OK) == 0 else { return }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(path, &argv)
        for p in argv { free(p) }
    }

    /// This program's file, from `/proc/self/exe`.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
