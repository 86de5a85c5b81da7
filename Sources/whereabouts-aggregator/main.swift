import Aggregator
import Foundation
import MQTT
import Options
import Positioning
import Wire
import YAML

let command = Command(
    name: "whereabouts-aggregator",
    abstract: "fuse readings from every node into positions, rooms and zone events",
    usage: ["whereabouts-aggregator --site FILE [--broker URL] [--db FILE] [--http ADDR:PORT] [--config FILE]"],
    options: [
        .value("site", "FILE", help: "The site file (YAML): floors, rooms, nodes, devices."),
        .value("broker", "URL", help: "mqtt://host[:port] or mqtts://host[:port]; default: the site's mqtt section, else mqtt://localhost:1883."),
        .value("db", "FILE", help: "SQLite database for tracks and visits ('none' to run without); default: the site's storage.path."),
        .value("http", "ADDR:PORT", help: "Serve /metrics, /healthz and /api here ('none' to serve nothing).", default: "127.0.0.1:9464"),
        .value("http-token-file", "FILE", help: "A file holding the bearer token HTTP requests must carry."),
        .value("locator", "NAME", help: "default, nearest or nelder-mead.", default: "default"),
        .value("dialect", "NAME", help: "Also accept ESPresense (espresense) or Theengs/OpenMQTTGateway (theengs) nodes.", repeatable: true),
        .value("clock", "MODE", help: "node: trust node clocks, correcting large offsets; arrival: use arrival times.", default: "node"),
        .value("client-id", "ID", help: "MQTT client id.", default: "whereabouts-aggregator"),
        .flag("no-discovery", help: "Do not publish Home Assistant discovery."),
        .value("config", "FILE", help: "A YAML file with any of these options as keys (flags win)."),
    ],
    discussion: """
        The MQTT password comes from the site's mqtt.password_file or WHEREABOUTS_MQTT_PASSWORD, never a flag.
        One aggregator writes a database: a second one on the same --db exits 1 naming the first's pid
        (the first holds FILE.lock while it runs). SIGTERM and SIGINT stop cleanly; SIGHUP is logged and
        ignored (nothing is reloaded: restart to apply a change). Exit status: 0 after SIGTERM or SIGINT,
        1 when it cannot start, 64 on a usage error.
        """)

/// Options from `--config`, overridden by flags: the file's keys are the flags' names; a
/// repeatable option takes one value or a list, a flag `true` or `false`.
struct MergedOptions {
    var values: [String: [String]] = [:]
    func string(_ name: String) -> String? { values[name]?.last }
    func strings(_ name: String) -> [String] { values[name] ?? [] }
    func flag(_ name: String) -> Bool { values[name] == ["true"] }
}

func merged(_ args: Arguments) throws -> MergedOptions {
    var merged = MergedOptions()
    if let path = args.string("config") {
        let node: ConfigNode
        // A file that cannot be read is a failure (exit 1), as a missing --site; bad text in it a usage error.
        do { node = try YAML.parse(contentsOf: path) } catch {
            if error.isUnreadable { throw ReadFailure("\(path): \(error.message)") }
            throw UsageError("\(path):\(error.line): \(error.message)")
        }
        guard let entries = node.entries else { throw UsageError("\(path): expected a mapping of option names to values") }
        for entry in entries {
            guard let option = command.options.first(where: { $0.name == entry.key }), option.name != "config" else {
                throw UsageError("\(path):\(entry.keyLine): \(entry.key): unknown option")
            }
            merged.values[option.name] = try configValues(entry, of: option, in: path)
        }
    }
    for option in command.options where args.isSet(option.name) {
        merged.values[option.name] = option.isFlag ? ["true"] : option.repeatable ? args.strings(option.name) : args.string(option.name).map { [$0] }
    }
    for option in command.options where merged.values[option.name] == nil {
        if let value = option.defaultValue { merged.values[option.name] = [value] }
    }
    return merged
}

