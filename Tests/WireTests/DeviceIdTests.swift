import Testing
@testable import Wire

/// Device ids are ASCII without control characters on every way in (batches by either
/// decoder, the dialects): the engine tells ids apart by their bytes, Swift's `String` by
/// canonical equivalence, and only for such ids do the two agree.
struct DeviceIdTests {
    /// The same word composed (U+00E9) and decomposed (e + U+0301): two byte strings, one `String`.
    static let composed = "caf\u{E9}", decomposed = "cafe\u{301}"

    @Test func theTwoSpellingsDifferInBytesButNotAsStrings() {
        #expect(Self.composed == Self.decomposed)
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
    }

    @Test(arguments: [("mac:aa:bb:cc:dd:ee:ff", true), ("name:Jane's phone", true), ("a", true), ("~", true),
                      ("", false), ("mac:\u{1}", false), ("tab\there", false), (composed, false), (decomposed, false),
                      (String(repeating: "a", count: Reading.maxIdBytes), true),
                      (String(repeating: "a", count: Reading.maxIdBytes + 1), false)])
    func anIdIsASCIIWithoutControlCharacters(id: String, valid: Bool) {
        #expect(Reading.isValidId(id) == valid)
    }

    /// A batch carrying the word both ways, raw and as `\u` escapes, next to a good reading:
    /// both decoders keep the good reading and the escaped ASCII one, and count the four others.
    @Test func batchesCountNonASCIIIdsAsBadReadings() throws {
        let items = ["\"mac:aa:bb:cc:dd:ee:ff\"", "\"\(Self.composed)\"", "\"\(Self.decomposed)\"",
                     "\"caf\\u00e9\"", "\"cafe\\u0301\"", "\"caf\\u0065\""]
            .map { "{\"id\":\($0),\"rssi\":-60,\"t\":1000.1,\"kind\":\"mac\"}" }
        let payload = Array("{\"v\":1,\"node\":\"w1\",\"seq\":1,\"t\":1000.5,\"readings\":[\(items.joined(separator: ","))]}".utf8)

        var bad = 0
        let batch = try Batch.decode(payload, badReadings: &bad)
        #expect(batch.readings.map(\.id) == ["mac:aa:bb:cc:dd:ee:ff", "cafe"])
        #expect(bad == 4)

        var raw: [BatchReading] = []
        var rawBad = 0
        _ = try payload.withUnsafeBytes { try Batch.decodeRaw($0, into: &raw, badReadings: &rawBad) }
        #expect(payload.withUnsafeBytes { p in raw.map { $0.id(in: p) } } == ["mac:aa:bb:cc:dd:ee:ff", "cafe"])
        #expect(rawBad == 4)
    }

    /// ESPresense takes the id from the payload or else the topic: either way a non-ASCII one
    /// is a bad reading, with the reason.
    @Test(arguments: [composed, decomposed])
    func dialectsRefuseNonASCIIIds(id: String) {
        let inPayload = Array("{\"id\":\"\(id)\",\"rssi\":-71}".utf8)
        let fromTopic = Array("{\"rssi\":-71}".utf8)
        for (topic, payload) in [("espresense/devices/x/office", inPayload), ("espresense/devices/\(id)/office", fromTopic)] {
            #expect { try Dialect.espresense.reading(topic: topic, payload: payload, arrival: 100) } throws: {
                guard let error = $0 as? PayloadError else { return false }
                return error.reason == .badReading && "\(error)".contains("ASCII")
            }
        }
    }
}
