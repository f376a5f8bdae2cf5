import ForceStageFormats
import ForceStageServiceRun
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `forcestage-service`: `forcestage run` and `forcestage status` in a program that
/// links neither Foundation nor swift-argument-parser (docs/benchmarks.md, "Footprint"), so the
/// long-lived service loads no Foundation library. `forcestage run|status` execs it
/// when it is installed beside `forcestage`; the systemd unit starts it directly.
/// It parses the same options into the same ``RunOptions`` and ``StatusOptions``
/// and runs the same code, so it prints as `forcestage run` with the same
/// messages and exit statuses (docs/getting-started.md, "Errors, exit statuses and limits").
@main
struct ForceStageServiceMain {
    static func main() {
        let outcome = ServiceArguments.parse(Array(CommandLine.arguments.dropFirst()))
        switch outcome {
        case .help(let text):
            print(text)
            exit(0)
        case .version:
            print(forceStageVersion)
            exit(0)
        case .usage(let who, let message):
            printError(usageLine(who, message))
            exit(ExitStatus.usage.rawValue)
        case .run(let options):
            do throws(CommandFailure) {
                exit(try options.execute())
            } catch {
                fail(error, "\(ServiceArguments.program) run")
            }
        case .status(let options):
            do throws(CommandFailure) {
                try options.execute()
                exit(0)
            } catch {
                fail(error, "\(ServiceArguments.program) status")
            }
        }
    }

    /// One line naming the command, and the failure's documented status.
    static func fail(_ failure: CommandFailure, _ who: String) -> Never {
        var failure = failure
        if failure.command == nil { failure.command = who }
        printError(failure.description)
        exit(failure.status.rawValue)
    }
}
