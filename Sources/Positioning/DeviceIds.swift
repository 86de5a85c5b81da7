/// An open-addressing table from device ids (their UTF-8 bytes) to device indices.
///
/// A `[String: Int32]` needs a `String` to look up, which a reading decoded straight from a
/// payload does not have: making one per reading was most of the aggregator's allocations.
/// The table keeps each id's bytes itself, in one buffer (`LineAlignedBytes`), so a lookup compares
/// bytes with bytes: reading the id out of the device's `String` (retained, checked for its
/// storage, through a closure) cost about half as much as hashing it.
///
/// The hash is keyed by random words drawn once per process, so ids chosen to collide cannot
/// be precomputed: NH (`NH`) for ids of up to 128 bytes (every id docs/protocol.md#device-ids makes), SipHash-1-3
/// (what Swift's `Hasher` runs) for longer ones. On the bench's iBeacon ids NH costs 127
/// instructions where SipHash cost 277 (callgrind), which was a tenth of the aggregator's
/// instructions per reading at the end-to-end ladder's top. NH is a universal hash, not a
/// pseudo-random function as SipHash is: ids chosen blind collide no more often, but someone
/// able to time very many lookups could in principle learn about the key from which ids
/// collide. The aggregator exposes no such signal at that grain (its latency histogram is per
/// message, and /metrics is served on loopback or behind a token, docs/security.md); if that changes,
/// SipHash is one line away (`hash`).
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
    /// Live ids' bytes, and those of removed ids until the next `compact`. Shared by copies of
    /// the table: the engine's is its only one.
    private var keys = LineAlignedBytes()
    /// The live ids' own bytes: `keys` also holds removed ids and the padding that keeps each
    /// id on one line, which is why compaction looks at this and not at what was removed.
    private var liveBytes = 0
    /// Bytes the ids' buffer holds (live, removed and padding), for tests of its bound.
    var storedBytes: Int { keys.count }
    /// Live entries, and live plus deleted (probe chains end only at empty slots).
    private(set) var count = 0
    private var used = 0

    /// The process's keys: the same on every thread, unknown outside the process.
    private static let key: (UInt64, UInt64) = {
        var g = SystemRandomNumberGenerator()
        return (g.next(), g.next())
    }()
    private static let nhKey: [UInt64] = {
        var g = SystemRandomNumberGenerator()
        return (0..<NH.keyWords).map { _ in g.next() }
    }()

    static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        nhKey.withUnsafeBufferPointer { hash(bytes, nhKey: $0) }
    }

    /// `hash` with the NH key taken already: a batch's ids are hashed in one loop with one
    /// look at the process's key (a lazy global: a `swift_once` check each time it is read).
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, nhKey: UnsafeBufferPointer<UInt64>) -> Int {
        guard bytes.count <= NH.maxBytes else {
            return Int(truncatingIfNeeded: SipHash.hash(bytes, key: key, compressionRounds: 1, finalizationRounds: 3))
        }
        return Int(truncatingIfNeeded: NH.hash(bytes, key: nhKey))
    }

    /// Runs `body` with the process's NH key, for `hash(_:nhKey:)`.
    @inline(__always)
    static func withKey<R>(_ body: (UnsafeBufferPointer<UInt64>) -> R) -> R { nhKey.withUnsafeBufferPointer(body) }

    @inline(__always)
    func find(_ id: UnsafeRawBufferPointer, hash: Int) -> Int32? {
        let tag = UInt32(truncatingIfNeeded: hash >> 32)
        return slots.withUnsafeBufferPointer { slots in
            keys.withBytes { keys in
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
        let start = Int32(keys.append(id))
        liveBytes += id.count
        place(Slot(device: index, tag: UInt32(truncatingIfNeeded: hash >> 32), keyStart: start, keyCount: Int32(id.count)), hash: hash)
        count += 1
    }

    mutating func remove(_ id: UnsafeRawBufferPointer, hash: Int) {
        let mask = slots.count - 1
        let tag = UInt32(truncatingIfNeeded: hash >> 32)
        var i = hash & mask
        while slots[i].device != Self.empty {
            let s = slots[i]
            if s.device >= 0, s.tag == tag, keys.withBytes({ Self.equal($0, s, id) }) {
                slots[i].device = Self.deleted
                count -= 1
                liveBytes -= Int(s.keyCount)
                // Forgotten devices' bytes are dropped once the buffer is four times the live
                // ids: padding before an id is shorter than the id, so a compacted buffer is under
                // twice them, and ids forgotten in any order of lengths cannot grow it further.
                if keys.count > 4 * liveBytes + 4096 { compact() }
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
            let hash = keys.withBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[Int(s.keyStart)..<Int(s.keyStart + s.keyCount)])) }
            place(s, hash: hash)
            count += 1
        }
    }

    /// Rewrites `keys` with the live ids' bytes only.
    private mutating func compact() {
        let fresh = LineAlignedBytes()
        keys.withBytes { keys in
            for i in slots.indices where slots[i].device >= 0 {
                let s = slots[i]
                slots[i].keyStart = Int32(fresh.append(UnsafeRawBufferPointer(rebasing: keys[Int(s.keyStart)..<Int(s.keyStart + s.keyCount)])))
            }
        }
        keys = fresh
    }

    /// Whether the id in slot `s` is `b`: eight bytes at a time through raw pointers taken
    /// once, the last bytes as the word that ends the id (overlapping the one before).
    private static func equal(_ keys: UnsafeRawBufferPointer, _ s: Slot, _ b: UnsafeRawBufferPointer) -> Bool {
        let n = Int(s.keyCount)
        guard n == b.count else { return false }
        let a = UnsafeRawBufferPointer(rebasing: keys[Int(s.keyStart)..<Int(s.keyStart) + n])
        guard n >= 8, let pa = a.baseAddress, let pb = b.baseAddress else { return a.elementsEqual(b) }
        @inline(__always) func word(_ p: UnsafeRawPointer, _ i: Int) -> UInt64 { p.loadUnaligned(fromByteOffset: i, as: UInt64.self) }
        var i = 0
        while i < n &- 8 {
            if word(pa, i) != word(pb, i) { return false }
            i &+= 8
        }
        return word(pa, n &- 8) == word(pb, n &- 8)
    }
}

/// Bytes in a block aligned to 64-byte cache lines, appended so that no run of up to 64 bytes
/// crosses a line: an id is then one line to compare, where packed back to back most of the
/// bench's 50-byte ids crossed into a second (a cache miss each at 10,000 devices).
final class LineAlignedBytes {
    private static let line = 64
    private var base: UnsafeMutableRawPointer
    private(set) var count = 0
    private var capacity = 4096

    init() { base = .allocate(byteCount: capacity, alignment: Self.line) }

    deinit { base.deallocate() }

    /// Appends `bytes` (after padding to the next line if they fit in one and would cross one
    /// here); returns where they start.
    func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        let offset = count % Self.line
        let start = bytes.count <= Self.line && offset + bytes.count > Self.line ? count + Self.line - offset : count
        if start + bytes.count > capacity {
            var grown = capacity * 2
            while start + bytes.count > grown { grown *= 2 }
            let fresh = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: Self.line)
            fresh.copyMemory(from: base, byteCount: count)
            base.deallocate()
            base = fresh
            capacity = grown
        }
        if let from = bytes.baseAddress { (base + start).copyMemory(from: from, byteCount: bytes.count) }
        count = start + bytes.count
        return start
    }

    @inline(__always)
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { body(UnsafeRawBufferPointer(start: base, count: count)) }
}
