/// An open-addressing table from device ids (their UTF-8 bytes) to device indices.
///
/// A `[String: Int32]` needs a `String` to look up, which a reading decoded straight from a
/// payload does not have: making one per reading was most of the aggregator's allocations.
/// The table keeps each id's bytes itself, back to back in one buffer, so a lookup compares
/// bytes with bytes: reading the id out of the device's `String` (retained, checked for its
/// storage, through a closure) cost about half as much as hashing it.
///
/// The hash is SipHash-1-3 (what Swift's `Hasher` runs) under a key drawn once per process,
/// so ids chosen to collide cannot be precomputed; computed here on eight-byte words, it
/// costs 40 % fewer instructions than `Hasher.combine(bytes:)` and `finalize()` (callgrind).
struct DeviceIds {
    private static let empty: Int32 = -1, deleted: Int32 = -2

    private struct Slot {
        var device: Int32 = DeviceIds.empty
        /// Upper half of the hash, compared before the bytes.
        var tag: UInt32 = 0
        /// The id's bytes in `keys`.
        var keyStart: Int32 = 0
        var keyCount: Int32 = 0
    }

    private var slots = [Slot](repeating: Slot(), count: 1024)
    /// Live ids' bytes, and those of removed ids until the next `compact`.
    private var keys: [UInt8] = []
    private var garbage = 0
    /// Live entries, and live plus deleted (probe chains end only at empty slots).
    private(set) var count = 0
    private var used = 0

    /// The process's SipHash key: the same on every thread, unknown outside the process.
    private static let key: (UInt64, UInt64) = {
        var g = SystemRandomNumberGenerator()
        return (g.next(), g.next())
    }()

    static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        Int(truncatingIfNeeded: SipHash.hash(bytes, key: key, compressionRounds: 1, finalizationRounds: 3))
    }

    @inline(__always)
    func find(_ id: UnsafeRawBufferPointer, hash: Int) -> Int32? {
        let tag = UInt32(truncatingIfNeeded: hash >> 32)
        return slots.withUnsafeBufferPointer { slots in
            keys.withUnsafeBytes { keys in
                let mask = slots.count - 1
                var i = hash & mask
                while true {
                    let s = slots[i]
                    if s.device == Self.empty { return nil }
                    if s.device >= 0, s.tag == tag, Self.equal(keys, s, id) { return s.device }
                    i = (i + 1) & mask
                }
            }
        }
    }

    /// Adds `index` under `id` (not in the table).
    mutating func insert(_ index: Int32, id: UnsafeRawBufferPointer, hash: Int) {
        if (used + 1) * 2 > slots.count { rehash(capacity: count * 4 >= slots.count ? slots.count * 2 : slots.count) }
        let start = Int32(keys.count)
        keys.append(contentsOf: id)
        place(Slot(device: index, tag: UInt32(truncatingIfNeeded: hash >> 32), keyStart: start, keyCount: Int32(id.count)), hash: hash)
        count += 1
    }

    mutating func remove(_ id: UnsafeRawBufferPointer, hash: Int) {
        let mask = slots.count - 1
        let tag = UInt32(truncatingIfNeeded: hash >> 32)
        var i = hash & mask
        while slots[i].device != Self.empty {
            let s = slots[i]
            if s.device >= 0, s.tag == tag, keys.withUnsafeBytes({ Self.equal($0, s, id) }) {
                slots[i].device = Self.deleted
                count -= 1
                garbage += Int(s.keyCount)
                // Forgotten devices' bytes are dropped once they are most of the buffer.
                if garbage > 4096 && garbage * 2 > keys.count { compact() }
                return
            }
            i = (i + 1) & mask
        }
    }

    private mutating func place(_ slot: Slot, hash: Int) {
        let mask = slots.count - 1
        var i = hash & mask
        while slots[i].device >= 0 { i = (i + 1) & mask }
        if slots[i].device == Self.empty { used += 1 }
        slots[i] = slot
    }

    private mutating func rehash(capacity: Int) {
        let old = slots
        slots = [Slot](repeating: Slot(), count: capacity)
        count = 0
        used = 0
        for s in old where s.device >= 0 {
            let hash = keys.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[Int(s.keyStart)..<Int(s.keyStart + s.keyCount)])) }
            place(s, hash: hash)
            count += 1
        }
    }

    /// Rewrites `keys` with the live ids' bytes only.
    private mutating func compact() {
        var fresh: [UInt8] = []
        fresh.reserveCapacity(keys.count - garbage)
        for i in slots.indices where slots[i].device >= 0 {
            let s = slots[i]
            slots[i].keyStart = Int32(fresh.count)
            fresh.append(contentsOf: keys[Int(s.keyStart)..<Int(s.keyStart + s.keyCount)])
        }
        keys = fresh
        garbage = 0
    }

    private static func equal(_ keys: UnsafeRawBufferPointer, _ s: Slot, _ b: UnsafeRawBufferPointer) -> Bool {
        let n = Int(s.keyCount)
        guard n == b.count else { return false }
        let a = UnsafeRawBufferPointer(rebasing: keys[Int(s.keyStart)..<Int(s.keyStart) + n])
        var i = 0
        while i + 8 <= n {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        // The last bytes as the word that ends the id (overlapping the one before), not byte by byte.
        if i < n, n >= 8 {
            return a.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        }
        while i < n {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }
}

/// SipHash (Aumasson and Bernstein) with the rounds as parameters: SipHash-2-4 is the
/// published reference (its test vector checks this code), `DeviceIds` runs SipHash-1-3.
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
