import Options
import Storage

// history, visits, occupancy, devices: read-only queries over the aggregator's SQLite file,
// safe while the aggregator writes it (WAL readers see the last commit).

/// The queries' options, each declared once; a command's table is the ones it takes.
private enum QueryOption {
    static let db = Opt<String>.required("db", "FILE", help: "The aggregator's database (storage.path).")
    static let timeHelp = "ISO 8601 with Z or an offset, a date, Unix seconds, now, or -2h / -30m / -7d."
    static let device = Opt<String>.required("device", "ID", help: "The device id (as in MQTT topics).")
    static let onlyDevice = Opt<String?>.text("device", "ID", help: "Only this device.")
    static let zone = Opt<String?>.text("zone", "Z", help: "Only this zone.")
    static let exportFormat = Opt.choice("format", help: "csv, json or geojson.", default: ExportFormat.csv)
    static let tableFormat = Opt.choice("format", help: "csv or json.", default: TableFormat.csv)

    /// A time option, parsed against the wall clock (nil when absent and without a default).
    static func time(_ name: String, help: String, default value: String? = nil) -> Opt<Double?> {
        Opt(.value(name, "T", help: help + " " + timeHelp, default: value)) { a throws(UsageError) in
            guard let text = a.string(name) else { return nil }
            do { return try TimeExpression.parse(text, now: wallClockNow()) } catch { throw UsageError("--\(name): \(error)") }
        }
    }
}

private struct HistoryOptions {
    static let since = QueryOption.time("since", help: "First time to show.")
    static let until = QueryOption.time("until", help: "Last time to show.")
    static let command = Command(
        name: "whereabouts history", abstract: "a device's track points from the database",
        options: [QueryOption.db.option, QueryOption.device.option, since.option, until.option, QueryOption.exportFormat.option])
    let db: String, device: String, since: Double?, until: Double?, format: ExportFormat
    init(_ a: Arguments) throws(UsageError) {
        db = try a.get(QueryOption.db); device = try a.get(QueryOption.device)
        since = try a.get(Self.since); until = try a.get(Self.until); format = try a.get(QueryOption.exportFormat)
    }
}

private struct VisitsOptions {
    static let since = QueryOption.time("since", help: "Visits still going at or after this time.")
    static let until = QueryOption.time("until", help: "Visits entered by this time.")
    static let command = Command(
        name: "whereabouts visits", abstract: "zone visits from the database",
        options: [QueryOption.db.option, QueryOption.zone.option, QueryOption.onlyDevice.option, since.option, until.option,
                  QueryOption.tableFormat.option],
        discussion: "An open visit (no exit yet) has empty exit and dwell fields (null in JSON).")
    let db: String, zone: String?, device: String?, since: Double?, until: Double?, format: TableFormat
    init(_ a: Arguments) throws(UsageError) {
        db = try a.get(QueryOption.db); zone = try a.get(QueryOption.zone); device = try a.get(QueryOption.onlyDevice)
        since = try a.get(Self.since); until = try a.get(Self.until); format = try a.get(QueryOption.tableFormat)
    }
}

private struct OccupancyOptions {
    static let at = QueryOption.time("at", help: "The moment to look at.", default: "now")
    static let command = Command(
        name: "whereabouts occupancy", abstract: "who was in each zone at a time",
        options: [QueryOption.db.option, at.option, QueryOption.tableFormat.option],
        discussion: "Zones nobody was in are not listed: the database keeps visits, not the site's zones.")
    let db: String, at: Double, format: TableFormat
    init(_ a: Arguments) throws(UsageError) {
        db = try a.get(QueryOption.db); at = try a.get(Self.at) ?? wallClockNow(); format = try a.get(QueryOption.tableFormat)
    }
}

private struct DevicesOptions {
    static let command = Command(name: "whereabouts devices", abstract: "devices the database knows",
                                 options: [QueryOption.db.option, QueryOption.tableFormat.option])
    let db: String, format: TableFormat
    init(_ a: Arguments) throws(UsageError) { db = try a.get(QueryOption.db); format = try a.get(QueryOption.tableFormat) }
}

func runHistory(_ arguments: [String]) -> Int32 {
    runTool(HistoryOptions.command, arguments: arguments) { args in
        let o = try HistoryOptions(args)
        let (db, device, format, since, until) = (o.db, o.device, o.format, o.since, o.until)
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
    runTool(VisitsOptions.command, arguments: arguments) { args in
        let o = try VisitsOptions(args)
        let visits = try TrackReader(path: o.db).visits(zone: o.zone, device: o.device, since: o.since, until: o.until)
        print(TableExport.visits(visits, format: o.format), terminator: "")
        return ExitCode.success
    }
}

func runOccupancy(_ arguments: [String]) -> Int32 {
    runTool(OccupancyOptions.command, arguments: arguments) { args in
        let o = try OccupancyOptions(args)
        let zones = try TrackReader(path: o.db).occupancy(at: o.at)
        print(TableExport.occupancy(zones, at: o.at, format: o.format), terminator: "")
        return ExitCode.success
    }
}

func runDevices(_ arguments: [String]) -> Int32 {
    runTool(DevicesOptions.command, arguments: arguments) { args in
        let o = try DevicesOptions(args)
        print(TableExport.devices(try TrackReader(path: o.db).devices(), format: o.format), terminator: "")
        return ExitCode.success
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
