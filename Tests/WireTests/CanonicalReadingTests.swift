import Testing
@testable import Wire
import TestSupport

// `BatchReading.canonical` (the fast path for readings as edges write them) against
// `BatchReading.decode` (the general path, key by key) on one reading at a time: wherever the
// fast path takes a reading it must give exactly what the general path gives (every field, and
// the offset where the reading ends); where it declines, the general path decides. Readings as
// `Reading.encode` writes them must take the fast path, so that it is what these tests check.

private enum Path: Equatable {
    case declined
    case decoded(BatchReading, end: Int)
}

/// The fast path on `text` followed by `tail` (what comes after a reading in a batch).
private func fast(_ bytes: [UInt8]) -> Path {
    bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress, let (r, end) = BatchReading.canonical(base, 0, raw.count) else { return .declined }
        return .decoded(r, end: end)
    }
}

/// The general path: nil reading for a bad one, "malformed" for a JSON error.
private enum General: Equatable {
    case malformed
    case bad
    case decoded(BatchReading, end: Int)
}

private func general(_ bytes: [UInt8]) -> General {
    bytes.withUnsafeBytes { raw in
        var s = JSONScanner(raw)
        do throws(JSONError) {
            guard let r = try BatchReading.decode(&s) else { return .bad }
            return .decoded(r, end: s.offset)
        } catch {
            return .malformed
        }
    }
}

/// Checks one reading: the fast path agrees with the general one when it decodes. Returns
/// whether the fast path took it.
@discardableResult
private func check(_ text: String, tail: String = #",{"id":"next","rssi":-1,"t":1,"kind":"mac"}]}"#,
                   sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
    check(Array((text + tail).utf8), sourceLocation: sourceLocation)
}

@discardableResult
private func check(_ bytes: [UInt8], sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
    let f = fast(bytes)
    guard case .decoded(let r, let end) = f else { return false }
    #expect(general(bytes) == .decoded(r, end: end), "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
    return true
}

private func encoded(_ r: Reading) -> String {
    var w = JSONWriter()
    r.encode(into: &w)
    return String(decoding: w.bytes, as: UTF8.self)
}

@Test func canonicalWordsAreTheirText() {
    func word(_ text: String) -> UInt64 {
        text.utf8.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }
    #expect(CanonicalWords.openId == word(#"{"id":""#))
    #expect(CanonicalWords.mac == word(#","mac":""#))
    #expect(CanonicalWords.rssi == word(#","rssi":"#))
    #expect(CanonicalWords.tx == word(#","tx":"#))
    #expect(CanonicalWords.t == word(#","t":"#))
    #expect(CanonicalWords.kind == word(#","kind":"#))
    #expect(CanonicalWords.ibeacon == word(#"ibeacon""#))
}

