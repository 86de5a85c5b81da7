/// Plain strings (ASCII, no escape, no control character) found a vector at a time, for the
/// fast paths that read canonical readings (`BatchReading.canonical`).
extension JSONScanner {
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
}
