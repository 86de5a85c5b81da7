import Foundation
import Testing
@testable import Storage

/// The `whereabouts` binary built beside this test bundle (or in `$WHEREABOUTS_BIN`, as `make test` sets).
private let whereabouts: String = {
    if let dir = ProcessInfo.processInfo.environment["WHEREABOUTS_BIN"] { return dir + "/whereabouts" }
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var dir = testBinary.deletingLastPathComponent()
    // The bundle may be a directory (`….xctest/…`); walk up to the build products.
    while dir.path.contains(".xctest") { dir = dir.deletingLastPathComponent() }
    return dir.appendingPathComponent("whereabouts").path
}()

@Suite(.serialized) struct CLITests {
    let dir = TempDirectory("cli")
    let path: String

    init() throws {
        path = dir.file("cli.db")
        var configuration = eagerConfiguration()
        configuration.deviceNames = ["keys": "Keys"]
        let writer = TrackWriter(path: path, configuration: configuration)
        for i in 0..<5 {
            writer.record(TrackPoint(device: "keys", t: 1_764_410_000 + Double(i), x: Double(i), y: 1, z: 0,
                                     floor: "ground", room: i < 3 ? "kitchen" : "hall", confidence: 0.9))
        }
        let visit = Visit(device: "keys", zone: "kitchen", floor: "ground", enter: 1_764_410_000)
        writer.openVisit(visit)
        writer.closeVisit(visit, at: 1_764_410_003)
        writer.openVisit(Visit(device: "keys", zone: "hall", floor: "ground", enter: 1_764_410_003))
        #expect(writer.flush())
        writer.close()
    }

    private func cli(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try #require(FileManager.default.isExecutableFile(atPath: whereabouts), "build whereabouts first: \(whereabouts)")
        return try run(whereabouts, arguments)
    }

    @Test func historyInEachFormat() throws {
        let csv = try cli(["history", "--db", path, "--device", "keys", "--since", "2025-11-29T09:53:21Z",
                           "--until", "1764410003"])
        #expect(csv.status == 0)
        #expect(csv.out.split(separator: "\n").count == 4)  // header and t+1…t+3
        #expect(csv.out.hasPrefix("device,t,time,x,y,z,floor,room,confidence\nkeys,1764410001.000,2025-11-29T09:53:21.000Z,1,1,0,ground,kitchen,0.9\n"))

        let json = try cli(["history", "--db", path, "--device", "keys", "--format", "json"])
        #expect(json.status == 0)
        let points = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]]
        #expect(points?.count == 5)

        let geo = try cli(["history", "--db", path, "--device", "keys", "--format=geojson"])
        #expect(geo.status == 0)
        let collection = try JSONSerialization.jsonObject(with: Data(geo.out.utf8)) as? [String: Any]
        #expect((collection?["features"] as? [Any])?.count == 6)  // five points and one line
    }

    @Test func visitsOccupancyAndDevices() throws {
        let visits = try cli(["visits", "--db", path, "--zone", "hall", "--format", "json"])
        #expect(visits.status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(visits.out.utf8)) as? [[String: Any]]
        #expect(rows?.count == 1 && rows?.first?["exit"] is NSNull)

        let occupancy = try cli(["occupancy", "--db", path, "--at", "2025-11-29T10:53:21+01:00"])
        #expect(occupancy.status == 0)
        #expect(occupancy.out == "zone,device\nkitchen,keys\n")

        let devices = try cli(["devices", "--db", path])
        #expect(devices.status == 0)
        #expect(devices.out.contains("keys,Keys,1764410000.000,1764410004.000,ground,hall,5"))
    }

    @Test(arguments: [
        ["history", "--db", "X", "--device", "keys", "--format", "xml"],
        ["history", "--device", "keys"],
        ["history", "--db", "X"],
        ["history", "--db", "X", "--device", "keys", "--since", "last tuesday"],
        ["visits", "--db", "X", "--format", "geojson"],
        ["occupancy", "--db", "X", "--at", "2025-11-29T10:00:00"],
        ["devices", "--db", "X", "--bogus"],
    ])
    func usageErrorsExit64(arguments: [String]) throws {
        let result = try cli(arguments.map { $0 == "X" ? path : $0 })
        #expect(result.status == 64, "\(arguments): \(result.err)")
        #expect(!result.err.isEmpty)
    }

    @Test func missingForeignOrUnknownExit1() throws {
        let missing = try cli(["devices", "--db", dir.file("nope.db")])
        #expect(missing.status == 1)
        #expect(missing.err.contains("unable to open"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("nope.db")))  // a query never creates one

        let junk = dir.file("junk.db")
        try Data(repeating: 0x41, count: 8_192).write(to: URL(fileURLWithPath: junk))
        let corrupt = try cli(["visits", "--db", junk])
        #expect(corrupt.status == 1)
        #expect(corrupt.err.contains("not a database"))

        let unknown = try cli(["history", "--db", path, "--device", "ghost"])
        #expect(unknown.status == 1)
        #expect(unknown.err.contains("no device 'ghost'"))
    }

    @Test func helpListsTheOptions() throws {
        let help = try cli(["history", "--help"])
        #expect(help.status == 0)
        #expect(help.out.contains("--since T") && help.out.contains("geojson"))
    }
}