@Test func readingsAsEdgesWriteThemTakeTheFastPathAndAgree() {
    var random = SplitMix64(seed: 7)
    var taken = 0, total = 0
    for n in 0..<4_000 {
        let idLength = 1 + Int(random.next() % 200)
        let alphabet = Array("abcdefABCDEF0123456789:-_./ ~!".utf8)
        let id = String(decoding: (0..<idLength).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
        let mac = random.next() % 3 == 0 ? nil : String(decoding: (0..<Int(random.next() % 24)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
        let rssi = -127 + Int(random.next() % 148)
        let tx = random.next() % 3 == 0 ? nil : -127 + Int(random.next() % 148)
        // Times as edges write them (milliseconds), and others: small, whole, long fractions.
        let t: Double
        switch n % 5 {
        case 0: t = 1_764_410_000 + Double(random.next() % 100_000_000) / 1000
        case 1: t = Double(1 + random.next() % 1000)
        case 2: t = Double(random.next() % 1_000_000_000) / 1_000_000 + 0.001
        case 3: t = 0.001 * Double(1 + random.next() % 5)
        default: t = 4_102_444_800 + Double(random.next() % 1000) / 1000
        }
        let kind = ReadingKind.allCases[Int(random.next() % UInt64(ReadingKind.allCases.count))]
        let text = encoded(Reading(id: id, mac: mac, rssi: rssi, tx: tx, t: t, kind: kind))
        total += 1
        if check(text) { taken += 1 }
        // The same reading at the very end of the buffer (no tail): declined or agreeing.
        check(text, tail: "")
        check(text, tail: "]")
    }
    #expect(taken == total)
}

@Test func fastPathAgreesOnVariedReadings() {
    let taken = [
        #"{"id":"a","rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id":"iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42","mac":"c2:3a:6b:01:02:03","rssi":-67,"tx":-59,"t":1764410000.123,"kind":"ibeacon"}"#,
        #"{"id":"x","rssi":20,"tx":20,"t":1764410000.1,"kind":"irk"}"#,
        #"{"id":"x","rssi":-127,"tx":-127,"t":0.5,"kind":"altbeacon"}"#,
        #"{"id":"x","rssi":0,"tx":-0,"t":1764410000.000,"kind":"eddystone"}"#,
        #"{"id":"x","rssi":-0,"t":007.50,"kind":"mac"}"#,
        #"{"id":"x","mac":"","rssi":-5,"t":1234567890123456789,"kind":"mac"}"#,
        #"{"id":"x","rssi":-5,"t":1.234567890123456789,"kind":"mac"}"#,
        #"{"id":"x","rssi":-5,"t":123456789.0123456789,"kind":"mac"}"#,
        #"{"id":"x","rssi":-5,"t":17644100001,"kind":"ibeacon"}"#,
        // Two-digit negative numbers (read in one check) at their ends, and with zeros.
        #"{"id":"x","rssi":-99,"tx":-10,"t":2,"kind":"mac"}"#,
        #"{"id":"x","rssi":-00,"tx":-05,"t":2,"kind":"mac"}"#,
    ]
    for text in taken { #expect(check(text), "\(text)") }
    let declined = [
        // Key orders, whitespace, other keys, null, escapes, non-ASCII.
        #"{"rssi":-50,"id":"a","t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"kind":"mac","t":2}"#,
        #"{"id":"a","rssi":-50,"t":2,"tx":-59,"kind":"mac"}"#,
        #"{"mac":"m","id":"a","rssi":-50,"t":2,"kind":"mac"}"#,
        #"{ "id":"a","rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id": "a","rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id":"a" ,"rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":2,"kind":"mac" }"#,
        #"{"id":"a","rssi": -50,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":2 ,"kind":"mac"}"#,
        #"{"id":"a","mac":null,"rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"tx":null,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":2,"kind":"mac","x":1}"#,
        #"{"id":"a\/b","rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id":"k\u00e4se","rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id":"käse","rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id":"a","mac":"a\"b","rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id":"a","mac":"ü","rssi":-50,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":2,"kind":"ibeac\u006fn"}"#,
        // Numbers the fast path leaves to `double()` and `integer()`.
        #"{"id":"a","rssi":-50.0,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-5e1,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-0127,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":2e9,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":2.5E-1,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":-2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":.5,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":12345678901234567890,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":1.2345678901234567890,"kind":"mac"}"#,
        // Bad readings (the general path counts them) and malformed ones (it throws).
        #"{"id":"","rssi":-50,"t":2,"kind":"mac"}"#,
        "{\"id\":\"\(String(repeating: "a", count: 201))\",\"rssi\":-50,\"t\":2,\"kind\":\"mac\"}",
        #"{"id":"a","rssi":21,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-128,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"tx":21,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"tx":-128,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":0,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":0.000,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":2,"kind":"phone"}"#,
        #"{"id":"a","rssi":-50,"t":2,"kind":"ibeacons"}"#,
        #"{"id":"a","rssi":-50,"t":2.,"kind":"mac"}"#,
        #"{"id":"a","rssi":-,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-9a,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-:9,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"tx":-5/,"t":2,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":,"kind":"mac"}"#,
        #"{"id":"a","rssi":-50,"t":2,"kind":"mac""#,
        #"{"id":"a","rssi":-50,"t":2,"kind":"mac"]"#,
        #"{"id":"a"#,
    ]
    for text in declined {
        #expect(!check(text), "\(text)")
        #expect(!check(text, tail: ""), "\(text)")
    }
    let reading = Array(#"{"id":"a","rssi":-50,"t":2,"kind":"mac"}"#.utf8)
    for n in 0..<reading.count { #expect(!check(Array(reading[..<n])), "\(n)") }
}

/// Seeded mutations of readings as edges write them, with and without the bytes after:
/// wherever the fast path decodes, the general path decodes the same.
@Test func fastPathAgreesUnderRandomMutations() {
    var random = SplitMix64(seed: 0xFA57)
    let bases = [
        #"{"id":"iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42","mac":"c2:3a:6b:01:02:03","rssi":-67,"tx":-59,"t":1764410000.123,"kind":"ibeacon"}"#,
        #"{"id":"mac:c2:3a:6b:01:02:03","rssi":-7,"t":1764410000.5,"kind":"mac"}"#,
        #"{"id":"x","mac":"m","rssi":-100,"tx":0,"t":12,"kind":"irk"}"#,
    ].map { Array(($0 + #",{"id":"b"}]"#).utf8) }
    let inserted = Array(#"\"ü0-.,:{}[] e9"#.utf8)
    var taken = 0
    for round in 0..<60_000 {
        var bytes = bases[round % bases.count]
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let i = Int(random.next() % UInt64(bytes.count))
            switch random.next() % 5 {
            case 0: bytes[i] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.remove(at: i)
            case 2: bytes.insert(inserted[Int(random.next() % UInt64(inserted.count))], at: i)
            case 3: bytes[i] = inserted[Int(random.next() % UInt64(inserted.count))]
            default: bytes[i] = UInt8(ascii: "0") + UInt8(random.next() % 10)
            }
        }
        if check(bytes) { taken += 1 }
        if let close = bytes.firstIndex(of: UInt8(ascii: "}")) { check(Array(bytes[...close])) }
    }
    // Most mutations of a digit or of the id leave a reading the fast path still takes.
    #expect(taken > 5_000)
}

/// Times as `double()` reads them, at every length of whole and fractional digits the fast
/// path takes.
@Test func fastPathTimesAreDoubleExactly() {
    var random = SplitMix64(seed: 19)
    for whole in 1...19 {
        for fraction in 0...(19 - whole) {
            for _ in 0..<20 {
                let digits = (0..<(whole + fraction)).map { _ in String(random.next() % 10) }.joined()
                var t = String(digits.prefix(whole))
                if fraction > 0 { t += "." + digits.suffix(fraction) }
                #expect(check(#"{"id":"a","rssi":-50,"t":\#(t),"kind":"mac"}"#) || Double(t)! == 0, "\(t)")
            }
        }
    }
}

/// Times in the form edges write (ten digits, a point and three: the fast path's shortcut),
/// at the edges of that form and at random: taken exactly as `double()` reads them, or, for
/// zero, declined and left to the general path.
@Test func edgeTimesAreDoubleExactly() {
    var random = SplitMix64(seed: 23)
    var times = ["0000000000.000", "0000000000.001", "0000000001.000", "9999999999.999", "1764410000.123", "0999999999.990"]
    for _ in 0..<2_000 { times.append(digits(random.next() % 10_000_000_000, width: 10) + "." + digits(random.next() % 1000, width: 3)) }
    for t in times {
        let taken = check(#"{"id":"a","rssi":-50,"t":\#(t),"kind":"mac"}"#)
        #expect(taken == (Double(t)! > 0), "\(t)")
    }
}

/// `v` in `width` digits, zeros in front.
private func digits(_ v: UInt64, width: Int) -> String {
    let s = String(v)
    return String(repeating: "0", count: max(0, width - s.count)) + s
}
