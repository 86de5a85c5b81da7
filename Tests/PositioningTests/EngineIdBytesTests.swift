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
        for d in 0..<engine.devices.count { #expect(engine.linkCount(device: d) == 2) }
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
        #expect(engine.devices.indices.allSatisfy { engine.linkCount(device: $0) == 2 })
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

struct NHTests {
    static let key = (0..<UInt64(NH.keyWords)).map { $0 &* 0x9E37_79B9_7F4A_7C15 ^ 0x0123_4567_89ab_cdef }

    static func nh(_ bytes: [UInt8]) -> UInt64 {
        key.withUnsafeBufferPointer { key in bytes.withUnsafeBytes { NH.hash($0, key: key) } }
    }

    /// Every length up to the longest hashed, and every byte of each (the last ones too, which
    /// are read from the word that ends the id): no two of these messages collide.
    @Test func everyLengthAndEveryByteCounts() {
        var seen = Set<UInt64>()
        var messages = 0
        for n in 0...NH.maxBytes {
            let a = [UInt8](repeating: 7, count: n)
            seen.insert(Self.nh(a))
            messages += 1
            for i in 0..<n {
                var b = a
                b[i] = 8
                seen.insert(Self.nh(b))
                messages += 1
            }
        }
        #expect(seen.count == messages)
    }

    /// A trailing zero byte is a different id, and a different length.
    @Test func trailingZerosCount() {
        #expect(Self.nh([1, 2, 3]) != Self.nh([1, 2, 3, 0]))
        #expect(Self.nh([UInt8](repeating: 0, count: 8)) != Self.nh([UInt8](repeating: 0, count: 16)))
    }

    /// Ids longer than NH takes go through SipHash and are still found.
    @Test func longIdsAreFoundToo() {
        let engine = Engine(site: twoRoomSite())
        let ids = [String(repeating: "a", count: NH.maxBytes), String(repeating: "a", count: NH.maxBytes + 1), String(repeating: "b", count: 300)]
        for id in ids { #expect(engine.ingest(node: "w1", reading: Reading(id: id, rssi: -60, t: 1000, kind: .mac))) }
        for id in ids { #expect(engine.ingest(node: "w2", reading: Reading(id: id, rssi: -60, t: 1000, kind: .mac))) }
        #expect(engine.deviceCount == 3)
    }
}

struct HashIdsTests {
    /// `Engine.hashIds` gives each plain id `Engine.idHash` of its bytes (short ids through NH,
    /// those longer than `NH.maxBytes` through SipHash) and leaves escaped ids, which the
    /// engine resolves to a `String` first, as they were.
    @Test func aBatchsIdsHashAsEachIdAlone() throws {
        let plain = ["x", "mac:02:00:00:00:00:01", "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-1-2",
                     String(repeating: "a", count: NH.maxBytes), String(repeating: "b", count: NH.maxBytes + 1)]
        let items = plain.map { "{\"id\":\"\($0)\",\"rssi\":-60,\"t\":1000.1,\"kind\":\"mac\"}" }
            + ["{\"id\":\"caf\\u0065\",\"rssi\":-60,\"t\":1000.1,\"kind\":\"mac\"}"]
        let payload = Array("{\"v\":1,\"node\":\"w1\",\"seq\":1,\"t\":1000.5,\"readings\":[\(items.joined(separator: ","))]}".utf8)
        var readings: [BatchReading] = []
        var bad = 0
        _ = try payload.withUnsafeBytes { try Batch.decodeRaw($0, into: &readings, badReadings: &bad) }
        try #require(readings.count == plain.count + 1 && bad == 0)
        for i in readings.indices { readings[i].idHash = 7 }
        payload.withUnsafeBytes { p in readings.withUnsafeMutableBufferPointer { Engine.hashIds(of: $0, in: p) } }
        for (r, id) in zip(readings, plain) {
            #expect(r.idIsPlain)
            #expect(r.idHash == Array(id.utf8).withUnsafeBytes { Engine.idHash($0) }, "\(id)")
        }
        #expect(!readings[plain.count].idIsPlain && readings[plain.count].idHash == 7)
        #expect(Set(readings.prefix(plain.count).map(\.idHash)).count == plain.count)
    }
}

struct DeviceIdsTests {
    /// Ids whose hashes are all the same (as ids chosen to collide would be, were the key
    /// known) share one probe chain: each is still found by its bytes, and removing some
    /// leaves the others and makes room for new ones.
    @Test func collidingIdsAreToldApartByTheirBytes() {
        var table = DeviceIds()
        let ids = (0..<300).map { Array("mac:02:00:00:00:00:\($0)".utf8) }
        for (i, id) in ids.enumerated() { id.withUnsafeBytes { table.insert(Int32(i), id: $0, hash: 42) } }
        for (i, id) in ids.enumerated() { #expect(id.withUnsafeBytes { table.find($0, hash: 42) } == Int32(i)) }
        for id in ids[..<150] { id.withUnsafeBytes { table.remove($0, hash: 42) } }
        #expect(table.count == 150)
        for (i, id) in ids.enumerated() { #expect(id.withUnsafeBytes { table.find($0, hash: 42) } == (i < 150 ? nil : Int32(i))) }
        for (i, id) in ids[..<150].enumerated() { id.withUnsafeBytes { table.insert(Int32(1000 + i), id: $0, hash: 42) } }
        for (i, id) in ids.enumerated() { #expect(id.withUnsafeBytes { table.find($0, hash: 42) } == Int32(i < 150 ? 1000 + i : i)) }
    }

    /// A reading's device record is one cache line: a field added to `DeviceHot` that made it
    /// longer would silently put every record across two again.
    @Test func aDevicesHotRecordIsOneLine() {
        #expect(MemoryLayout<DeviceHot>.stride == 64)
    }

    /// Ids forgotten in an order that pads every other one to a line (33-byte ids, and a
    /// 1-byte id before each 64-byte one) leave the buffer within a bound of the live ids'
    /// bytes: counting only the removed ids' own bytes let it grow to 33 and 65 times them.
    @Test(arguments: [[33], [1, 64]])
    func churnKeepsTheIdBufferBounded(lengths: [Int]) {
        var table = DeviceIds()
        var live: [[UInt8]] = []
        var next = 0
        func id() -> [UInt8] {
            defer { next += 1 }
            let n = lengths[next % lengths.count], digits = Array(String(next).utf8)
            // One-byte ids: consecutive ones differ, and fewer than 256 are live at once.
            guard n > 1 else { return [UInt8(truncatingIfNeeded: next / lengths.count)] }
            return Array(repeating: UInt8(ascii: "x"), count: n - digits.count) + digits
        }
        for _ in 0..<200 { let k = id(); k.withUnsafeBytes { table.insert(Int32(next), id: $0, hash: DeviceIds.hash($0)) }; live.append(k) }
        var largest = 0
        for _ in 0..<50_000 {
            let gone = live.removeFirst()
            gone.withUnsafeBytes { table.remove($0, hash: DeviceIds.hash($0)) }
            let k = id(); k.withUnsafeBytes { table.insert(Int32(next), id: $0, hash: DeviceIds.hash($0)) }; live.append(k)
            largest = max(largest, table.storedBytes)
        }
        let liveBytes = live.reduce(0) { $0 + $1.count }
        #expect(table.count == 200)
        #expect(largest <= 4 * liveBytes + 4096 + 256, "largest \(largest) for \(liveBytes) live bytes")
        for (i, k) in live.enumerated().suffix(3) { #expect(k.withUnsafeBytes { table.find($0, hash: DeviceIds.hash($0)) } != nil, "\(i)") }
    }

    /// Ids of up to 64 bytes are each kept within one cache line, through the block's growth,
    /// and read back as they were given; longer ones follow straight on.
    @Test func idsOfALineOrLessCrossNoLine() {
        let bytes = LineAlignedBytes()
        var kept: [(start: Int, id: [UInt8])] = []
        for i in 0..<2_000 {
            let id = Array("iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-\(i)".utf8) + (i % 97 == 0 ? Array(repeating: 7, count: 70) : [])
            kept.append((id.withUnsafeBytes { bytes.append($0) }, id))
        }
        bytes.withBytes { all in
            let base = Int(bitPattern: all.baseAddress)
            #expect(base % 64 == 0)
            for (start, id) in kept {
                #expect(Array(all[start..<start + id.count]) == id)
                if id.count <= 64 { #expect((start % 64) + id.count <= 64, "\(start) \(id.count)") }
            }
        }
    }
}

struct EngineBatchTests {
    /// A batch through `ingest(nodeIndex:batch:ids:hashed:rejected:)` does what its readings
    /// one at a time do: the same devices and links, the same refusals in order, the same
    /// samples in every link. `hashed`: the aggregator's path, plain ids hashed beforehand (as
    /// `PreparedBatch` does on the network thread).
    @Test(arguments: [false, true]) func aBatchIsItsReadingsOneAtATime(hashed: Bool) throws {
        var site = twoRoomSite()
        site.excludeDevices = ["mac:ff:*"]
        let payload = Array("""
        {"v":1,"node":"w1","seq":1,"t":1000.5,"readings":[\
        {"id":"mac:02:00:00:00:00:01","rssi":-60,"t":1000.1,"kind":"mac"},\
        {"id":"mac:02:00:00:00:00:02","rssi":-61,"tx":-59,"t":1000.2,"kind":"mac"},\
        {"id":"mac:ff:00:00:00:00:03","rssi":-62,"t":1000.2,"kind":"mac"},\
        {"id":"mac:02:00:00:00:00:01","rssi":0,"t":1000.3,"kind":"mac"},\
        {"id":"caf\\u0065","rssi":-63,"t":1000.3,"kind":"mac"},\
        {"id":"mac:02:00:00:00:00:01","rssi":-64,"t":900,"kind":"mac"},\
        {"id":"mac:02:00:00:00:00:02","rssi":-65,"t":1000.4,"kind":"mac"}]}
        """.utf8)
        var readings: [BatchReading] = []
        var bad = 0
        _ = try payload.withUnsafeBytes { try Batch.decodeRaw($0, into: &readings, badReadings: &bad) }
        #expect(readings.count == 7 && bad == 0)
        if hashed {
            payload.withUnsafeBytes { p in readings.withUnsafeMutableBufferPointer { Engine.hashIds(of: $0, in: p) } }
        }

        let one = Engine(site: site), batch = Engine(site: site)
        var output: [EngineOutput] = []
        for engine in [one, batch] { engine.advance(to: 1000, into: &output) }   // 900 is late
        var expected: [Rejection] = []
        for r in readings {
            let ok = payload.withUnsafeBytes { one.ingest(nodeIndex: 0, reading: r.reading(in: $0)) }
            if !ok { expected.append(try #require(one.lastRejection)) }
        }
        var refused: [Rejection] = []
        let result = payload.withUnsafeBytes { ids in
            batch.ingest(nodeIndex: 0, batch: readings, ids: ids, hashed: hashed) { refused.append($0) }
        }
        #expect(refused == expected)
        #expect(refused == [.excluded, .badRSSI, .late])
        #expect(result.accepted == 4 && result.newest == 1000.4)
        #expect(batch.rejections == one.rejections && batch.accepted == one.accepted)
        #expect(batch.devices.map(\.id) == one.devices.map(\.id))
        #expect(batch.devices.indices.map { batch.hot[$0].lastReading } == one.devices.indices.map { one.hot[$0].lastReading })
        #expect(batch.devices.indices.map { batch.hot[$0].frameTxRef } == one.devices.indices.map { one.hot[$0].frameTxRef })
        #expect(batch.devices.indices.map { batch.links(ofDevice: $0).map(\.link) } == one.devices.indices.map { one.links(ofDevice: $0).map(\.link) })
        let links = one.devices.indices.flatMap { one.links(ofDevice: $0).map(\.link) }
        #expect(links.count == 3)   // 01, 02 and the escaped id
        for link in links {
            let a = batch.links.smoothed(link: link, at: 1000.5, window: 3), b = one.links.smoothed(link: link, at: 1000.5, window: 3)
            #expect(a?.rssi == b?.rssi && a?.samples == b?.samples && a != nil, "link \(link)")
        }
    }
}
