/// A JSON scanner over bytes: the primitives the payload decoders are built from.
///
/// No Foundation and no intermediate tree: decoders read the fields they know and skip the
/// rest. Every read checks bounds; a malformed document is a `JSONError` with the offset.
public struct JSONScanner {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    public private(set) var offset: Int = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Back to an earlier offset (a fast path that found something it does not handle).
    mutating func rewind(to offset: Int) { self.offset = offset }

    /// Consumes exactly `literal`'s bytes if they are next (no whitespace skipped).
    @inline(__always)
    mutating func consumeExactly(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard offset + n <= bytes.count else { return false }
        let p = literal.utf8Start
        for k in 0..<n where bytes[offset + k] != p[k] { return false }
        offset += n
        return true
    }

    /// A scanner at `offset` of `bytes` (to read a value again).
    init(_ bytes: UnsafeRawBufferPointer, offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    public var isAtEnd: Bool { mutating get { skipWhitespace(); return offset >= bytes.count } }

    @inlinable @inline(__always)
    func byte(at i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }

    public func error(_ message: String) -> JSONError { JSONError(message: message, offset: offset) }

    public mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// The next significant byte, not consumed.
    public mutating func peek() -> UInt8? {
        skipWhitespace()
        return byte(at: offset)
    }

    @inline(__always)
    public mutating func expect(_ c: UInt8) throws(JSONError) {
        // Compact JSON (what edges send) has `c` right here: no whitespace loop, no optional.
        if offset < bytes.count && bytes[offset] == c { offset += 1; return }
        try expectAfterWhitespace(c)
    }

    private mutating func expectAfterWhitespace(_ c: UInt8) throws(JSONError) {
        guard peek() == c else { throw error("expected '\(Character(Unicode.Scalar(c)))'") }
        offset += 1
    }

    /// Consumes `c` if it is next.
    @inline(__always)
    public mutating func consume(_ c: UInt8) -> Bool {
        if offset < bytes.count && bytes[offset] == c { offset += 1; return true }
        guard peek() == c else { return false }
        offset += 1
        return true
    }

    /// Iterates an object's keys: calls `body` with the scanner positioned at each value,
    /// which `body` must consume. The key is passed as raw bytes (no allocation) when it
    /// has no escapes.
    @inline(__always)
    public mutating func object(_ body: (inout JSONScanner, UnsafeRawBufferPointer) throws(JSONError) -> Void) throws(JSONError) {
        try expect(UInt8(ascii: "{"))
        if consume(UInt8(ascii: "}")) { return }
        repeat {
            let key = try rawString()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// Iterates an array: `body` must consume each element.
    public mutating func array(_ body: (inout JSONScanner) throws(JSONError) -> Void) throws(JSONError) {
        try expect(UInt8(ascii: "["))
        if consume(UInt8(ascii: "]")) { return }
        repeat { try body(&self) } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
    }

    /// Eight string bytes at once (SWAR): the high bit of each byte of the result is set where
    /// that byte of `w` may end the plain run — a quote, a backslash or a control character (a
    /// byte at or above 0x80 may set it too; the byte-by-byte loop after decides). A borrow
    /// only flags bytes above a real match, so the lowest flagged byte is always a real one.
    @inline(__always)
    static func stringEnds(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ 0x2222_2222_2222_2222, slash = w ^ 0x5C5C_5C5C_5C5C_5C5C
        return ((quote &- ones) & ~quote) | ((slash &- ones) & ~slash) | ((w &- 0x2020_2020_2020_2020) & ~w)
    }

    /// A string's bytes between the quotes, escapes left as they are. Used for keys and
    /// for values compared or copied as bytes.
    public mutating func rawString() throws(JSONError) -> UnsafeRawBufferPointer {
        try expect(UInt8(ascii: "\""))
        // A local index: stepping the stored `offset` costs a store per byte, and strings
        // (ids, addresses) are most of a batch's bytes.
        let start = offset
        var i = start
        // Eight bytes at a time while none of them ends the string, starts an escape or is
        // a control character (SWAR: a byte equal to the quote or backslash, or below 0x20).
        while i + 8 <= bytes.count {
            let w = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if Self.stringEnds(w) & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                offset = i + 1
                return UnsafeRawBufferPointer(rebasing: bytes[start..<i])
            }
            if c == UInt8(ascii: "\\") { i += 2; continue }
            if c < 0x20 { offset = i; throw error("control character in string") }
            i += 1
        }
        offset = i
        throw error("unterminated string")
    }

    /// The offset of the closing quote of the plain string (ASCII, no escape, no byte of 0x80 or
    /// above, no control character) whose bytes start at `start` of the `count` at `p`, read
    /// thirty-two bytes a step (one branch for two vectors: ids are about fifty bytes); `nil`
    /// when the string is not plain (fast paths then fall back to the full decoder, which
    /// decides). The last thirty-one bytes of the buffer are left to `plainStringEndNearTheEnd`,
    /// so that this part stays small: it is inlined into `BatchReading.canonical` (which the
    /// optimizer found too large to honour `@inline(__always)` in; the two calls a reading,
    /// with the registers saved around them, were 25 instructions of the network thread's).
    @_transparent
    static func plainStringEnd(_ p: UnsafeRawPointer, _ start: Int, _ count: Int) -> Int? {
        var i = start
        while i &+ 32 <= count {
            let low = plainEnds(p, i), high = plainEnds(p, i &+ 16)
            // The halves' flags merged lane by lane: any lane set means an end in one of them,
            // the low half's first if it has one, else the high half's (the merged first).
            if let k = firstLane(low | high) {
                let j = firstLane(low) ?? 16 &+ k
                return quoteOrNil(p, i &+ j)
            }
            i &+= 32
        }
        return plainStringEndNearTheEnd(p, i, count)
    }

    /// `plainStringEnd` within the last thirty-one bytes: sixteen at a time, then one by one.
    @inline(never)
    private static func plainStringEndNearTheEnd(_ p: UnsafeRawPointer, _ start: Int, _ count: Int) -> Int? {
        var i = start
        while i &+ 16 <= count {
            if let k = firstLane(plainEnds(p, i)) { return quoteOrNil(p, i &+ k) }
            i &+= 16
        }
        while i < count {
            let c = p.load(fromByteOffset: i, as: UInt8.self)
            if c == UInt8(ascii: "\"") { return i }
            if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return nil }
            i &+= 1
        }
        return nil
    }

    /// The string ends at `i` if its byte is the quote, and is not plain otherwise.
    @inline(__always)
    private static func quoteOrNil(_ p: UnsafeRawPointer, _ i: Int) -> Int? {
        p.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: "\"") ? i : nil
    }

