import Foundation
import Testing
@testable import Storage

/// Self-calibration's table: what is saved is what is loaded, a save replaces the last one
/// whole, and a second connection (a restarted process) reads the same.
@Suite struct CalibrationStoreTests {
    @Test func savedRecordsLoadBackAndASaveReplacesTheLast() throws {
        let dir = TempDirectory()
        let path = dir.file("a.db")
        try Schema.prepare(path: path)
        let store = try CalibrationStore(path: path)
        #expect(try store.load().isEmpty)
        let first = [CalibrationRecord(kind: .node, name: "kitchen", value: -2.5, evidence: 3000),
                     CalibrationRecord(kind: .node, name: "hall", value: 2.5, evidence: 120),
                     CalibrationRecord(kind: .floor, name: "ground", value: 2.31, evidence: 9000),
                     CalibrationRecord(kind: .device, name: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42", value: -4),
                     CalibrationRecord(kind: .counter, name: "updates", value: 1234)]
        try store.save(first, at: 1_764_410_000)
        #expect(try CalibrationStore(path: path).load() == first.sorted { ($0.kind.rawValue, $0.name) < ($1.kind.rawValue, $1.name) })
        let second = [CalibrationRecord(kind: .node, name: "kitchen", value: -1, evidence: 3000),
                      CalibrationRecord(kind: .node, name: "bad", value: .nan, evidence: 1)]
        try store.save(second, at: 1_764_410_060)
        // Replaced whole; a value that is not a number is not stored.
        #expect(try CalibrationStore(path: path).load() == [second[0]])
    }
}
