import Testing
import Wire
import TestSupport

private func decode(_ text: String) throws(PayloadError) -> (Batch, Int) {
    var bad = 0
    let batch = try Batch.decode(Array(text.utf8), badReadings: &bad)
    return (batch, bad)
}

private let specExample = """
{"v":1,"node":"kitchen","seq":1842,"t":1764410000.250,
 "readings":[{"id":"iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42",
              "mac":"c2:3a:6b:01:02:03","rssi":-67,"tx":-59,"t":1764410000.123,
              "kind":"ibeacon"}]}
"""

@Test func decodesTheSpecExample() throws {
    let (batch, bad) = try decode(specExample)
    #expect(bad == 0)
    #expect(batch == Batch(node: "kitchen", seq: 1842, t: 1764410000.250, readings: [
        Reading(id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42", mac: "c2:3a:6b:01:02:03",
                rssi: -67, tx: -59, t: 1764410000.123, kind: .ibeacon),
    ]))
}

@Test func encodeThenDecodeRoundTrips() throws {
    let batch = Batch(node: "hall \"2\"", seq: 7, t: 1764410001.5, readings: [
        Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -90, t: 1764410001.001, kind: .mac),
        Reading(id: "eddystone:0102-0a0b", mac: "aa:bb:cc:dd:ee:01", rssi: -40, tx: -20, t: 1764410001.25, kind: .eddystone),
    ])
    var w = JSONWriter()
    batch.encode(into: &w)
    let (back, bad) = try decode(w.string)
    #expect(bad == 0)
    #expect(back == batch)
}

@Test func unknownFieldsAreSkipped() throws {
    let text = #"{"extra":{"a":[1,2,{"b":null}]},"v":1,"node":"n","seq":0,"t":1.5,"readings":[{"id":"x","rssi":-1,"t":2,"kind":"mac","future":true}]}"#
    let (batch, bad) = try decode(text)
    #expect(bad == 0)
    #expect(batch.readings.count == 1)
}

@Test(arguments: [
    (#"{"id":"x","rssi":127,"t":2,"kind":"mac"}"#, "rssi 127 means not available"),
    (#"{"id":"x","rssi":-300,"t":2,"kind":"mac"}"#, "absurd rssi"),
    (#"{"id":"","rssi":-50,"t":2,"kind":"mac"}"#, "empty id"),
    (#"{"id":"x","rssi":-50,"t":2,"kind":"phone"}"#, "unknown kind"),
    (#"{"id":"x","rssi":-50,"kind":"mac"}"#, "no time"),
    (#"{"id":"x","rssi":"-50","t":2,"kind":"mac"}"#, "rssi as a string"),
    (#"{"id":"x","rssi":-50.5,"t":2,"kind":"mac"}"#, "fractional rssi"),
])
func aBadReadingIsCountedAndTheOthersKept(reading: String, why: String) throws {
    let text = #"{"v":1,"node":"n","seq":3,"t":1.5,"readings":[{"id":"good","rssi":-60,"t":2,"kind":"mac"},"# + reading + "]}"
    do {
        let (batch, bad) = try decode(text)
        #expect(batch.readings.map(\.id) == ["good"], "\(why)")
        #expect(bad == 1, "\(why)")
    } catch {
        // A wrong JSON type inside a reading makes the whole document malformed: also acceptable,
        // but then the reason must say so.
        #expect(error.reason == .malformed, "\(why)")
    }
}

@Test(arguments: [
    ("", RejectReason.malformed), ("{", .malformed), ("[]", .malformed), ("{\"v\":1}", .malformed),
    (#"{"v":2,"node":"n","seq":1,"t":1,"readings":[]}"#, .version),
    (#"{"v":1,"node":"n","seq":-1,"t":1,"readings":[]}"#, .malformed),
    (#"{"v":1,"node":"","seq":1,"t":1,"readings":[]}"#, .malformed),
    (#"{"v":1,"node":"n","seq":1,"t":1,"readings":[]} x"#, .malformed),
    (#"{"v":1,"node":"n","seq":1,"t":1,"readings":[}"#, .malformed),
    (#"{"v":1,"node":"n\u0","seq":1,"t":1,"readings":[]}"#, .malformed),
])
func malformedBatchesAreRefusedWithAReason(text: String, reason: RejectReason) {
    #expect { try decode(text) } throws: { ($0 as? PayloadError)?.reason == reason }
}

@Test func oversizedPayloadsAreRefused() {
    let big = [UInt8](repeating: UInt8(ascii: " "), count: Batch.maxPayloadBytes + 1)
    var bad = 0
    #expect { try Batch.decode(big, badReadings: &bad) } throws: { ($0 as? PayloadError)?.reason == .oversized }
}

@Test func escapedStringsDecode() throws {
    let (batch, _) = try decode(#"{"v":1,"node":"k\u00e4che\"n\/","seq":1,"t":1e0,"readings":[]}"#)
    #expect(batch.node == "käche\"n/")
    #expect(batch.t == 1)
}

/// Random mutations of a valid batch never crash the decoder (seeded, reproducible).
@Test func randomMutationsNeverCrash() {
    var random = SplitMix64(seed: 0x9E3779B97F4A7C15)
    func next() -> UInt64 { random.next() }
    let base = Array(specExample.utf8)
    var accepted = 0
    for _ in 0..<20_000 {
        var bytes = base
        for _ in 0..<(1 + Int(next() % 4)) {
            let i = Int(next() % UInt64(bytes.count))
            switch next() % 3 {
            case 0: bytes[i] = UInt8(truncatingIfNeeded: next())
            case 1: bytes.remove(at: i)
            default: bytes = Array(bytes[..<i])
            }
            if bytes.isEmpty { break }
        }
        var bad = 0
        if (try? Batch.decode(bytes, badReadings: &bad)) != nil { accepted += 1 }
    }
    #expect(accepted > 0 && accepted < 20_000)
}
