import Testing
import Wire

// Inputs the fuzzers of Tests/Fuzz found (tools/fuzz/run.sh), kept so they stay fixed.

/// fuzz target "batch": a reading timed 1e300 s decoded fine (a finite, positive time) and
/// then trapped the writer, which turned any number too large for the fixed form into an
/// Int64. The aggregator writes reading times into every state it publishes.
@Test(arguments: [1e300, -1e300, 9.3e18, -9.3e18, 5e15])
func theWriterWritesEveryFiniteNumberAsJSONItReadsBack(_ value: Double) throws {
    var w = JSONWriter()
    w.arrayStart(); w.time(value); w.value(value, decimals: 2); w.arrayEnd()
    var numbers: [Double] = []
    try w.bytes.withUnsafeBytes { raw in
        var s = JSONScanner(raw)
        try s.array { (s: inout JSONScanner) throws(JSONError) in numbers.append(try s.double()) }
    }
    #expect(numbers.count == 2)
    #expect(numbers.allSatisfy { abs($0 - value) <= abs(value) * 1e-12 + 0.001 }, "\(String(decoding: w.bytes, as: UTF8.self))")
}

@Test
func aBatchWithAnAbsurdlyLateReadingTimeEncodesWithoutTrapping() throws {
    let payload = #"{"v":1,"node":"n","seq":1,"t":1764410000.25,"readings":[{"id":"mac:c2:3a:6b:01:02:03","rssi":-60,"t":1e300,"kind":"mac"}]}"#
    var bad = 0
    let batch = try Batch.decode(Array(payload.utf8), badReadings: &bad)
    var w = JSONWriter()
    batch.encode(into: &w)
    let again = try Batch.decode(w.bytes, badReadings: &bad)
    let t = try #require(again.readings.first?.t)
    #expect(abs(t - 1e300) <= 1e288)
}

/// fuzz target "dialect": a node whose name starts with a combining mark (here U+07AC, a
/// Thaana vowel sign) published on a topic the aggregator did not recognise as a node topic,
/// since the mark joined the '/' before it into one character and `hasPrefix` missed.
@Test(arguments: ["\u{07AC}lee", "\u{0301}", "\u{065B}\u{FFFD}l/BTtoMQTT/A4C138BF6FAB", "kitchen"])
func aNodeTopicNamesItsNodeWhateverTheNameStartsWith(_ node: String) {
    let topics = Topics()
    #expect(topics.parseNodeTopic(topics.nodeReadings(node))?.node == node)
    #expect(topics.parseNodeTopic(topics.nodeStatus(node))?.leaf == "status")
}

/// fuzz target "batch": a batch timed `.0000001` s was accepted, but its own encoding (times
/// are written to the millisecond) says `0.000`, which decoding refuses. A time is now refused
/// unless it stays positive at that precision, in the header and in a reading, on both paths.
@Test(arguments: [(0.0000001, false), (0.0004, false), (0.0005, true), (0.001, true), (1764410000.25, true)])
func aTimeIsAcceptedOnlyIfItsEncodingIsToo(_ t: Double, accepted: Bool) throws {
    let header = #"{"v":1,"node":"n","seq":1,"t":\#(t),"readings":[]}"#
    var bad = 0
    let decodedHeader = try? Batch.decode(Array(header.utf8), badReadings: &bad)
    #expect((decodedHeader != nil) == accepted)
    if let batch = decodedHeader {
        var w = JSONWriter()
        batch.encode(into: &w)
        #expect((try? Batch.decode(w.bytes, badReadings: &bad)) != nil)
    }
    let reading = #"{"v":1,"node":"n","seq":1,"t":1764410000.25,"readings":[{"id":"mac:c2:3a:6b:01:02:03","rssi":-60,"t":\#(t),"kind":"mac"}]}"#
    bad = 0
    let batch = try Batch.decode(Array(reading.utf8), badReadings: &bad)
    #expect(batch.readings.count == (accepted ? 1 : 0) && bad == (accepted ? 0 : 1))
    var buffer: [BatchReading] = []
    let rawCount = try Array(reading.utf8).withUnsafeBytes { payload throws(PayloadError) in
        bad = 0
        _ = try Batch.decodeRaw(payload, into: &buffer, badReadings: &bad)
        return buffer.count
    }
    #expect(rawCount == (accepted ? 1 : 0) && bad == (accepted ? 0 : 1))
}
