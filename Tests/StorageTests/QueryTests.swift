import Foundation
import Testing
@testable import Storage

/// A small site's afternoon, written through the writer as the aggregator would.
private func filledStore() throws -> (TempDirectory, String) {
    let dir = TempDirectory("query")
    let path = dir.file("q.db")
    var configuration = eagerConfiguration()
    configuration.deviceNames = ["keys": "Keys, spare"]
    let writer = TrackWriter(path: path, configuration: configuration)
    writer.record(TrackPoint(device: "keys", t: 1_000, x: 1, y: 2, z: 0.5, floor: "ground", room: "kitchen", confidence: 0.9))
    writer.record(TrackPoint(device: "keys", t: 1_001.5, x: 1.25, y: 2, z: 0.5, floor: "ground", room: "kitchen", confidence: 0.85))
    writer.record(TrackPoint(device: "keys", t: 1_003, x: 4.5, y: 2.125, z: 0.5, floor: "ground", room: "hall", confidence: 0.7))
    writer.record(TrackPoint(device: "keys", t: 1_010, x: 4, y: 1, z: 3.2, floor: "first", room: nil, confidence: 0.5))
    writer.record(TrackPoint(device: "phone", t: 1_002, x: -1, y: 0, z: 1, floor: "ground", room: "hall", confidence: 1))
    let kitchen = Visit(device: "keys", zone: "kitchen", floor: "ground", enter: 1_000)
    writer.openVisit(kitchen)
    writer.closeVisit(kitchen, at: 1_003)
    writer.openVisit(Visit(device: "keys", zone: "hall", floor: "ground", enter: 1_003))
    writer.openVisit(Visit(device: "phone", zone: "hall", floor: "ground", enter: 1_002))
    #expect(writer.flush())
    writer.close()
    return (dir, path)
}

private func export(_ path: String, _ format: ExportFormat, since: Double? = nil, until: Double? = nil) throws -> String {
    var text = ""
    var exporter = HistoryExporter(format: format, device: "keys") { text += $0 }
    exporter.begin()
    try TrackReader(path: path).history(device: "keys", since: since, until: until) { exporter.add($0) }
    exporter.end()
    return text
}

