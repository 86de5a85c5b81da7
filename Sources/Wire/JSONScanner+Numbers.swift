/// Numbers: the general `double()` and `integer()`, and the small whole numbers and
/// eight-digit words the fast paths read.
extension JSONScanner {
    /// A whole number of at most four digits, optionally negative, followed by `,` or `}`;
    /// otherwise `nil` with the offset where it was (fast paths fall back to `integer()`).
    mutating func smallInteger() -> Int? {
        var i = offset
        let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var value = 0, digits = 0
        while i < bytes.count, digits <= 4 {
            let d = bytes[i] &- 0x30
            guard d <= 9 else { break }
            value = value * 10 + Int(d)
            digits += 1; i += 1
        }
        guard digits > 0, digits <= 4, i < bytes.count, bytes[i] == UInt8(ascii: ",") || bytes[i] == UInt8(ascii: "}") else { return nil }
        offset = i
        return negative ? -value : value
    }

    /// A number as a Double (integers and decimals with exponents).
    public mutating func double() throws(JSONError) -> Double {
        skipWhitespace()
        // A local index, stored back once: stepping the stored `offset` costs a store per
        // digit, and a reading's time has thirteen or more.
        let start = offset, end = bytes.count
        var i = start
        var negative = false
        if i < end && bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, exponent = 0
        // Eight digits at a time while they fit the mantissa's 19 (a time has ten before
        // the point), then one at a time as before.
        while digits <= 11, i + 8 <= end, let v = eightDigits(at: i) {
            mantissa = mantissa &* 100_000_000 &+ v
            digits += 8; i += 8
        }
        while i < end {
            let d = bytes[i] &- 0x30
            guard d <= 9 else { break }
            if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(d) } else { exponent += 1 }
            digits += 1; i += 1
        }
        if i < end && bytes[i] == UInt8(ascii: ".") {
            i += 1
            var fractionDigits = 0
            while digits <= 11, i + 8 <= end, let v = eightDigits(at: i) {
                mantissa = mantissa &* 100_000_000 &+ v
                exponent -= 8; digits += 8; i += 8; fractionDigits += 8
            }
            while i < end {
                let d = bytes[i] &- 0x30
                guard d <= 9 else { break }
                if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(d); exponent -= 1; digits += 1 }
                i += 1; fractionDigits += 1
            }
            if fractionDigits == 0 { offset = i; throw error("bad number") }
        }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var expNegative = false
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { expNegative = bytes[i] == UInt8(ascii: "-"); i += 1 }
            var e = 0, expDigits = 0
            while i < end {
                let d = bytes[i] &- 0x30
                guard d <= 9 else { break }
                e = min(e * 10 + Int(d), 10_000); i += 1; expDigits += 1
            }
            if expDigits == 0 { offset = i; throw error("bad number") }
            exponent += expNegative ? -e : e
        }
        guard digits > 0 else { offset = start; throw error("expected a number") }
        offset = i
        let value = scaled(mantissa, exponent)
        return negative ? -value : value
    }

    /// The value of the eight ASCII digits at `i` (SWAR, as simdjson parses them), or nil when
    /// any of them is not a digit.
    @inline(__always)
    private func eightDigits(at i: Int) -> UInt64? {
        Self.eightDigits(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
    }

    /// The value of the eight ASCII digits of the little-endian word `w`, or nil.
    @inline(__always)
    static func eightDigits(_ w: UInt64) -> UInt64? {
        guard (w & 0xF0F0_F0F0_F0F0_F0F0) | (((w &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4) == 0x3333_3333_3333_3333 else { return nil }
        // (Swift's shifts bind tighter than its products.)
        var v = ((w & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
        v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        return ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
    }

    /// A whole number; decimals and values out of range are errors.
    public mutating func integer() throws(JSONError) -> Int64 {
        let start = offset
        let v = try double()
        guard v == v.rounded(), abs(v) < 9.0e15 else { offset = start; throw error("expected a whole number") }
        return Int64(v)
    }
}

/// 10^n for n in 0...22, each exact in a Double (a table in the binary, where a global array
/// cost a `swift_once` check and a call at every number).
@inline(__always)
private func exactPowerOf10(_ n: Int) -> Double {
    switch n {
    case 0: 1e0
    case 1: 1e1
    case 2: 1e2
    case 3: 1e3
    case 4: 1e4
    case 5: 1e5
    case 6: 1e6
    case 7: 1e7
    case 8: 1e8
    case 9: 1e9
    case 10: 1e10
    case 11: 1e11
    case 12: 1e12
    case 13: 1e13
    case 14: 1e14
    case 15: 1e15
    case 16: 1e16
    case 17: 1e17
    case 18: 1e18
    case 19: 1e19
    case 20: 1e20
    case 21: 1e21
    default: 1e22
    }
}

/// mantissa × 10^e. Dividing by an exact power of ten (|e| ≤ 22) rounds correctly, so
/// `0.250` and `-67` come out exactly as written.
@inline(__always)
func scaled(_ mantissa: UInt64, _ e: Int) -> Double {
    let m = Double(mantissa)
    if e == 0 { return m }
    if e > 0 && e <= 22 { return m * exactPowerOf10(e) }
    if e < 0 && e >= -22 { return m / exactPowerOf10(-e) }
    var result = 1.0, base = 10.0, n = abs(e)
    while n > 0 { if n & 1 == 1 { result *= base }; base *= base; n >>= 1 }
    return e < 0 ? m / result : m * result
}
