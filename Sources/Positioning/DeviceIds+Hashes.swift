/// NH, the universal hash of UMAC (Black, Halevi, Krawczyk, Krovetz and Rogaway, 1999), on
/// eight-byte words: each word and its key word are added in two 32-bit halves, the halves
/// multiplied into 64 bits, the products summed. For a key drawn at random, two different
/// messages of the same number of words collide with probability at most 2^-32 (its
/// almost-universality), and a longer message's extra words enter through key words of their
/// own. The message is the id's whole words, then one last word with the bytes after them and
/// the id's length in its top byte (as SipHash ends), so two different ids are two different
/// messages. The sum goes through MurmurHash3's finaliser, a bijection, so collisions stay as
/// rare and every bit of the result (the table's slot and tag) depends on every bit of the sum.
enum NH {
    /// The longest id hashed: 16 whole words, and the last one.
    static let maxBytes = 128
    static let keyWords = maxBytes / 8 + 1

    /// `key` has `keyWords` words; `bytes` at most `maxBytes`.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, key: UnsafeBufferPointer<UInt64>) -> UInt64 {
        var sum: UInt64 = 0
        @inline(__always) func add(_ m: UInt64, _ k: UInt64) {
            let low = UInt64(UInt32(truncatingIfNeeded: m) &+ UInt32(truncatingIfNeeded: k))
            let high = UInt64(UInt32(truncatingIfNeeded: m >> 32) &+ UInt32(truncatingIfNeeded: k >> 32))
            sum &+= low &* high
        }
        let n = bytes.count
        guard let p = bytes.baseAddress else { add(0, key[0]); return mix(sum) }
        let words = n &>> 3
        var w = 0
        while w < words {
            add(UInt64(littleEndian: p.loadUnaligned(fromByteOffset: w &<< 3, as: UInt64.self)), key[w])
            w &+= 1
        }
        var last = UInt64(truncatingIfNeeded: n) << 56
        let rest = n & 7
        if rest > 0, n >= 8 {
            // The bytes after the whole words, from the word that ends the id.
            last |= UInt64(littleEndian: p.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)) &>> UInt64(truncatingIfNeeded: 64 &- 8 &* rest)
        } else {
            for i in 0..<rest { last |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << UInt64(8 * i) }
        }
        add(last, key[words])
        return mix(sum)
    }

    /// MurmurHash3's 64-bit finaliser.
    @inline(__always)
    private static func mix(_ sum: UInt64) -> UInt64 {
        var h = sum
        h ^= h >> 33
        h &*= 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h &*= 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }
}

/// SipHash (Aumasson and Bernstein) with the rounds as parameters: SipHash-2-4 is the
/// published reference (its test vector checks this code), `DeviceIds` runs SipHash-1-3 on
/// ids longer than `NH.maxBytes`.
enum SipHash {
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, key: (UInt64, UInt64), compressionRounds: Int, finalizationRounds: Int) -> UInt64 {
        var v0 = key.0 ^ 0x736f_6d65_7073_6575, v1 = key.1 ^ 0x646f_7261_6e64_6f6d
        var v2 = key.0 ^ 0x6c79_6765_6e65_7261, v3 = key.1 ^ 0x7465_6462_7974_6573
        @inline(__always) func round() {
            v0 &+= v1; v1 = v1.rotated(13); v1 ^= v0; v0 = v0.rotated(32)
            v2 &+= v3; v3 = v3.rotated(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotated(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotated(17); v1 ^= v2; v2 = v2.rotated(32)
        }
        @inline(__always) func compress(_ m: UInt64) {
            v3 ^= m
            for _ in 0..<compressionRounds { round() }
            v0 ^= m
        }
        let n = bytes.count
        var i = 0
        while i + 8 <= n {
            compress(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
        }
        var last = UInt64(truncatingIfNeeded: n) << 56
        var shift: UInt64 = 0
        while i < n {
            last |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        compress(last)
        v2 ^= 0xff
        for _ in 0..<finalizationRounds { round() }
        return v0 ^ v1 ^ v2 ^ v3
    }
}

private extension UInt64 {
    @inline(__always) func rotated(_ k: UInt64) -> UInt64 { (self << k) | (self >> (64 - k)) }
}
