import Foundation
import Options
import Positioning
import Wire

/// The readings input of `locate` and `calibrate`.
let inputOption = Opt<String>.required(
    "input", "READINGS.jsonl", help: "One batch (docs/protocol.md#batch) per line, or {\"topic\",\"payload\"} lines; '-' for standard input.")

struct LocateOptions {
    static let site = Opt<String>.required("site", "FILE", help: "The site file (YAML).")
    static let locator = Opt.choice("locator", help: "default, nearest or nelder-mead.", default: LocatorKind.default)
    static let acceleration = Opt<Double>.number("acceleration", "NOISE", help: "The tracker's process noise, (m/s²)²·s.",
                                                 in: 0...1e12, default: EngineOptions().acceleration)
    static let table = [site.option, calibrationOption.option, inputOption.option, locator.option, acceleration.option]
    let site: String, calibration: String?, input: String, locator: LocatorKind, acceleration: Double
    init(_ a: Arguments) throws(UsageError) {
        site = try a.get(Self.site); calibration = try a.get(calibrationOption); input = try a.get(inputOption)
        locator = try a.get(Self.locator); acceleration = try a.get(Self.acceleration)
    }
}

let locateCommand = Command(
    name: "whereabouts locate",
    abstract: "run the positioning engine offline over recorded readings",
    options: LocateOptions.table,
    discussion: """
        Writes one JSON line per position update {"t","id","x","y","z","floor","room","zones","confidence"}
        and one per room or zone event {"event":"enter"|"exit","device","zone","floor","t","confidence","dwell"}.
        The engine runs on the readings' own timestamps, so the output is the same on every run.
        At the end of the input every open visit is closed, as on a clean shutdown.
        """)

func runLocate(_ arguments: [String]) -> Int32 {
    runTool(locateCommand, arguments: arguments) { args in
        let o = try LocateOptions(args)
        var options = EngineOptions()
        options.acceleration = o.acceleration
        let site = try loadCalibratedSite(path: o.site, calibration: o.calibration)
        var run = LocateRun(engine: Engine(site: site, locator: o.locator, options: options))
        guard let badLines = readBatches(o.input, tool: "whereabouts locate", { run.take($0, node: $1) }) else { return ExitCode.failure }
        run.finish()
        let r = run.engine.rejections
        printError("whereabouts locate: \(run.engine.accepted) readings used; refused: \(r.unknownNode) from unknown nodes, "
            + "\(r.late) late, \(r.badRSSI) bad RSSI, \(r.excluded) excluded; \(badLines) bad lines")
        return ExitCode.success
    }
}

/// The longest line kept: a batch of the edge's largest `batch_max` (10,000 readings) is
/// under 2 MB, so a longer line is a broken file, skipped to its newline instead of held.
let batchLineLimit = 16 * 1024 * 1024

/// Hands each batch of `input` (a file, or '-' for standard input) to `body` with the node
/// that sent it; a bad line is reported and skipped. The count of bad lines, `nil` (reported)
/// when the input cannot be read.
func readBatches(_ input: String, tool: String, _ body: (Batch, String) -> Void) -> Int? {
    let fd = input == "-" ? 0 : open(input, O_RDONLY)
    guard fd >= 0 else {
        printError("\(tool): cannot read \(input): \(String(cString: strerror(errno)))")
        return nil
    }
    defer { if fd != 0 { close(fd) } }
    var badLines = 0, number = 0
    var reader = LineReader.descriptor(fd, limit: batchLineLimit)
    reader.forEach { line in
        number += 1
        do {
            guard case .text(let bytes) = line else { throw LineError.tooLong(limit: batchLineLimit) }
            if bytes.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) { return true }
            let (batch, topicNode) = try decodeLine(Array(bytes))
            body(batch, topicNode ?? batch.node)
        } catch {
            badLines += 1
            printError("\(tool): line \(number): \(error)")
        }
        return true
    }
    if let reason = reader.failureReason {
        printError("\(tool): reading \(input) failed after line \(number): \(reason)")
        return nil
    }
    return badLines
}

private enum LineError: Error, CustomStringConvertible {
    case tooLong(limit: Int)
    var description: String {
        switch self { case .tooLong(let limit): "longer than \(limit) bytes, skipped" }
    }
}

/// A batch line (docs/protocol.md#batch), or a `{"topic","payload"}` record whose topic names the node.
func decodeLine(_ bytes: [UInt8]) throws -> (Batch, String?) {
    var bad = 0
    if let batch = try? Batch.decode(bytes, badReadings: &bad) { return (batch, nil) }
    // Not a batch: a {"topic","payload"} record, else the batch decoder's own message (never
    // Foundation's, which names its error domain and code rather than the line's fault).
    guard let record = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
          let topic = record["topic"] as? String, let payload = record["payload"] else {
        return (try Batch.decode(bytes, badReadings: &bad), nil)
    }
    let payloadBytes: [UInt8]
    if let text = payload as? String {
        payloadBytes = Array(text.utf8)
    } else {
        payloadBytes = Array(try JSONSerialization.data(withJSONObject: payload))
    }
    let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
    var node: String?
    if levels.count >= 3, levels[levels.count - 3] == "nodes", levels[levels.count - 1] == "readings" {
        node = Topics.unescape(levels[levels.count - 2])
    }
    return (try Batch.decode(payloadBytes, badReadings: &bad), node)
}

/// Feeds batches to the engine on event time (`EventTimeRun`, as `evaluate` and the Lab) and prints what comes out.
struct LocateRun {
    private var run: EventTimeRun
    private var json = JSONWriter(capacity: 512)
    var engine: Engine { run.engine }

    init(engine: Engine) { run = EventTimeRun(engine: engine) }

    mutating func take(_ batch: Batch, node: String) {
        var json = self.json
        for reading in batch.readings { run.take(reading, node: node) { Self.write($0, &json) } }
        self.json = json
    }

    mutating func finish() {
        var json = self.json
        run.finish { Self.write($0, &json) }
        self.json = json
    }

    private static func write(_ item: EngineOutput, _ json: inout JSONWriter) {
        switch item {
        case .update(let u): write(u, &json)
        case .event(let e): write(e, &json)
        }
    }

    private static func write(_ u: DeviceUpdate, _ json: inout JSONWriter) {
        json.reset()
        json.objectStart()
        json.key("t"); json.time(u.t)
        json.field("id", u.id)
        json.field("x", u.x, decimals: 2); json.field("y", u.y, decimals: 2); json.field("z", u.z, decimals: 2)
        json.key("floor"); if let f = u.floor { json.value(f) } else { json.null() }
        json.key("room"); if let r = u.room { json.value(r) } else { json.null() }
        json.key("zones"); json.arrayStart(); for z in u.zones { json.value(z) }; json.arrayEnd()
        json.field("confidence", u.confidence, decimals: 2)
        json.objectEnd()
        print(json.string)
    }

    private static func write(_ e: ZoneEvent, _ json: inout JSONWriter) {
        json.reset()
        json.objectStart()
        json.field("event", e.type.rawValue)
        json.field("device", e.device)
        json.field("zone", e.zone)
        json.key("floor"); if let f = e.floor { json.value(f) } else { json.null() }
        json.key("t"); json.time(e.t)
        json.field("confidence", e.confidence, decimals: 2)
        if let dwell = e.dwell { json.field("dwell", dwell, decimals: 3) }
        json.objectEnd()
        print(json.string)
    }
}
