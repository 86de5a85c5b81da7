import Aggregator
import Foundation
import MQTT
import Options
import Positioning
import Wire
import SiteModel
import YAML

/// The aggregator's options, each declared once: the table (help, usage, `--config` keys)
/// is made from these, and `init` reads each, typed, from the flags merged over `--config`.
struct AggregatorOptions {
    static let site = Opt<String>.required("site", "FILE", help: "The site file (YAML): floors, rooms, nodes, devices.")
    static let broker = Opt<BrokerURL?>(.value(
        "broker", "URL", help: "mqtt://host[:port] or mqtts://host[:port]; default: the site's mqtt section, else mqtt://localhost:1883.")) {
        a throws(UsageError) in
        guard let url = a.string("broker") else { return nil }
        do throws(MQTTError) { return try BrokerURL(parsing: url) } catch { throw UsageError("--broker: \(error.message)") }
    }
    static let db = Opt<String?>.text("db", "FILE|URL", help: "SQLite file or postgresql:// URL for tracks and visits ('none' to run without); default: the site's storage.path.")
    static let http = Opt<String>.text("http", "ADDR:PORT", help: "Serve /metrics, /healthz and /api here ('none' to serve nothing).", default: "127.0.0.1:9464")
    static let httpTokenFile = Opt<String?>.text("http-token-file", "FILE", help: "A file holding the bearer token HTTP requests must carry.")
    static let locator = Opt.choice("locator", help: "default, nearest or nelder-mead.", default: LocatorKind.default)
    static let dialects = Opt<[Dialect]>(.value(
        "dialect", "espresense|theengs", help: "Also accept ESPresense (espresense) or Theengs/OpenMQTTGateway (theengs) nodes.", repeatable: true)) {
        a throws(UsageError) in
        try a.strings("dialect").map { name throws(UsageError) -> Dialect in
            guard let d = Dialect(rawValue: name) else { throw UsageError("unknown --dialect '\(name)' (espresense or theengs)") }
            return d
        }
    }
    static let clock = Opt<Ingest.ClockMode>(.value(
        "clock", "node|arrival", help: "node: trust node clocks, correcting large offsets; arrival: use arrival times.", default: Ingest.ClockMode.node.rawValue)) {
        a throws(UsageError) in
        guard let mode = Ingest.ClockMode(rawValue: a.string("clock") ?? "") else { throw UsageError("--clock must be node or arrival") }
        return mode
    }
    static let shard = Opt<Shard?>(.value(
        "shard", "I/N", help: "Run as shard I of N: own the readings partitions k with k mod N = I (the site's partitions); default: the whole site.")) {
        a throws(UsageError) in
        guard let text = a.string("shard") else { return nil }
        do throws(ShardError) { return try Shard(parsing: text) } catch { throw UsageError("--shard \(error.message)") }
    }
    static let clientID = Opt<String>.text("client-id", "ID", help: "MQTT client id.", default: "whereabouts-aggregator")
    static let noDiscovery = Opt<Bool>.flag("no-discovery", help: "Do not publish Home Assistant discovery.")
    static let config = Opt<String?>.text("config", "FILE", help: "A YAML file with any of these options as keys (flags win).")
    static let calibration = Opt<String?>.text("calibration", "CAL.yaml", help: "A calibration `whereabouts calibrate --survey` wrote "
        + "(default: the site's calibration key): its absorption, rx_adj and tx_ref replace the site's.")
    static let table = [site.option, calibration.option, broker.option, db.option, http.option, httpTokenFile.option, locator.option,
                        dialects.option, clock.option, shard.option, clientID.option, noDiscovery.option, config.option]

    let site: String, calibration: String?, broker: BrokerURL?, db: String?, http: String, httpTokenFile: String?
    let locator: LocatorKind, dialects: [Dialect], clock: Ingest.ClockMode, noDiscovery: Bool, shard: Shard?
    var clientID: String

    init(_ a: Arguments) throws(UsageError) {
        site = try a.get(Self.site); calibration = try a.get(Self.calibration); broker = try a.get(Self.broker); db = try a.get(Self.db); http = try a.get(Self.http)
        httpTokenFile = try a.get(Self.httpTokenFile); locator = try a.get(Self.locator); dialects = try a.get(Self.dialects)
        clock = try a.get(Self.clock); clientID = try a.get(Self.clientID); noDiscovery = try a.get(Self.noDiscovery)
        shard = try a.get(Self.shard)
        // Two shards under one client id would take the broker connection from each other.
        if let shard, !a.isSet("client-id") { clientID += "-shard\(shard.index)" }
    }
}

