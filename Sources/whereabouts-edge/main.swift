import Edge
import Options
#if canImport(Glibc)
import Glibc
#endif

/// Options that are not settings: `--config` names the file itself, and `--check-config` is
/// an action; neither can be a key of the file. Every other option is an `EdgeSetting`, read
/// (typed, with the file's keys under it) by `EdgeConfig.load`.
enum CommandOption {
    static let config = Opt<String?>.text("config", "FILE", help: "Edge configuration file (YAML); flags override its keys.")
    static let checkConfig = Opt<Bool>.flag("check-config", help: "Validate the configuration and exit.")
}

let command = Command(
    name: "whereabouts-edge",
    abstract: "hear BLE advertisements and publish RSSI readings over MQTT",
    options: EdgeSetting.all.map(\.option) + [CommandOption.config.option, CommandOption.checkConfig.option],
    discussion: """
        Every option but --config and --check-config is also a key of the config file (batch_max for
        --batch-max, tls: {ca} for --tls-ca, monitor: true for --monitor); a flag wins over its key, and a
        source flag (--adapter, --monitor, --replay, --stdin) replaces the file's source.
        Passwords come from --password-file or --password-env, never from the command line.
        Phones on rotating addresses are published as irk:<key hex> when a key from --irks-file resolves them.
        SIGTERM and SIGINT flush what is buffered, publish offline and exit 0; SIGHUP is logged and ignored
        (the config is read at start only: restart to apply a change).
        """)

/// The configuration from the file and flags; bad values are usage errors (exit 64), a
/// config file that cannot be read a failure (exit 1).
func loadConfig(_ args: Arguments) throws -> EdgeConfig {
    var flags: [String: [String]] = [:]
    for s in EdgeSetting.all where args.isSet(s.flag) { flags[s.key] = s.valueName == nil ? ["true"] : args.strings(s.flag) }
    let file = try args.get(CommandOption.config)
    do { return try EdgeConfig.load(flags: flags, configFile: file) }
    catch { throw error.isUnreadableFile ? ReadFailure(error.message) as Error : UsageError(error.message) }
}

/// The source the configuration chose; none is a usage error.
func requireSource(_ config: EdgeConfig) throws(UsageError) -> SourceSetting {
    guard let source = config.source else {
        throw UsageError("one of --adapter, --monitor, --replay, --stdin is required (or adapter, monitor, replay or stdin in the config file)")
    }
    return source
}

func makeSource(_ setting: SourceSetting) throws -> ReportSource {
    switch setting {
    case .replay(let path, let speed, let retime):
        return try ReplaySource(path: path, speed: speed, retime: retime)
    case .stdin:
        return StdinSource()
    case .monitor:
        return try monitorSource()
    case .adapter(let adapter, let active):
        return try adapterSource(adapter, active: active)
    }
}

exit(runTool(command, arguments: Array(CommandLine.arguments.dropFirst())) { args in
    let config = try loadConfig(args)
    for warning in config.warnings { printError("whereabouts-edge: warning: \(warning)") }
    if try args.get(CommandOption.checkConfig) {
        let source = try requireSource(config)
        // Every named file is read now, so a missing CA fails here with its path (exit 1).
        if let problems = config.broker?.unreadableFiles(), !problems.isEmpty {
            throw ReadFailure(problems.joined(separator: "\n"))
        }
        if let password = config.mqtt.password {
            do { _ = try password.resolve() } catch { throw ReadFailure("\(error)") }
        }
        print("configuration OK: node \(config.node), source \(source), broker \(config.mqtt.broker), qos \(config.qos.rawValue), " +
              "batches every \(config.batchInterval) s or \(config.batchMax) readings, buffer \(config.bufferMax), " +
              (config.partitions.count > 1 ? "\(config.partitions.count) partitions, " : "") +
              "\(config.irks.count) identity resolving keys" + (config.irks.isEmpty ? "" : " (\(config.irks.map(\.name).joined(separator: ", ")))"))
        return ExitCode.success
    }
    let source = try makeSource(try requireSource(config))
    let service = try EdgeService(config: config, source: source, version: whereaboutsVersion)
    return service.run()
})
