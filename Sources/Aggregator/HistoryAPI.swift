import HTTP
import Storage
import Wire

/// Tracks and visits from the database for the map's playback: `/api/track`, `/api/visits`
/// and `/api/history/devices`, the data `whereabouts history|visits|devices` print.
///
/// Each request opens the database read-only (WAL: a consistent snapshot beside the writer)
/// on its own connection thread. A range is `since` and `until`, each a time as the command
/// line takes it (ISO 8601, Unix seconds, `now`, `-2h`); at most `maxSpan` long and
/// `maxPoints` points, so that no request can make the server build an unbounded answer.
enum HistoryAPI {
    static let maxSpan = 31 * 86_400.0
    static let maxPoints = 200_000
    static let maxIdLength = 512

    typealias Answer = Result<HTTPResponse, Refusal>

    /// A request answered with a 4xx (or 500) and its reason.
    struct Refusal: Error {
        let status: Int, message: String
        var response: HTTPResponse { HTTPResponse(status: status, text: message + "\n") }
    }

    static func answer(_ body: () throws(Refusal) -> HTTPResponse) -> HTTPResponse {
        do { return try body() } catch { return error.response }
    }

    /// `/api/track?device=ID&since=T&until=T&format=json|geojson`: one device's points, or every
    /// device's without `device` (JSON only). JSON is `history --format json`'s array of
    /// `{"device","t","x","y","z","floor","room","confidence"}`; GeoJSON its FeatureCollection.
    static func track(_ query: [String: String], database: String?, now: Double) -> HTTPResponse {
        answer { () throws(Refusal) in
            let (since, until) = try range(query, now: now)
            let format = query["format"] ?? "json"
            guard format == "json" || format == "geojson" else { throw Refusal(status: 400, message: "format must be json or geojson") }
            let reader = try open(database)
            let device = try deviceArgument(query)
            if format == "geojson" {
                guard let device else { throw Refusal(status: 400, message: "geojson takes one device: add device=ID") }
                return try geojson(reader, device: device, since: since, until: until)
            }
            let ids: [String]
            if let device {
                guard try storage({ try reader.knows(device: device) }) else { throw unknown(device) }
                ids = [device]
            } else {
                ids = try storage { try reader.devices().map(\.id) }
            }
            var w = JSONWriter(capacity: 64 * 1024)
            var count = 0
            w.arrayStart()
            for id in ids {
                try storage {
                    try reader.history(device: id, since: since, until: until) { p in
                        count += 1
                        guard count <= maxPoints else { throw tooMany }
                        point(p, into: &w)
                    }
                }
            }
            w.arrayEnd()
            return HTTPResponse(contentType: "application/json", body: w.bytes)
        }
    }

    /// `/api/visits?device=ID&zone=Z&since=T&until=T`: `visits --format json`'s rows.
    static func visits(_ query: [String: String], database: String?, now: Double) -> HTTPResponse {
        answer { () throws(Refusal) in
            let (since, until) = try range(query, now: now)
            let reader = try open(database)
            let device = try deviceArgument(query)
            if let device, try !storage({ try reader.knows(device: device) }) { throw unknown(device) }
            let visits = try storage { try reader.visits(zone: query["zone"], device: device, since: since, until: until) }
            guard visits.count <= maxPoints else { throw tooMany }
            return HTTPResponse(contentType: "application/json", text: TableExport.visits(visits, format: .json))
        }
    }

    /// `/api/history/devices`: every stored device with where it was last seen.
    static func devices(database: String?) -> HTTPResponse {
        answer { () throws(Refusal) in
            let reader = try open(database)
            let devices = try storage { try reader.devices() }
            return HTTPResponse(contentType: "application/json", text: TableExport.devices(devices, format: .json))
        }
    }

    private static func geojson(_ reader: TrackReader, device: String, since: Double, until: Double) throws(Refusal) -> HTTPResponse {
        guard try storage({ try reader.knows(device: device) }) else { throw unknown(device) }
        var text = ""
        var count = 0
        var exporter = HistoryExporter(format: .geojson, device: device) { text += $0 }
        exporter.begin()
        try storage {
            try reader.history(device: device, since: since, until: until) { p in
                count += 1
                guard count <= maxPoints else { throw tooMany }
                exporter.add(p)
            }
        }
        exporter.end()
        return HTTPResponse(contentType: "application/geo+json", text: text)
    }

    private static func point(_ p: TrackPoint, into w: inout JSONWriter) {
        w.objectStart()
        w.field("device", p.device)
        w.key("t"); w.time(p.t)
        w.field("x", p.x, decimals: 2); w.field("y", p.y, decimals: 2); w.field("z", p.z, decimals: 2)
        w.key("floor"); if let f = p.floor { w.value(f) } else { w.null() }
        w.key("room"); if let r = p.room { w.value(r) } else { w.null() }
        w.field("confidence", p.confidence, decimals: 2)
        w.objectEnd()
    }

    /// `since` (default an hour ago) and `until` (default now), checked.
    static func range(_ query: [String: String], now: Double) throws(Refusal) -> (Double, Double) {
        func time(_ name: String, _ fallback: Double) throws(Refusal) -> Double {
            guard let text = query[name] else { return fallback }
            do { return try TimeExpression.parse(text, now: now) } catch {
                throw Refusal(status: 400, message: "\(name): \(error.description)")
            }
        }
        let since = try time("since", now - 3600), until = try time("until", now)
        guard since <= until else { throw Refusal(status: 400, message: "since is after until") }
        guard until - since <= maxSpan else { throw Refusal(status: 413, message: "the range is longer than 31 days: narrow it") }
        return (since, until)
    }

    private static func deviceArgument(_ query: [String: String]) throws(Refusal) -> String? {
        guard let id = query["device"], !id.isEmpty else { return nil }
        guard id.utf8.count <= maxIdLength else { throw Refusal(status: 400, message: "device id longer than \(maxIdLength) bytes") }
        return id
    }

    private static func open(_ database: String?) throws(Refusal) -> TrackReader {
        guard let database else { throw Refusal(status: 404, message: "no database: the aggregator runs without one (--db none)") }
        return try storage { try TrackReader(path: database) }
    }

    private static func unknown(_ device: String) -> Refusal { Refusal(status: 404, message: "unknown device: no track stored for it") }

    private static let tooMany = Refusal(status: 413, message: "more than \(maxPoints) points: narrow the range or pick a device")

    /// A storage call; a refusal thrown inside passes through, a database error is a 500.
    private static func storage<T>(_ body: () throws -> T) throws(Refusal) -> T {
        do { return try body() } catch let refusal as Refusal { throw refusal } catch {
            throw Refusal(status: 500, message: "database: \(error)")
        }
    }
}
