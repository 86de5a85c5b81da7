import Testing
@testable import Wire

// The scanner's word- and vector-at-a-time paths (strings' ends sixteen bytes at a time,
// eight digits, literals) against what reading byte by byte gives, at every length and
// position around their steps.

struct JSONScannerFastPathTests {
    /// The plain string byte by byte: up to the first quote, nil if an escape, a control
    /// character or a byte of 0x80 or above comes first (or no quote at all).
    private func reference(_ body: [UInt8]) -> [UInt8]? {
        for (i, c) in body.enumerated() {
            if c == UInt8(ascii: "\"") { return Array(body[..<i]) }
            if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return nil }
        }
        return nil
    }

    @Test func plainStringsEndWhereTheFirstSpecialByteIs() {
        let specials: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x1F, 0x80, 0xC3, 0xFF, 0x00, 0x7F, 0x20, 0x21, 0x5D]
        for n in 0..<52 {
            for at in 0...n {
                for special in specials {
                    var body = (0..<n).map { UInt8(ascii: "a") + UInt8($0 % 26) }
                    if at < n { body[at] = special }
                    // A closing quote after, and bytes behind it that must not matter.
                    let bytes = [UInt8(ascii: "\"")] + body + Array("\",\"x\":\\ü".utf8)
                    let got = bytes.withUnsafeBytes { raw -> [UInt8]? in
                        guard let end = JSONScanner.plainStringEnd(raw.baseAddress!, 1, raw.count) else { return nil }
                        return Array(raw[1..<end])
                    }
                    #expect(got == reference(body + [UInt8(ascii: "\"")]), "n \(n) at \(at) byte \(special)")
                }
            }
        }
    }

    @Test func numbersReadEightDigitsAtATimeAreExact() {
        var random = SystemRandomNumberGenerator()
        var texts = ["0", "7", "12345678", "123456789", "1764445555.123", "1764445555.12345678", "-1764445555.5",
                     "0.00000001", "9999999.99999999", "1234567812345678", "12345678.1234567", "1e3", "12345678e-8"]
        for _ in 0..<5_000 {
            // At most fifteen significant digits: then the decimal is exact in a Double.
            let whole = Int.random(in: 0...15, using: &random)
            let fraction = Int.random(in: 0...(15 - whole), using: &random)
            let digits = (0..<(whole + fraction)).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
            var text = whole == 0 ? "0" : String(digits.prefix(whole))
            if fraction > 0 { text += "." + digits.suffix(fraction) }
            texts.append(Bool.random(using: &random) ? "-" + text : text)
        }
        for text in texts {
            let bytes = Array((text + ",").utf8)
            let value = bytes.withUnsafeBytes { raw -> Double? in
                var s = JSONScanner(raw)
                return try? s.double()
            }
            #expect(value == Double(text), "\(text)")
        }
    }

    @Test func longNumbersStillReadClose() {
        for text in ["12345678901234567890123", "1234567890.1234567890123", "0.12345678901234567890"] {
            let value = Array(text.utf8).withUnsafeBytes { raw -> Double? in
                var s = JSONScanner(raw)
                return try? s.double()
            }
            let expected = Double(text)!
            #expect(abs((value ?? 0) - expected) <= expected * 1e-15, "\(text)")
        }
    }

    @Test func literalsMatchOnlyWhole() {
        for text in [#"{"id":"x"}"#, #"{"id":"#, #"{"ix":"x"}"#, #"{"id""#, #"{"id":"#, "{", ""] {
            let bytes = Array(text.utf8)
            let matched = bytes.withUnsafeBytes { raw -> Bool in
                var s = JSONScanner(raw)
                let ok = s.consumeExactly("{\"id\":")
                #expect(s.offset == (ok ? 6 : 0))
                return ok
            }
            #expect(matched == text.hasPrefix(#"{"id":"#), "\(text)")
        }
        let bytes = Array(#","rssi":-60,"t":1"#.utf8)
        bytes.withUnsafeBytes { raw in
            var s = JSONScanner(raw)
            let wrong = s.consumeExactly(",\"rssi\":-7")
            let key = s.consumeExactly(",\"rssi\":")
            let rest = s.consumeExactly("-60,\"t\":1")
            #expect(!wrong && key && rest)
        }
    }
}
