import Testing
import Wire
import TestSupport

// `Batch.decodeRaw` (the aggregator's path, no allocation per reading) must agree with
// `Batch.decode` on every payload: the same refusals and reasons, the same bad-reading
// counts, the same readings (less the address, which the raw path does not keep).

private enum Outcome: Equatable {
    case refused(RejectReason)
    case decoded(node: String, seq: UInt64, t: Double, readings: [Reading], bad: Int)
}

private func viaDecode(_ bytes: [UInt8]) -> Outcome {
    var bad = 0
    do {
        let b = try Batch.decode(bytes, badReadings: &bad)
        return .decoded(node: b.node, seq: b.seq, t: b.t,
                        readings: b.readings.map { Reading(id: $0.id, rssi: $0.rssi, tx: $0.tx, t: $0.t, kind: $0.kind) }, bad: bad)
    } catch {
        return .refused(error.reason)
    }
}

private func viaRaw(_ bytes: [UInt8], buffer: inout [BatchReading]) -> Outcome {
    bytes.withUnsafeBytes { payload in
        var bad = 0
        do throws(PayloadError) {
            let h = try Batch.decodeRaw(payload, into: &buffer, badReadings: &bad)
            return .decoded(node: h.node, seq: h.seq, t: h.t, readings: buffer.map { $0.reading(in: payload) }, bad: bad)
        } catch {
            return .refused(error.reason)
        }
    }
}

private let cases: [String] = [
    #"{"v":1,"node":"kitchen","seq":1842,"t":1764410000.250,"readings":[{"id":"iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42","mac":"c2:3a:6b:01:02:03","rssi":-67,"tx":-59,"t":1764410000.123,"kind":"ibeacon"}]}"#,
    #"{"v":1,"node":"n","seq":3,"t":1.5,"readings":[{"id":"good","rssi":-60,"t":2,"kind":"mac"},{"id":"","rssi":-50,"t":2,"kind":"mac"},{"id":"x","rssi":127,"t":2,"kind":"mac"},{"id":"x","rssi":-50,"t":2,"kind":"phone"},{"id":"x","rssi":-50,"kind":"mac"},{"id":"x","rssi":-50,"t":2,"kind":"mac","tx":30}]}"#,
    // Escapes and non-ASCII in ids and addresses.
    #"{"v":1,"node":"n","seq":1,"t":9,"readings":[{"id":"mac:a\/b","rssi":-50,"t":2,"kind":"mac"},{"id":"k\u00e4se","mac":"a\"b","rssi":-51,"t":2,"kind":"irk"},{"id":"käse","rssi":-52,"t":3,"kind":"mac"}]}"#,
    #"{"v":1,"node":"n","seq":1,"t":9,"readings":[{"id":"\u","rssi":-50,"t":2,"kind":"mac"}]}"#,
    #"{"v":1,"node":"n","seq":1,"t":9,"readings":[{"id":"x","mac":"\q","rssi":-50,"t":2,"kind":"mac"}]}"#,
    #"{"v":1,"node":"n","seq":1,"t":9,"readings":[{"id":"x","mac":5,"rssi":-50,"t":2,"kind":"mac"}]}"#,
    #"{"v":1,"node":"n","seq":1,"t":9,"readings":[{"id":"\u0000","rssi":-50,"t":2,"kind":"mac"}]}"#,
    // Duplicate keys: the last wins, in readings and in the batch.
    #"{"v":1,"node":"n","seq":1,"t":9,"readings":[{"id":"a","id":"b","rssi":-50,"rssi":-60,"t":2,"kind":"mac","tx":null}]}"#,
    #"{"v":1,"node":"n","seq":1,"t":9,"readings":[{"id":"a","rssi":-50,"t":2,"kind":"mac"}],"readings":[{"id":"b","rssi":-50,"t":2,"kind":"mac"}]}"#,
    #"{"v":1,"node":"n","seq":1,"t":9,"readings":[{"id":"\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4","rssi":-50,"t":2,"kind":"mac"}]}"#,
    "", "{", "[]", #"{"v":2,"node":"n","seq":1,"t":1,"readings":[]}"#, #"{"v":1,"node":"n","seq":1,"t":1,"readings":[]} x"#,
    #"{"v":1,"node":"","seq":1,"t":1,"readings":[]}"#, #"{"v":1,"node":"n","seq":-1,"t":1,"readings":[]}"#,
]

@Test(arguments: cases)
func rawDecodingAgreesWithDecode(text: String) {
    var buffer: [BatchReading] = []
    let bytes = Array(text.utf8)
    #expect(viaRaw(bytes, buffer: &buffer) == viaDecode(bytes), "\(text)")
}

@Test func longIdsAreRefusedAlikeByBothPaths() {
    for length in [199, 200, 201] {
        let id = String(repeating: "a", count: length)
        let bytes = Array(#"{"v":1,"node":"n","seq":1,"t":9,"readings":[{"id":"\#(id)","rssi":-50,"t":2,"kind":"mac"}]}"#.utf8)
        var buffer: [BatchReading] = []
        #expect(viaRaw(bytes, buffer: &buffer) == viaDecode(bytes), "\(length)")
    }
}

@Test func tooManyReadingsAreOversizedByBothPaths() {
    let one = #"{"id":"a","rssi":-50,"t":2,"kind":"mac"}"#
    let text = #"{"v":1,"node":"n","seq":1,"t":9,"readings":["# + Array(repeating: one, count: Batch.maxReadings + 1).joined(separator: ",") + "]}"
    var buffer: [BatchReading] = []
    #expect(viaRaw(Array(text.utf8), buffer: &buffer) == .refused(.oversized))
    #expect(viaDecode(Array(text.utf8)) == .refused(.oversized))
}

/// Seeded random mutations of batches: both paths agree on every one.
@Test func rawDecodingAgreesUnderRandomMutations() {
    var random = SplitMix64(seed: 0x5EED_CAFE)
    func next() -> UInt64 { random.next() }
    var buffer: [BatchReading] = []
    let bases = cases.prefix(3).map { Array($0.utf8) }
    var decoded = 0
    for round in 0..<20_000 {
        var bytes = bases[round % bases.count]
        for _ in 0..<(1 + Int(next() % 3)) {
            let i = Int(next() % UInt64(bytes.count))
            switch next() % 4 {
            case 0: bytes[i] = UInt8(truncatingIfNeeded: next())
            case 1: bytes.remove(at: i)
            case 2: bytes.insert([UInt8(ascii: "\\"), UInt8(ascii: "\""), 0xC3, UInt8(ascii: "u"), UInt8(ascii: ",")][Int(next() % 5)], at: i)
            default: bytes[i] = [UInt8(ascii: "0"), UInt8(ascii: "-"), UInt8(ascii: "\\"), UInt8(ascii: "\"")][Int(next() % 4)]
            }
        }
        let expected = viaDecode(bytes)
        if case .decoded = expected { decoded += 1 }
        #expect(viaRaw(bytes, buffer: &buffer) == expected, "\(String(decoding: bytes, as: UTF8.self))")
    }
    #expect(decoded > 1_000)
}
