/// A JSON scanner over bytes: the primitives the payload decoders are built from.
///
/// No Foundation and no intermediate tree: decoders read the fields they know and skip the
/// rest. Every read checks bounds; a malformed document is a `JSONError` with the offset.
public struct JSONScanner {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    // Set by the number readers in JSONScanner+Numbers.swift too.
    public internal(set) var offset: Int = 0

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
