import Foundation
import Options
import Positioning
import SiteModel
import Wire

/// `--locator` of `evaluate`: one of the engine's, or all of them.
enum EvaluateLocator: String, CaseIterable, Sendable {
    case all
    case `default`
    case nearest
    case nelderMead = "nelder-mead"

    var kinds: [LocatorKind] {
        switch self {
        case .all: LocatorKind.allCases
        case .default: [.default]
        case .nearest: [.nearest]
        case .nelderMead: [.nelderMead]
        }
    }
}

enum EvaluateFormat: String, CaseIterable, Sendable { case text, json }

struct EvaluateOptions {
    static let site = Opt<String>.required("site", "FILE", help: "The site file (YAML).")
    static let truth = Opt<String?>.text("truth", "TRUTH.csv", help: "Where the device was: header t,x,y[,z][,floor], Unix seconds, metres.")
    static let rooms = Opt<String?>.text("rooms", "ROOMS.csv", help: "Which room it was in: header t_start,t_end,room.")
    static let locator = Opt.choice("locator", help: "all, default, nearest or nelder-mead.", default: EvaluateLocator.all)
    static let format = Opt.choice("format", help: "text (a table) or json (one object per locator a line).", default: EvaluateFormat.text)
    static let device = Opt<String?>.text("device", "ID", help: "The device the truth is of (default: the only device located).")
    static let table = [site.option, calibrationOption.option, inputOption.option, truth.option, rooms.option, locator.option,
                        format.option, device.option, maxGapOption.option]
    let site: String, calibration: String?, input: String, truth: String?, rooms: String?
    let locator: EvaluateLocator, format: EvaluateFormat, device: String?, maxGap: Double
    init(_ a: Arguments) throws(UsageError) {
        site = try a.get(Self.site); calibration = try a.get(calibrationOption); input = try a.get(inputOption)
        truth = try a.get(Self.truth); rooms = try a.get(Self.rooms); locator = try a.get(Self.locator)
        format = try a.get(Self.format); device = try a.get(Self.device); maxGap = try a.get(maxGapOption)
        guard truth != nil || rooms != nil else { throw UsageError("give --truth TRUTH.csv, --rooms ROOMS.csv or both: what to score against") }
    }
}

let evaluateCommand = Command(
    name: "whereabouts evaluate",
    abstract: "measure each locator's accuracy on recorded readings against where the device really was",
    options: EvaluateOptions.table,
    discussion: """
        Runs the engine exactly as `whereabouts locate` does (same site, calibration, ticks) with each
        locator, and scores every position update of the device: its 2-D error against the truth
        interpolated at the update's time (updates outside the truth's spans are not scored: see
        --max-gap), and with --rooms the share of updates naming the right room and the room
        changes between consecutive scored updates beside the labelled ones. Prints median, p90
        and p95 (m) per locator; --format json prints one object a line,
        {"locator","updates","median","p90","p95"} and with --rooms "rooms" (fraction right),
        "room_changes" and "labelled_changes". A site without a floor plan has no positions: it
        takes --rooms only and prints one row (no locator runs).
        Exits 1 when no update can be scored.
        """)

/// One locator's score (Positioning's, which the Lab's real-data rows use too).
typealias EvaluateScore = EvaluationScore

func runEvaluate(_ arguments: [String]) -> Int32 {
    runTool(evaluateCommand, arguments: arguments) { args in
        let o = try EvaluateOptions(args)
        let tool = "whereabouts evaluate"
        let site = try loadCalibratedSite(path: o.site, calibration: o.calibration)
        if !site.hasFloorPlan && o.truth != nil {
            throw UsageError("\(o.site) has no floor plan, so no positions to score against --truth: score rooms with --rooms ROOMS.csv")
        }
        let truth = try o.truth.map { try readTruth($0, site: site, maxGap: o.maxGap) }
        let rooms = try o.rooms.map { try readRooms($0, site: site) }
        guard let (readings, badLines) = readAllReadings(o.input, tool: tool) else { return ExitCode.failure }
        if badLines > 0 { printError("\(tool): \(badLines) bad lines skipped") }
        var scores: [EvaluateScore] = []
        // Without a floor plan no locator runs: one row, the engine's rooms.
        for kind in site.hasFloorPlan ? o.locator.kinds : [.default] {
            switch evaluate(readings, site: site, locator: kind, truth: truth, rooms: rooms, device: o.device) {
            case .success(let score): scores.append(score)
            case .failure(.whichDevice(let ids)):
                printError("\(tool): \(ids.count) devices were located (\(ids.prefix(5).joined(separator: ", "))): name the one the truth is of with --device")
                return ExitCode.failure
            }
        }
        guard scores.contains(where: { !$0.errors.isEmpty || $0.roomChecks > 0 }) else {
            printError("\(tool): no position update falls in a span of the truth or rooms: nothing to score")
            return ExitCode.failure
        }
        print(o.format == .json ? scores.map(jsonLine).joined(separator: "\n") : scoreTable(scores, rooms: rooms != nil))
        return ExitCode.success
    }
}

private func jsonLine(_ s: EvaluateScore) -> String {
    var json = JSONWriter(capacity: 160)
    json.objectStart()
    json.field("locator", s.locator.rawValue)
    json.key("updates"); json.value(s.errors.isEmpty ? s.roomChecks : s.errors.count)
    for (name, q) in [("median", 0.5), ("p90", 0.9), ("p95", 0.95)] {
        json.key(name)
        if let v = s.quantile(q) { json.value(v, decimals: 3) } else { json.null() }
    }
    if let r = s.rooms {
        json.field("rooms", r, decimals: 4)
        json.field("room_changes", s.roomChanges)
        json.field("labelled_changes", s.labelledChanges)
    }
    json.objectEnd()
    return json.string
}

private func scoreTable(_ scores: [EvaluateScore], rooms: Bool) -> String {
    func m(_ v: Double?) -> String { v.map { String(format: "%.2f", $0) } ?? "-" }
    var lines = [["locator", "updates", "median m", "p90 m", "p95 m"] + (rooms ? ["rooms", "changes", "labelled"] : [])]
    for s in scores {
        lines.append([s.locator.rawValue, "\(s.errors.isEmpty ? s.roomChecks : s.errors.count)", m(s.quantile(0.5)), m(s.quantile(0.9)), m(s.quantile(0.95))]
            + (rooms ? [s.rooms.map { String(format: "%.1f %%", $0 * 100) } ?? "-", "\(s.roomChanges)", "\(s.labelledChanges)"] : []))
    }
    return lines.map { $0.map { $0.padding(13) }.joined() }.joined(separator: "\n")
}
