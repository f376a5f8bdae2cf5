import ArgumentParser
import ForceStageFormats
import ForceStageFormatsURL
import ForceStageTools
import Foundation

extension ForceStage {
    /// `forcestage profile`: which profile applies to a device, and checking profiles.
    struct ProfileCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "profile",
            abstract: "Inspect panel profiles: which one a device gets and why, and whether files are valid.",
            subcommands: [Which.self, Check.self])

        struct Which: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show which profile in calibration/ applies to a device and why (the most specific match wins).",
                discussion: """
                Give the device's IIO name (and label), or leave them out to ask a live device \
                (--uri/--device, or the emulator). Exit status: 0 a profile matched, 1 none did (or no device answered), 2 a bad profile directory (bad input), 64 usage.
                """)

            @Option(help: "The IIO device name to match (instead of asking a device).")
            var name: String?

            @Option(help: "The device's label.")
            var label: String?

            @Option(help: "Directory of profiles (default: calibration/ found from here or above the executable).")
            var dir: String?

            @OptionGroup var source: DeviceOptions

            func run() throws {
                var deviceName = name
                var deviceLabel = label
                if deviceName == nil {
                    switch source.open() {
                    case .success(let d):
                        deviceName = d.name ?? d.id
                        deviceLabel = label ?? d.label
                    case .failure(let f): throw CommandFailure(.deviceFault, "\(f.message); or give --name (and --label)")
                    }
                }
                guard let directory = dir.map({ URL(fileURLWithPath: $0) }) ?? profileDirectory() else {
                    throw CommandFailure(.deviceFault, "no calibration/ directory here or above the executable; pass --dir")
                }
                let library: ProfileLibrary
                do { library = try ProfileLibrary(directory: directory) } catch { throw badInput(error) }
                print("device: name \(deviceName!)\(deviceLabel.map { ", label \($0)" } ?? ", no label")")
                print("profiles in \(directory.path):")
                let ranked = library.rank(deviceName: deviceName!, label: deviceLabel)
                let best = ranked.first { $0.matches }
                for m in ranked {
                    let mark = m.profile.file == best?.profile.file ? "*" : " "
                    let file = URL(fileURLWithPath: m.profile.file).lastPathComponent
                    print("\(mark) \(file) (\(m.profile.name)): \(m.matches ? "score \(m.score)" : "no match")")
                    for r in m.reasons { print("      \(r)") }
                }
                for p in library.problems { print("  ! skipped: \(p.description)") }
                guard let best else {
                    throw CommandFailure(.deviceFault, "no profile matches \(deviceName!)\(deviceLabel.map { " (label \($0))" } ?? ""); calibrate one with `forcestage calibrate -o \(directory.path)/NAME.toml`")
                }
                let ties = ranked.filter { $0.score == best.score && $0.profile.file != best.profile.file }
                print("matched: \(best.profile.file)")
                if !ties.isEmpty {
                    print("note: tied with \(ties.map { URL(fileURLWithPath: $0.profile.file).lastPathComponent }.joined(separator: ", ")); the first by file name wins. Make one [match] more specific.")
                }
            }
        }

        struct Check: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Validate profiles: each error names the file, the line and the key.")

            @Argument(help: "Profile files.")
            var files: [String]

            func run() throws {
                var bad = 0
                for f in files {
                    do {
                        let p = try Profile.load(URL(fileURLWithPath: f))
                        print("\(f): ok (\(p.name): peek \(p.settings.peekNewtons) N, pop \(p.settings.popNewtons) N, \(p.channels.count) channel\(p.channels.count == 1 ? "" : "s"))")
                    } catch {
                        FileHandle.standardError.write(Data("\(terminalSafe(error.description))\n".utf8))
                        bad += 1
                    }
                }
                if bad > 0 { throw CommandFailure(.badInput, "\(bad) profile\(bad == 1 ? "" : "s") did not validate (each named above)") }
            }
        }
    }
}

