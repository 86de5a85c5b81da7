#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The release of every Whereabouts tool.
public let whereaboutsVersion = "0.1.0"

/// Exit codes shared by the tools (sysexits.h where one fits).
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
}

/// Writes a line to standard error.
public func printError(_ message: String) {
    let line = message + "\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

/// Parses the command line for `command` and runs `body`, turning `--help`, `--version`
/// and usage errors into the conventional output and exit codes.
public func runTool(_ command: Command, arguments: [String],
                    _ body: (Arguments) throws -> Int32) -> Int32 {
    do {
        switch try command.parse(arguments) {
        case .help:
            print(command.helpText, terminator: "")
            return ExitCode.success
        case .version:
            print("\(command.name) \(whereaboutsVersion)")
            return ExitCode.success
        case .run(let args):
            return try body(args)
        }
    } catch let error as UsageError {
        printError("\(command.name): \(error.message)")
        printError("usage: " + (command.usage.isEmpty ? command.name : command.usage.joined(separator: "\n       ")))
        return ExitCode.usage
    } catch {
        printError("\(command.name): \(error)")
        return ExitCode.failure
    }
}

/// Termination signals (SIGTERM, SIGINT) as a service waits for them.
///
/// Call `block()` first thing in `main`, before any thread starts, so that every thread
/// inherits the mask and the signals stay pending until `wait()` takes one. No handler runs
/// in signal context, and no closure needs an actor.
public enum TerminationSignal {
    public static func block() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Blocks the calling thread until SIGTERM or SIGINT arrives; returns its number.
    @discardableResult
    public static func wait() -> Int32 {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        var number: Int32 = 0
        while sigwait(&set, &number) != 0 {}
        return number
    }

    /// As `wait()`, for at most `seconds`: the signal's number, or nil when none came.
    public static func wait(seconds: Double) -> Int32? {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        let whole = max(0, seconds.rounded(.down))
        var timeout = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
        let number = sigtimedwait(&set, nil, &timeout)
        return number > 0 ? number : nil
    }
}
