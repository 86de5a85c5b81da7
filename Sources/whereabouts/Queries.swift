import Options
import Storage

// history, visits, occupancy, devices: read-only queries over the aggregator's SQLite file,
// safe while the aggregator writes it (WAL readers see the last commit).

private let dbOption = Option.value("db", "FILE", help: "The aggregator's database (storage.path).")
private let timeHelp = "ISO 8601 with Z or an offset, a date, Unix seconds, now, or -2h / -30m / -7d."

private let historyCommand = Command(
    name: "whereabouts history", abstract: "a device's track points from the database",
    usage: ["whereabouts history --db FILE --device ID [--since T] [--until T] [--format csv|json|geojson]"],
    options: [dbOption,
              .value("device", "ID", help: "The device id (as in MQTT topics)."),
              .value("since", "T", help: "First time to show. " + timeHelp),
              .value("until", "T", help: "Last time to show. " + timeHelp),
              .value("format", "FORMAT", help: "csv, json or geojson.", default: "csv")])

private let visitsCommand = Command(
    name: "whereabouts visits", abstract: "zone visits from the database",
    usage: ["whereabouts visits --db FILE [--zone Z] [--device ID] [--since T] [--until T] [--format csv|json]"],
    options: [dbOption,
              .value("zone", "Z", help: "Only this zone."),
              .value("device", "ID", help: "Only this device."),
              .value("since", "T", help: "Visits still going at or after this time. " + timeHelp),
              .value("until", "T", help: "Visits entered by this time. " + timeHelp),
              .value("format", "FORMAT", help: "csv or json.", default: "csv")],
    discussion: "An open visit (no exit yet) has empty exit and dwell fields (null in JSON).")

private let occupancyCommand = Command(
    name: "whereabouts occupancy", abstract: "who was in each zone at a time",
    usage: ["whereabouts occupancy --db FILE --at T [--format csv|json]"],
    options: [dbOption,
              .value("at", "T", help: "The moment to look at. " + timeHelp, default: "now"),
              .value("format", "FORMAT", help: "csv or json.", default: "csv")],
    discussion: "Zones nobody was in are not listed: the database keeps visits, not the site's zones.")

private let devicesCommand = Command(
    name: "whereabouts devices", abstract: "devices the database knows",
    usage: ["whereabouts devices --db FILE [--format csv|json]"],
    options: [dbOption, .value("format", "FORMAT", help: "csv or json.", default: "csv")])

func runHistory(_ arguments: [String]) -> Int32 {
    runTool(historyCommand, arguments: arguments) { args in
        let db = try args.require("db"), device = try args.require("device")
        let format = try choice(ExportFormat.self, args, "format")
        let since = try time(args, "since"), until = try time(args, "until")
        let reader = try TrackReader(path: db)
        guard try reader.knows(device: device) else {
            printError("whereabouts history: no device '\(device)' in \(db) (see 'whereabouts devices --db \(db)')")
            return ExitCode.failure
        }
        var out = StandardOutput()
        var exporter = HistoryExporter(format: format, device: device) { out.write($0) }
        exporter.begin()
        try reader.history(device: device, since: since, until: until) { exporter.add($0) }
        exporter.end()
        out.flush()
        return ExitCode.success
    }
}

func runVisits(_ arguments: [String]) -> Int32 {
    runTool(visitsCommand, arguments: arguments) { args in
        let db = try args.require("db")
        let format = try choice(TableFormat.self, args, "format")
        let since = try time(args, "since"), until = try time(args, "until")
        let visits = try TrackReader(path: db).visits(zone: args.string("zone"), device: args.string("device"),
                                                      since: since, until: until)
        print(TableExport.visits(visits, format: format), terminator: "")
        return ExitCode.success
    }
}

func runOccupancy(_ arguments: [String]) -> Int32 {
    runTool(occupancyCommand, arguments: arguments) { args in
        let db = try args.require("db")
        let format = try choice(TableFormat.self, args, "format")
        let at = try time(args, "at") ?? wallClockNow()
        let zones = try TrackReader(path: db).occupancy(at: at)
        print(TableExport.occupancy(zones, at: at, format: format), terminator: "")
        return ExitCode.success
    }
}

func runDevices(_ arguments: [String]) -> Int32 {
    runTool(devicesCommand, arguments: arguments) { args in
        let db = try args.require("db")
        let format = try choice(TableFormat.self, args, "format")
        print(TableExport.devices(try TrackReader(path: db).devices(), format: format), terminator: "")
        return ExitCode.success
    }
}

/// A `--format`-style option that must name one case of `T`.
private func choice<T: RawRepresentable & CaseIterable>(_: T.Type, _ args: Arguments, _ name: String) throws(UsageError) -> T
where T.RawValue == String {
    let text = args.string(name) ?? ""
    guard let value = T(rawValue: text) else {
        throw UsageError("--\(name) expects one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
    }
    return value
}

/// A time option, parsed against the wall clock; usage error when malformed.
private func time(_ args: Arguments, _ name: String) throws(UsageError) -> Double? {
    guard let text = args.string(name) else { return nil }
    do {
        return try TimeExpression.parse(text, now: wallClockNow())
    } catch {
        throw UsageError("--\(name): \(error)")
    }
}

/// Gathers output into large writes: a long history prints in pieces of 64 KiB.
private struct StandardOutput {
    private var buffer = ""

    mutating func write(_ text: String) {
        buffer += text
        if buffer.utf8.count >= 65_536 { flush() }
    }

    mutating func flush() {
        print(buffer, terminator: "")
        buffer.removeAll(keepingCapacity: true)
    }
}