    /// The sixteen bytes at `i`, each all ones where it ends a plain run — a quote, a
    /// backslash, a control character or a byte of 0x80 or above (negative as an `Int8`) — and
    /// zero elsewhere: three vector compares (SSE2 on x86-64, NEON on ARM), where the
    /// eight-byte words of `stringEnds` took about seventeen instructions per word.
    @inline(__always)
    static func plainEnds(_ p: UnsafeRawPointer, _ i: Int) -> SIMD16<Int8> {
        let v = p.loadUnaligned(fromByteOffset: i, as: SIMD16<Int8>.self)
        let ends = (v .== SIMD16<Int8>(repeating: 0x22)) .| (v .== SIMD16<Int8>(repeating: 0x5C)) .| (v .< SIMD16<Int8>(repeating: 0x20))
        return SIMD16<Int8>(repeating: 0).replacing(with: -1, where: ends)
    }

    /// The index of the first nonzero lane of `flags`, or nil: the lanes read as two words.
    @inline(__always)
    static func firstLane(_ flags: SIMD16<Int8>) -> Int? {
        let words = unsafeBitCast(flags, to: SIMD2<UInt64>.self)
        let low = UInt64(littleEndian: words[0]), high = UInt64(littleEndian: words[1])
        guard low | high != 0 else { return nil }
        return low != 0 ? low.trailingZeroBitCount >> 3 : 8 &+ high.trailingZeroBitCount >> 3
    }

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

    /// A string value, with escapes resolved and invalid UTF-8 repaired.
    public mutating func string() throws(JSONError) -> String {
        let raw = try rawString()
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        return try unescape(raw)
    }

    private func unescape(_ raw: UnsafeRawBufferPointer) throws(JSONError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        var pendingHigh: UInt32?
        while i < raw.count {
            let c = raw[i]
            guard c == UInt8(ascii: "\\") else { out.append(c); i += 1; continue }
            guard i + 1 < raw.count else { throw error("bad escape") }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard i + 4 <= raw.count, let unit = hexValue(raw, i, 4) else { throw error("bad \\u escape") }
                i += 4
                var scalarValue = unit
                if (0xD800...0xDBFF).contains(unit) { pendingHigh = unit; continue }
                if (0xDC00...0xDFFF).contains(unit), let high = pendingHigh {
                    scalarValue = 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00)
                }
                pendingHigh = nil
                let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: throw error("bad escape")
            }
        }
        return String(decoding: out, as: UTF8.self)
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

    public mutating func bool() throws(JSONError) -> Bool {
        if consumeLiteral("true") { return true }
        if consumeLiteral("false") { return false }
        throw error("expected true or false")
    }

    /// Consumes `null` if it is next.
    public mutating func null() -> Bool { consumeLiteral("null") }

    /// Skips any value (for fields a decoder does not know), with a nesting limit.
    public mutating func skipValue(depth: Int = 0) throws(JSONError) {
        guard depth < 64 else { throw error("nesting too deep") }
        switch peek() {
        case UInt8(ascii: "{"): try object { (s: inout JSONScanner, _) throws(JSONError) in try s.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try array { (s: inout JSONScanner) throws(JSONError) in try s.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): _ = try rawString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): if !null() { throw error("expected null") }
        case nil: throw error("unexpected end")
        default: _ = try double()
        }
    }

    private mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        skipWhitespace()
        return consumeExactly(literal)
    }
}

/// A malformed JSON document: what was wrong and where.
public struct JSONError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public let offset: Int
    public var description: String { "\(message) at offset \(offset)" }
}

/// Compares raw key bytes with an ASCII literal without allocating.
@inlinable @inline(__always)
public func keyEquals(_ key: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
    let n = literal.utf8CodeUnitCount
    guard key.count == n else { return false }
    let p = literal.utf8Start
    for i in 0..<n where key[i] != p[i] { return false }
    return true
}

private func hexValue(_ raw: UnsafeRawBufferPointer, _ start: Int, _ count: Int) -> UInt32? {
    var v: UInt32 = 0
    for i in start..<(start + count) {
        let c = raw[i]
        let d: UInt8
        switch c {
        case 0x30...0x39: d = c - 0x30
        case 0x61...0x66: d = c - 0x61 + 10
        case 0x41...0x46: d = c - 0x41 + 10
        default: return nil
        }
        v = v << 4 | UInt32(d)
    }
    return v
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
