import Foundation
import Testing
@testable import Storage

/// A write SQLite cannot store must not cost the writes around it. SQLite binds a NaN as NULL,
/// which every time, coordinate and confidence column refuses (NOT NULL): one such write in a
/// batch failed the whole transaction, again on every retry, and the queue behind it never
/// reached the disk — accepted data lost, storage reported failing for good.
@Suite struct InvalidWriteTests {
    @Test func aNaNAmongGoodWritesIsRefusedAndTheOthersAreStored() throws {
        let dir = TempDirectory()
        let path = dir.file("nan.db")
        let writer = TrackWriter(path: path, configuration: eagerConfiguration())
        let tracked = writer.device("c")
        writer.record(point("a", 100, x: 1))
        let refused = [
            writer.record(point("a", 101, x: .nan)),
            writer.record(TrackPoint(device: "a", t: 102, x: 1, y: 1, z: 1, floor: nil, room: nil, confidence: .nan)),
            writer.record(tracked, t: 102, x: 0, y: .nan, z: 0, floor: nil, room: "hall", confidence: 1),
            writer.openVisit(Visit(device: "a", zone: "kitchen", floor: nil, enter: .infinity)),
            writer.closeVisit(Visit(device: "a", zone: "kitchen", floor: nil, enter: 100), at: .nan),
            writer.recordHealth(NodeHealth(node: "n1", t: .nan, adverts: 1, dropped: 0, buffered: 0, online: true)),
        ]
        #expect(refused.allSatisfy { $0 == .invalid })
        writer.record(point("a", 103, x: 2))
        writer.record(tracked, t: 103, x: 0, y: 0, z: 0, floor: nil, room: "hall", confidence: 1)
        writer.openVisit(Visit(device: "a", zone: "kitchen", floor: nil, enter: 103))
        #expect(writer.flush(timeout: 5))
        #expect(writer.statistics.status == .ok)
        #expect(writer.statistics.invalid == UInt64(refused.count))
        #expect(writer.statistics.thinned == 0)
        #expect(try count("track_points", in: path) == 3)
        #expect(try count("visits", in: path) == 1)
        #expect(try count("node_health", in: path) == 0)
        writer.close()
    }

    /// "Wait as long as it takes" spelled as an infinite timeout waits; it used to trap
    /// converting the deadline to a timespec.
    @Test(.timeLimit(.minutes(1))) func anInfiniteTimeoutWaitsForTheCommit() throws {
        let dir = TempDirectory()
        let path = dir.file("forever.db")
        let writer = TrackWriter(path: path, configuration: eagerConfiguration())
        let ticket = try #require(writer.record(point("a", 100)).ticket)
        #expect(writer.waitUntilCommitted(ticket, timeout: .infinity))
        writer.record(point("a", 101, x: 1))
        #expect(writer.flush(timeout: .infinity))
        _ = writer.flush(timeout: .nan)  // no wait at all, and no trap
        #expect(try count("track_points", in: path) == 2)
        writer.close()
    }

    /// Times are only checked for being finite: a stored time past what a millisecond count
    /// holds (a node's clock gone wild) is written out as a number, not a crash of the export.
    @Test func anOutOfRangeTimeFormatsWithoutTrapping() {
        #expect(ISO8601.format(1e300) == "1e+300")
        #expect(ISO8601.format(-1e300) == "-1e+300")
        #expect(ISO8601.format(1_764_410_000.25) == "2025-11-29T09:53:20.250Z")
    }
}
