import Foundation
import Testing

/// `check-site`, `calibrate --rooms` and `evaluate --rooms` on the SPHERE house
/// (Tests/Fixtures/sphere), a real site without a floor plan, as real processes.
@Suite(.serialized) struct TeachInCommandTests {
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/sphere")
    static var site: String { fixtures.appendingPathComponent("site.yaml").path }
    static func file(_ session: String, _ name: String) -> String { fixtures.appendingPathComponent("\(session)/\(name)").path }
    static func whereabouts(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try SurveyCommandTests.whereabouts(arguments)
    }

    @Test func checkSiteSaysWhatASiteWithoutAPlanCanDo() throws {
        let r = try Self.whereabouts(["check-site", Self.site])
        #expect(r.status == 0, "\(r.output)\(r.errors)")
        #expect(r.output.contains("no floor plan: rooms (9, 4 with a node in them)"), "\(r.output)")
        #expect(r.output.contains("state carries no x, y, z"), "\(r.output)")
        #expect(r.output.contains("room 'bed1' has no node in it"), "\(r.output)")
    }

    @Test(.timeLimit(.minutes(5)))
    func teachInWritesFingerprintsAndEvaluateScoresRoomsAndChanges() throws {
        let dir = try SurveyCommandTests.temporary("teachin")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cal = dir.appendingPathComponent("cal.yaml").path
        let taught = try Self.whereabouts(["calibrate", "--site", Self.site, "--survey", Self.file("00001", "READINGS.jsonl"),
                                           "--rooms", Self.file("00001", "ROOMS.csv"), "--out", cal])
        #expect(taught.status == 0, "\(taught.output)\(taught.errors)")
        #expect(taught.output.contains("fingerprints of 8 room(s)"), "\(taught.output)")
        #expect(taught.output.contains("heard nothing at teach-in, so not in the fingerprints: Study_AP"), "\(taught.output)")
        let text = try String(contentsOfFile: cal, encoding: .utf8)
        #expect(text.contains("fitted: rooms") && text.contains("fingerprints:") && text.contains("room: \"living\""))

        let scored = try Self.whereabouts(["evaluate", "--site", Self.site, "--calibration", cal, "--input", Self.file("00003", "READINGS.jsonl"),
                                           "--rooms", Self.file("00003", "ROOMS.csv"), "--format", "json"])
        #expect(scored.status == 0, "\(scored.output)\(scored.errors)")
        let line = try #require(scored.output.split(separator: "\n").first)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let rooms = try #require(o["rooms"] as? Double)
        let changes = try #require(o["room_changes"] as? Int), labelled = try #require(o["labelled_changes"] as? Int)
        // Taught on one recording, scored on another with the same receivers.
        #expect(rooms > 0.8, "\(o)")
        #expect(labelled > 10 && changes < 4 * labelled, "\(o)")
        #expect(scored.output.split(separator: "\n").count == 1, "one row without a floor plan: \(scored.output)")

        let truth = try Self.whereabouts(["evaluate", "--site", Self.site, "--input", Self.file("00003", "READINGS.jsonl"),
                                          "--truth", Self.file("00003", "ROOMS.csv")])
        #expect(truth.status == 64 && truth.errors.contains("has no floor plan"), "\(truth.errors)")
    }

    @Test(arguments: [
        ("t_start,t_end,place\n", 1, "expected the header t_start,t_end,room"),
        ("t_start,t_end,room\n1700000050,1700000100,living\n1700000090,1700000120,kitchen\n", 3, "goes back into the span before"),
        ("t_start,t_end,room\n1700000050,1700000100,garage\n", 2, "unknown room 'garage'"),
        ("t_start,t_end,room\n1700000050,soon,living\n", 2, "t_end 'soon' is not a number"),
        ("t_start,t_end,room\n1700000050,1700000100\n", 2, "expected 3 fields"),
    ])
    func aBadRoomsFileIsRefusedWithItsLine(_ text: String, _ line: Int, _ says: String) throws {
        let dir = try SurveyCommandTests.temporary("badrooms")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rooms = dir.appendingPathComponent("ROOMS.csv").path
        try text.write(toFile: rooms, atomically: true, encoding: .utf8)
        let r = try Self.whereabouts(["calibrate", "--site", Self.site, "--survey", Self.file("00005", "READINGS.jsonl"),
                                      "--rooms", rooms, "--out", dir.appendingPathComponent("cal.yaml").path])
        #expect(r.status == 1, "\(r.output)\(r.errors)")
        #expect(r.errors.contains("\(rooms):\(line): ") && r.errors.contains(says), "\(r.errors)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cal.yaml").path))
    }
}