let command = Command(
    name: "whereabouts-aggregator",
    abstract: "fuse readings from every node into positions, rooms and zone events",
    options: AggregatorOptions.table,
    discussion: """
        The MQTT password comes from the site's mqtt.password_file or WHEREABOUTS_MQTT_PASSWORD, never a flag.
        One aggregator writes a database: a second one on the same --db exits 1 naming the first's pid
        (the first holds FILE.lock while it runs). SIGTERM and SIGINT stop cleanly; SIGHUP is logged and
        ignored (nothing is reloaded: restart to apply a change). Exit status: 0 after SIGTERM or SIGINT,
        1 when it cannot start, 64 on a usage error.
        """)

/// Options from `--config`, overridden by flags: the file's keys are the flags' names; a
/// repeatable option takes one value or a list, a flag `true` or `false`.
func merged(_ args: Arguments) throws -> AggregatorOptions {
    var values: [String: [String]] = [:]
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
            values[option.name] = try configValues(entry, of: option, in: path)
        }
    }
    for option in command.options where args.isSet(option.name) {
        values[option.name] = option.isFlag ? ["true"] : option.repeatable ? args.strings(option.name) : args.string(option.name).map { [$0] }
    }
    // A flag the file turns off is not given; defaults come from the table.
    for option in command.options where option.isFlag && values[option.name] == ["false"] { values[option.name] = nil }
    return try AggregatorOptions(Arguments(command: command, values: values))
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
    let sitePath = options.site

    let decoded = CalibratedSite.load(sitePath: sitePath, calibration: options.calibration)
    for (path, problem) in decoded.problems where problem.severity == .warning { log("\(path):\(problem)") }
    guard decoded.errors.isEmpty else {
        for (path, problem) in decoded.errors { printError("\(path):\(problem)") }
        log("the site or calibration file has \(decoded.errors.count) error(s); not starting")
        return ExitCode.failure
    }
    if let applied = decoded.calibrationPath { log("calibration \(applied) applied: absorption \(decoded.site.positioning.absorption)") }
    let site = decoded.site
    let shard = options.shard ?? .whole
    do { try shard.check(Partitioning(count: site.partitions) ?? .single) } catch {
        printError("--shard \(shard): \(error) (\(sitePath): partitions)")
        log("--shard does not go together with the site file; not starting")
        return ExitCode.failure
    }
    let mqtt: MQTTOptions
    // The site's broker settings are checked as check-site and the edge check theirs; the
    // message names what is at fault: the site's key, or --broker against it.
    do { mqtt = try AggregatorSettings.mqttOptions(site: site, broker: options.broker, clientID: options.clientID) }
    catch let error as SiteBrokerConflict {
        let problem = error.problem(at: decoded.locations)
        if error.key == "--broker" {
            printError("--broker \(options.broker?.description ?? ""): \(error.message) (the site's mqtt.tls at \(sitePath):\(problem.line))")
            log("--broker does not go together with the site file's mqtt section; not starting")
        } else {
            printError("\(sitePath):\(problem)")
            log("the site file's mqtt section does not go together; not starting")
        }
        return ExitCode.failure
    }
    var settings = AggregatorSettings(
        site: site,
        mqtt: mqtt,
        database: options.db == "none" ? nil : (options.db ?? site.storage.path),
        http: options.http == "none" ? nil : options.http)
    settings.locator = options.locator
    settings.dialects = options.dialects
    settings.clockMode = options.clock
    // Discovery is the site's, published once: by shard 0.
    settings.homeAssistant = !options.noDiscovery && shard.index == 0
    settings.shard = shard
    settings.version = whereaboutsVersion
    settings.sitePath = sitePath
    if let tokenFile = options.httpTokenFile {
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
    let sharded: String = shard.isWhole ? "" : ", shard \(shard) of \(site.partitions) partitions"
    log("running: site \(sitePath) (\(site.nodes.count) nodes, \(site.floors.count) floors)" + sharded + ", broker \(settings.mqtt.broker)"
        + (settings.database.map { ", database \($0)" } ?? ", no database") + (settings.http.map { ", http \($0)" } ?? ""))

    // SIGTERM and SIGINT stop cleanly: exits for open visits, `offline`, database flushed.
    TerminationSignal.wait()
    log("stopping")
    service.stop()
    log("stopped" + (settings.database.map { "; database at \($0)" } ?? ""))
    return ExitCode.success
})