private func json(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

@Suite struct QueryTests {
    @Test func historyAsCSV() throws {
        let (dir, path) = try filledStore()
        _ = dir
        let lines = try export(path, .csv, since: 1_001, until: 1_003).split(separator: "\n")
        #expect(lines == [
            "device,t,time,x,y,z,floor,room,confidence",
            "keys,1001.500,1970-01-01T00:16:41.500Z,1.25,2,0.5,ground,kitchen,0.85",
            "keys,1003.000,1970-01-01T00:16:43.000Z,4.5,2.125,0.5,ground,hall,0.7",
        ])
    }

    @Test func historyAsJSON() throws {
        let (dir, path) = try filledStore()
        _ = dir
        let points = try #require(try json(try export(path, .json)) as? [[String: Any]])
        #expect(points.count == 4)
        #expect(points.map { $0["t"] as? Double } == [1_000, 1_001.5, 1_003, 1_010])
        #expect(points[2]["room"] as? String == "hall")
        #expect(points[3]["room"] is NSNull)
        #expect(points[3]["z"] as? Double == 3.2)
        #expect(try json(try export(path, .json, since: 5_000)) as? [Any] != nil)  // empty is still an array
    }

    @Test func historyAsGeoJSON() throws {
        let (dir, path) = try filledStore()
        _ = dir
        let collection = try #require(try json(try export(path, .geojson)) as? [String: Any])
        #expect(collection["type"] as? String == "FeatureCollection")
        let features = try #require(collection["features"] as? [[String: Any]])
        let geometries = features.compactMap { $0["geometry"] as? [String: Any] }
        #expect(geometries.map { $0["type"] as? String } == ["Point", "Point", "Point", "Point", "LineString"])
        // One line for the three points on the ground floor; the lone first-floor point has none.
        let line = try #require(geometries.last?["coordinates"] as? [[Double]])
        #expect(line == [[1, 2, 0.5], [1.25, 2, 0.5], [4.5, 2.125, 0.5]])
        let lineProperties = try #require(features.last?["properties"] as? [String: Any])
        #expect(lineProperties["floor"] as? String == "ground")
        #expect(lineProperties["to"] as? Double == 1_003)
        let first = try #require(features.first?["properties"] as? [String: Any])
        #expect(first["time"] as? String == "1970-01-01T00:16:40.000Z")
    }

    @Test func visitsFilteredAndFormatted() throws {
        let (dir, path) = try filledStore()
        _ = dir
        let reader = try TrackReader(path: path)
        #expect(try reader.visits().count == 3)
        #expect(try reader.visits(zone: "hall").map(\.device) == ["phone", "keys"])
        #expect(try reader.visits(device: "keys").map(\.zone) == ["kitchen", "hall"])
        #expect(try reader.visits(since: 1_003.5).map(\.zone) == ["hall", "hall"])  // kitchen ended before
        #expect(try reader.visits(until: 1_001).map(\.zone) == ["kitchen"])
        let csv = TableExport.visits(try reader.visits(device: "keys"), format: .csv).split(separator: "\n")
        #expect(csv == [
            "device,zone,floor,enter,enter_time,exit,exit_time,dwell",
            "keys,kitchen,ground,1000.000,1970-01-01T00:16:40.000Z,1003.000,1970-01-01T00:16:43.000Z,3",
            "keys,hall,ground,1003.000,1970-01-01T00:16:43.000Z,,,",
        ])
        let rows = try #require(try json(TableExport.visits(try reader.visits(), format: .json)) as? [[String: Any]])
        #expect(rows.count == 3)
        #expect(rows.filter { $0["exit"] is NSNull }.count == 2)
        #expect(rows.first { $0["zone"] as? String == "kitchen" }?["dwell"] as? Double == 3)
    }

    @Test func occupancyAtAMoment() throws {
        let (dir, path) = try filledStore()
        _ = dir
        let reader = try TrackReader(path: path)
        #expect(try reader.occupancy(at: 999).isEmpty)
        #expect(try reader.occupancy(at: 1_001) == [ZoneOccupancy(zone: "kitchen", devices: ["keys"])])
        #expect(try reader.occupancy(at: 1_002) == [ZoneOccupancy(zone: "hall", devices: ["phone"]),
                                                    ZoneOccupancy(zone: "kitchen", devices: ["keys"])])
        // At the exit instant the device has left the kitchen and entered the hall.
        let atSwap = try reader.occupancy(at: 1_003)
        #expect(atSwap == [ZoneOccupancy(zone: "hall", devices: ["keys", "phone"])])
        #expect(TableExport.occupancy(atSwap, at: 1_003, format: .csv) == "zone,device\nhall,keys\nhall,phone\n")
        let object = try #require(try json(TableExport.occupancy(atSwap, at: 1_003, format: .json)) as? [String: Any])
        let zones = try #require(object["zones"] as? [[String: Any]])
        #expect(zones.first?["count"] as? Int == 2)
        #expect(object["t"] as? Double == 1_003)
    }

    @Test func devicesWithTheirLastPlace() throws {
        let (dir, path) = try filledStore()
        _ = dir
        let devices = try TrackReader(path: path).devices()
        #expect(devices.map(\.id) == ["keys", "phone"])
        #expect(devices[0].name == "Keys, spare")
        #expect(devices[0].lastFloor == "first" && devices[0].lastRoom == nil)
        #expect(devices[0].trackPoints == 4 && devices[0].lastSeen == 1_010)
        let csv = TableExport.devices(devices, format: .csv).split(separator: "\n")
        #expect(csv[1] == "keys,\"Keys, spare\",1000.000,1010.000,first,,4")
        let rows = try #require(try json(TableExport.devices(devices, format: .json)) as? [[String: Any]])
        #expect(rows[1]["last_room"] as? String == "hall")
    }

    @Test func foreignAndMissingFilesAreRefused() throws {
        let dir = TempDirectory()
        #expect(throws: DatabaseError.self) { try TrackReader(path: dir.file("missing.db")) }
        let junk = dir.file("junk.db")
        try Data(repeating: 0x42, count: 4_096).write(to: URL(fileURLWithPath: junk))
        let notSQLite = #expect(throws: DatabaseError.self) { try TrackReader(path: junk) }
        #expect(notSQLite?.kind == .corrupt)
        let empty = dir.file("empty.db")
        _ = try Connection(path: empty)
        #expect(throws: DatabaseError.self) { try TrackReader(path: empty) }
    }

    @Test func textEncodersEscape() {
        #expect(TextFormat.csv("a,b") == "\"a,b\"")
        #expect(TextFormat.csv("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(TextFormat.json("a\"b\\c\n\u{01}é") == "\"a\\\"b\\\\c\\n\\u0001é\"")
        #expect(TextFormat.fixed(-0.0004, decimals: 3, trim: true) == "0")
        #expect(TextFormat.fixed(-1.2345, decimals: 3, trim: true) == "-1.235")
        #expect(TextFormat.time(12) == "12.000")
    }
}
