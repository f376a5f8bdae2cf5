// The instruction-count driver that Benchmarks/instructions.sh runs under
// `valgrind --tool=callgrind`. For each recording given as NAME=PATH.json it
// holds the recording in memory (ForceStageBench.Workload), runs each measured
// loop once to warm up, then zeroes callgrind's counters, runs it PASSES times
// and dumps the counters under the name "NAME|LOOP|SCANS|BLOCKS", so the script
// can divide the instructions by the scans (or the quiet blocks) they served.
// `--loops A,B` before a recording limits it to those loops (by the names below);
// decode+classify+gestures (GestureDriver with two regions, as `run` with a
// profile's regions) runs only on a recording whose panel has cell positions.
// Setup (reading, decoding the whole recording once, the libiio context) is
// outside every dump.
import CallgrindMarks
import ForceStageBench
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import Foundation

let loops: [(name: String, kernel: Kernel)] = [
    ("decode+classify", .decodeClassify),
    ("decode+classify scan-at-a-time", .decodeClassifyPerScan),
    ("classify", .classify),
    ("classify scan-at-a-time", .classifyPerScan),
    ("iio_channel_convert", .iioConvert),
    ("sum", .sum),
    ("decode+classify+gestures", .decodeClassifyGestures),
]

var arguments = Array(CommandLine.arguments.dropFirst())
var passes = 1
if let i = arguments.firstIndex(of: "--passes"), i + 1 < arguments.count, let n = Int(arguments[i + 1]), (1...1000).contains(n) {
    passes = n
    arguments.removeSubrange(i...(i + 1))
}
guard !arguments.isEmpty else {
    FileHandle.standardError.write(Data("usage: InstructionCounts [--passes N] NAME=REC.json...\n".utf8))
    exit(2)
}
if fs_running_on_valgrind() == 0 {
    FileHandle.standardError.write(Data("InstructionCounts: not under valgrind; the loops run but nothing is counted (use Benchmarks/instructions.sh)\n".utf8))
}

var blackhole = 0.0
var only: Set<String>? = nil
var index = 0
while index < arguments.count {
    let argument = arguments[index]
    index += 1
    if argument == "--loops" {
        guard index < arguments.count else {
            FileHandle.standardError.write(Data("InstructionCounts: --loops needs a list of loops\n".utf8))
            exit(2)
        }
        let names = Set(arguments[index].split(separator: ",").map(String.init))
        let unknown = names.subtracting(loops.map(\.name))
        guard unknown.isEmpty else {
            FileHandle.standardError.write(Data("InstructionCounts: --loops: unknown loop(s) \(unknown.sorted()); loops: \(loops.map(\.name))\n".utf8))
            exit(2)
        }
        only = names
        index += 1
        continue
    }
    guard let eq = argument.firstIndex(of: "=") else {
        FileHandle.standardError.write(Data("InstructionCounts: '\(argument)' is not NAME=PATH.json\n".utf8))
        exit(2)
    }
    let name = String(argument[..<eq]), path = String(argument[argument.index(after: eq)...])
    let workload: Workload
    do {
        workload = try Workload(try Recording.load(path: path), name: name)
    } catch {
        FileHandle.standardError.write(Data("InstructionCounts: \(path): \(error)\n".utf8))
        exit(1)
    }
    let scans = workload.scanCount * passes
    let blocks = workload.scanCount / Classifier.blockScans * passes
    for loop in loops {
        if let only, !only.contains(loop.name) { continue }
        if loop.kernel == .decodeClassifyGestures && workload.setup.positions == nil { continue }
        var sink = EventSink()
        blackhole += workload.run(loop.kernel, events: &sink)
        fs_callgrind_zero()
        for _ in 0..<passes { blackhole += workload.run(loop.kernel, events: &sink) }
        fs_callgrind_dump("\(name)|\(loop.name)|\(scans)|\(blocks)")
    }
    only = nil
}
if blackhole.isNaN { print("") }