/// One key of `--config`: a scalar, or for a repeatable option a list of scalars; a flag's
/// value is `true` or `false` (read as given, so `false` turns nothing on).
func configValues(_ entry: ConfigNode.Entry, of option: Option, in path: String) throws -> [String] {
    let at = "\(path):\(entry.keyLine): \(entry.key)"
    if option.repeatable, let items = entry.value.items {
        return try items.map { item in
            guard let text = item.text else { throw UsageError("\(at): expected a list of single values") }
            return text
        }
    }
    guard let text = entry.value.text else {
        throw UsageError("\(at): expected a single value" + (option.repeatable ? " or a list" : ""))
    }
    guard option.isFlag else { return [text] }
    switch text {
    case "true": return ["true"]
    case "false": return ["false"]
    default: throw UsageError("\(at): expected true or false")
    }
}

func log(_ line: String) { printError("whereabouts-aggregator: \(line)") }

TerminationSignal.block()
// SIGHUP (a closed terminal, or an operator expecting a reload) killed the process uncleanly:
// no exits published, the will saying `offline`. A daemon keeps running; there is no reload
// (the site and options are read at start), so the signal is logged and otherwise ignored.
signal(SIGHUP, SIG_IGN)
let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "whereabouts.aggregator.hangup"))
hangup.setEventHandler { log("SIGHUP ignored: the site and options are read at start only; restart to apply a change") }
hangup.resume()
exit(runTool(command, arguments: Array(CommandLine.arguments.dropFirst())) { args in
    let options = try merged(args)
    guard let sitePath = options.string("site") else { throw UsageError("missing required option --site") }
    guard let locator = LocatorKind(rawValue: options.string("locator") ?? "default") else {
        throw UsageError("--locator must be one of \(LocatorKind.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    guard let clock = Ingest.ClockMode(rawValue: options.string("clock") ?? "node") else { throw UsageError("--clock must be node or arrival") }
    let dialects = try options.strings("dialect").map { name throws(UsageError) -> Dialect in
        guard let d = Dialect(rawValue: name) else { throw UsageError("unknown --dialect '\(name)' (espresense or theengs)") }
        return d
    }
    var broker: BrokerURL?
    if let url = options.string("broker") {
        do throws(MQTTError) { broker = try BrokerURL(parsing: url) } catch { throw UsageError("--broker: \(error.message)") }
    }

    let decoded = Site.load(path: sitePath)
    for problem in decoded.warnings { log("\(sitePath):\(problem)") }
    guard decoded.errors.isEmpty else {
        for problem in decoded.errors { printError("\(sitePath):\(problem)") }
        log("the site file has \(decoded.errors.count) error(s); not starting")
        return ExitCode.failure
    }
    let site = decoded.site
    var settings = AggregatorSettings(
        site: site,
        mqtt: AggregatorSettings.mqttOptions(site: site, broker: broker, clientID: options.string("client-id") ?? "whereabouts-aggregator"),
        database: options.string("db") == "none" ? nil : (options.string("db") ?? site.storage.path),
        http: options.string("http") == "none" ? nil : options.string("http"))
    settings.locator = locator
    settings.dialects = dialects
    settings.clockMode = clock
    settings.homeAssistant = !options.flag("no-discovery")
    settings.version = whereaboutsVersion
    settings.sitePath = sitePath
    if let tokenFile = options.string("http-token-file") {
        guard let token = try? String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
              !token.isEmpty else { log("cannot read a token from \(tokenFile)"); return ExitCode.failure }
        settings.httpToken = token
        settings.httpTokenFile = tokenFile
    }

    let service = AggregatorService(settings: settings, log: { log($0) })
    do {
        try service.start()
    } catch {
        log("cannot start: \(error)")
        return ExitCode.failure
    }
    log("running: site \(sitePath) (\(site.nodes.count) nodes, \(site.floors.count) floors), broker \(settings.mqtt.broker)"
        + (settings.database.map { ", database \($0)" } ?? ", no database") + (settings.http.map { ", http \($0)" } ?? ""))

    // SIGTERM and SIGINT stop cleanly: exits for open visits, `offline`, database flushed.
    TerminationSignal.wait()
    log("stopping")
    service.stop()
    log("stopped" + (settings.database.map { "; database at \($0)" } ?? ""))
    return ExitCode.success
})
