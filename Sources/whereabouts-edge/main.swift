import Edge
import Options
#if canImport(Glibc)
import Glibc
#endif

/// The source flags; every other option is an edge setting, also a config file key.
let sourceOptions: [Option] = [
    .flag("monitor", help: "Listen on the HCI monitor channel beside a running bluetoothd."),
    .value("replay", "FILE", help: "Replay a btsnoop capture through the same pipeline."),
    .flag("stdin", help: "Read H4 hex lines (hcidump -R style) from standard input."),
    .value("scan", "passive|active", help: "With --adapter: active scanning also asks for scan responses.", default: "passive"),
    .value("speed", "X", help: "Replay pacing: 1 = the capture's own timing, 0 = as fast as possible.", default: "1"),
    .flag("retime", help: "Shift replayed timestamps so the capture starts now."),
    .flag("print", help: "Print each decoded report as a JSON line."),
    .value("config", "FILE", help: "Edge configuration file (YAML); flags override its keys."),
    .flag("check-config", help: "Validate the configuration and exit."),
]

let command = Command(
    name: "whereabouts-edge",
    abstract: "hear BLE advertisements and publish RSSI readings over MQTT",
    usage: ["whereabouts-edge --node NAME --broker URL (--adapter DEV | --monitor | --replay FILE | --stdin) [options]"],
    options: EdgeSetting.all.map { s in
        Option.value(s.flag, s.valueName, help: s.help, default: s.defaultText, repeatable: s.repeatable)
    } + sourceOptions,
    discussion: """
        Every setting is also a key of the config file (batch_max for --batch-max, tls: {ca} for --tls-ca).
        Passwords come from --password-file or --password-env, never from the command line.
        Phones on rotating addresses are published as irk:<key hex> when a key from --irks-file resolves them.
        """)

/// The configuration from the file and flags; problems are usage errors (exit 64).
func loadConfig(_ args: Arguments) throws(UsageError) -> EdgeConfig {
    var flags: [String: [String]] = [:]
    for s in EdgeSetting.all where args.isSet(s.flag) { flags[s.key] = args.strings(s.flag) }
    do { return try EdgeConfig.load(flags: flags, configFile: args.isSet("config") ? args.string("config") : nil) }
    catch { throw UsageError(error.message) }
}

/// The one source the command line (or the file's `adapter`) asks for.
func makeSource(_ args: Arguments, _ config: EdgeConfig) throws -> ReportSource {
    let given = ["adapter", "monitor", "replay", "stdin"].filter { args.isSet($0) }
    let kind = given.isEmpty && config.adapter != nil ? "adapter" : try args.oneOf(["adapter", "monitor", "replay", "stdin"])
    switch kind {
    case "replay":
        let speed = try args.double("speed", in: 0...1_000_000) ?? 1
        return try ReplaySource(path: try args.require("replay"), speed: speed, retime: args.flag("retime"))
    case "stdin":
        return StdinSource()
    case "monitor":
        return try monitorSource()
    default:
        return try adapterSource(config.adapter ?? args.require("adapter"), scan: args.string("scan"))
    }
}

exit(runTool(command, arguments: Array(CommandLine.arguments.dropFirst())) { args in
    let config = try loadConfig(args)
    for warning in config.warnings { printError("whereabouts-edge: warning: \(warning)") }
    if args.flag("check-config") {
        if let password = config.mqtt.password {
            do { _ = try password.resolve() } catch { throw UsageError("\(error)") }
        }
        print("configuration OK: node \(config.node), broker \(config.mqtt.broker), qos \(config.qos.rawValue), " +
              "batches every \(config.batchInterval) s or \(config.batchMax) readings, buffer \(config.bufferMax), " +
              "\(config.irks.count) identity resolving keys" + (config.irks.isEmpty ? "" : " (\(config.irks.map(\.name).joined(separator: ", ")))"))
        return ExitCode.success
    }
    let source = try makeSource(args, config)
    let service = try EdgeService(config: config, source: source, version: whereaboutsVersion,
                                  printReports: args.flag("print"))
    return service.run()
})
