import Testing
@testable import Positioning
import Wire

// Ids given as bytes (the aggregator's path) and as `String`s reach the same device.

struct EngineIdBytesTests {
    @Test func bytesAndStringsNameTheSameDevices() {
        let engine = Engine(site: twoRoomSite())
        var ids = (0..<5_000).map { "mac:02:00:00:00:\($0 / 256):\($0 % 256)" }
        ids.append("x")   // a small string
        for (i, id) in ids.enumerated() {
            #expect(engine.ingest(node: "w1", reading: Reading(id: id, rssi: -60, t: 1000, kind: .mac)))
            var copy = id
            let ok = copy.withUTF8 { engine.ingest(nodeIndex: 1, id: UnsafeRawBufferPointer($0), rssi: -61, tx: nil, t: 1000) }
            #expect(ok)
            #expect(engine.deviceCount == i + 1)
        }
        for d in 0..<engine.devices.count { #expect(engine.devices[d].links.count == 2) }
    }

    @Test func forgottenIdsAreFoundAgainAfterTheTableIsRebuilt() {
        let engine = Engine(site: twoRoomSite())
        engine.forgetAfter = 60
        var output: [EngineOutput] = []
        for i in 0..<3_000 {
            engine.ingest(node: "w1", reading: Reading(id: "old\(i)", rssi: -60, t: 1000, kind: .mac))
        }
        engine.advance(to: 1000, into: &output)
        engine.advance(to: 1100, into: &output)   // away
        engine.advance(to: 1101, into: &output)   // forgotten
        #expect(engine.deviceCount == 0)
        // Fresh ids take the old slots; the table is rebuilt on the way.
        for i in 0..<3_000 { engine.ingest(node: "w1", reading: Reading(id: "new\(i)", rssi: -60, t: 1101, kind: .mac)) }
        for i in 0..<3_000 { engine.ingest(node: "w2", reading: Reading(id: "new\(i)", rssi: -60, t: 1101.5, kind: .mac)) }
        #expect(engine.deviceCount == 3_000)
        #expect(engine.devices.count == 3_000)
        #expect(engine.devices.allSatisfy { $0.links.count == 2 })
    }
}

struct SipHashTests {
    /// The reference vector of the SipHash paper (appendix A): key 00…0f, message 00…0e.
    @Test func sipHash24MatchesThePaper() {
        let key = (UInt64(0x0706_0504_0302_0100), UInt64(0x0f0e_0d0c_0b0a_0908))
        let message = [UInt8](0..<15)
        let h = message.withUnsafeBytes { SipHash.hash($0, key: key, compressionRounds: 2, finalizationRounds: 4) }
        #expect(h == 0xa129_ca61_49be_45e5)
    }

    @Test func everyLengthAndEveryByteCounts() {
        let key = (UInt64(1), UInt64(2))
        var seen = Set<UInt64>()
        for n in 0..<40 {
            let a = [UInt8](repeating: 7, count: n)
            seen.insert(a.withUnsafeBytes { SipHash.hash($0, key: key, compressionRounds: 1, finalizationRounds: 3) })
            for i in 0..<n {
                var b = a
                b[i] = 8
                seen.insert(b.withUnsafeBytes { SipHash.hash($0, key: key, compressionRounds: 1, finalizationRounds: 3) })
            }
        }
        #expect(seen.count == 40 + (0..<40).reduce(0, +))
    }
}
