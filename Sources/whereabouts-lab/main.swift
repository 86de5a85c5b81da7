import Options
#if canImport(Glibc)
import Glibc
#endif

/// The lab's command line: what measures positioning, beside the operator's `whereabouts`.
/// `make accuracy` runs `whereabouts-lab accuracy`.
let subcommands: [(name: String, abstract: String, run: ([String]) -> Int32)] = [
    ("accuracy", "measure each locator's error on simulated sites and the real walks", runAccuracy),
    ("gate", "fail when a positioning figure got worse than its committed threshold", runGate),
    ("self-calibration", "the real walks with the site's defaults, without and with self-calibration", runSelfCalibration),
]

let top = Command(
    name: "whereabouts-lab",
    abstract: "the Whereabouts lab: accuracy of the positioning engine",
    usage: ["whereabouts-lab COMMAND [options]"],
    options: [],
    positionals: "COMMAND",
    discussion: "commands:\n" + subcommands.map { "  \($0.name.padding(10))\($0.abstract)" }.joined(separator: "\n")
        + "\n\nRun 'whereabouts-lab COMMAND --help' for a command's options.")

let arguments = Array(CommandLine.arguments.dropFirst())
if let first = arguments.first, let sub = subcommands.first(where: { $0.name == first }) {
    exit(sub.run(Array(arguments.dropFirst())))
}
exit(runTool(top, arguments: arguments) { args in
    if let name = args.positionals.first { throw UsageError("unknown command '\(name)'") }
    throw UsageError("a command is required")
})

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
