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
