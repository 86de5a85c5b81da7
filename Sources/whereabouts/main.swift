import Options
#if canImport(Glibc)
import Glibc
#endif

/// The operator's command line: one subcommand per job, each in its own file
/// (`Decode.swift`, `CheckSite.swift`, `Locate.swift`, …) exposing `run…(_ arguments:) -> Int32`.
let subcommands: [(name: String, abstract: String, run: ([String]) -> Int32)] = [
    ("decode", "decode HCI packets, btsnoop captures or AD payloads to JSON", runDecode),
    ("check-site", "check a site file and report every problem", runCheckSite),
    ("locate", "run the positioning engine offline over recorded readings", runLocate),
    ("calibrate", "fit absorption and rx_adj from the nodes' own beacons", runCalibrate),
    ("evaluate", "measure each locator's error on recorded readings against ground truth", runEvaluate),
    ("simulate", "simulate a site: captures per node, readings and ground truth", runSimulate),
    ("history", "a device's track points from the database", runHistory),
    ("visits", "zone visits from the database", runVisits),
    ("occupancy", "who was in each zone at a time", runOccupancy),
    ("devices", "devices the database knows", runDevices),
    ("watch", "print zone events and a live room table from the broker", runWatch),
]

let top = Command(
    name: "whereabouts",
    abstract: "the Whereabouts operator's command line",
    usage: ["whereabouts COMMAND [options]"],
    options: [],
    positionals: "COMMAND",
    discussion: "commands:\n" + subcommands.map { "  \($0.name.padding(12))\($0.abstract)" }.joined(separator: "\n")
        + "\n\nRun 'whereabouts COMMAND --help' (or 'whereabouts help COMMAND') for a command's options.")

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let first = arguments.first, let sub = subcommands.first(where: { $0.name == first }) {
    exit(sub.run(Array(arguments.dropFirst())))
}
// `whereabouts help [COMMAND]`, as git and swift spell it: the help asked for, exit 0.
if arguments.first == "help", arguments.count <= 2 {
    if arguments.count == 2 {
        guard let sub = subcommands.first(where: { $0.name == arguments[1] }) else {
            printError("whereabouts: unknown command '\(arguments[1])'")
            exit(ExitCode.usage)
        }
        exit(sub.run(["--help"]))
    }
    exit(runTool(top, arguments: ["--help"]) { _ in ExitCode.success })
}
exit(runTool(top, arguments: arguments) { args in
    if let name = args.positionals.first { throw UsageError("unknown command '\(name)'") }
    throw UsageError("a command is required")
})
