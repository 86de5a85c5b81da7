import Testing
@testable import Storage

@Suite struct TimeTests {
    static let now = 1_764_410_000.0  // 2025-11-29T09:53:20Z

    @Test(arguments: [
        ("2025-11-29T09:53:20Z", now),
        ("2025-11-29T09:53:20.250Z", now + 0.25),
        ("2025-11-29t09:53:20z", now),
        ("2025-11-29 09:53:20Z", now),
        ("2025-11-29T10:53:20+01:00", now),
        ("2025-11-29T04:23:20-0530", now),
        ("2025-11-29T11:53:20+02", now),
        ("2025-11-29T09:53Z", now - 20),
        ("2025-11-29", 1_764_374_400),
        ("1970-01-01T00:00:00Z", 0),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("1764410000", now),
        ("1764410000.125", now + 0.125),
        ("now", now),
        ("-2h", now - 7_200),
        ("-30m", now - 1_800),
        ("-7d", now - 604_800),
        ("-45s", now - 45),
        ("-1.5h", now - 5_400),
        ("+1w", now + 604_800),
    ] as [(String, Double)])
    func acceptedForms(text: String, expected: Double) throws {
        #expect(try TimeExpression.parse(text, now: Self.now) == expected)
    }

    @Test(arguments: ["", "yesterday", "2025-13-01", "2025-02-29", "2025-11-31T00:00:00Z", "2025-11-29T24:00:00Z",
                      "2025-11-29T10:00:00", "2025-11-29T10:00:00+1", "-2x", "-h", "1.2.3", "12:00"])
    func rejectedForms(text: String) {
        #expect(throws: TimeParseError.self) { try TimeExpression.parse(text, now: Self.now) }
    }

    @Test func aTimeWithoutAZoneSaysWhatIsMissing() {
        let error = #expect(throws: TimeParseError.self) { try TimeExpression.parse("2025-11-29T10:00:00", now: 0) }
        #expect(error?.description.contains("add Z") == true)
    }

    @Test func formatsAndParsesBack() throws {
        for t in [0, 0.001, Self.now + 0.25, 951_782_400 /* 2000-02-29 */, 4_102_444_799.999, -86_400.5] {
            let text = ISO8601.format(t)
            #expect(abs(try TimeExpression.parse(text, now: 0) - t) < 0.0005, "\(text)")
        }
        #expect(ISO8601.format(Self.now + 0.25) == "2025-11-29T09:53:20.250Z")
        #expect(ISO8601.format(-0.5) == "1969-12-31T23:59:59.500Z")
    }

    @Test(arguments: [("30d", 2_592_000.0), ("12h", 43_200), ("90m", 5_400), ("45s", 45), ("1w", 604_800), ("3600", 3_600)])
    func durations(text: String, seconds: Double) {
        #expect(TimeExpression.duration(text) == seconds)
    }

    @Test func badDurations() {
        #expect(TimeExpression.duration("30x") == nil)
        #expect(TimeExpression.duration("d") == nil)
        #expect(TimeExpression.duration("-5m") == nil)
    }
}
