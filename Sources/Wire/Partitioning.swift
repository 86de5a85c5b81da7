/// Which partition a device's readings travel in, and which shard owns it
/// (docs/protocol.md, Partitions and shards).
///
/// A device's partition is `fnv1a64(id's UTF-8 bytes) mod P`; an aggregator running as shard
/// `I/N` owns the partitions `k` with `k mod N = I`. Every edge and every shard computes the
/// same numbers from the id alone, so no table has to be shared.
public struct Partitioning: Sendable, Equatable {
    /// Partitions, `P` (1: the plain readings topic, no partition level).
    public let count: Int

    /// The largest `P` a site or edge may set: a partition is a topic per node, and 1,024 of
    /// them per node is already more subscriptions than a broker is happy to fan out.
    public static let maxCount = 1024

    /// Partitions in `1...maxCount`; nil otherwise.
    public init?(count: Int) {
        guard (1...Self.maxCount).contains(count) else { return nil }
        self.count = count
    }

    public static let single = Partitioning(count: 1)!

    /// The partition of the device whose id has these UTF-8 bytes.
    @inlinable
    public func partition(ofID bytes: UnsafeRawBufferPointer) -> Int {
        Int(Partitioning.fnv1a64(bytes) % UInt64(count))
    }

    /// The partition of device `id`. No allocation: a native string's bytes are read in place.
    public func partition(of id: String) -> Int {
        guard count > 1 else { return 0 }
        var id = id
        return id.withUTF8 { partition(ofID: UnsafeRawBufferPointer($0)) }
    }

    /// 64-bit FNV-1a: offset basis 0xcbf29ce484222325, prime 0x100000001b3, each byte xor-ed
    /// in before the multiply.
    @inlinable
    public static func fnv1a64(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// As `fnv1a64(_:)` of a string's UTF-8 bytes.
    public static func fnv1a64(_ s: String) -> UInt64 {
        var s = s
        return s.withUTF8 { fnv1a64(UnsafeRawBufferPointer($0)) }
    }
}

/// One aggregator's share of the partitions: shard `index` of `count` (`--shard I/N`).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The one aggregator of a site that is not sharded: it owns every partition.
    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    private init(uncheckedIndex index: Int, count: Int) { self.index = index; self.count = count }

    /// `I/N` with `0 ≤ I < N`, both decimal; the message says what is wrong otherwise.
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]),
              parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } })
        else { throw ShardError("'\(text)' is not I/N (two whole numbers, e.g. 0/2)") }
        guard n >= 1, n <= Partitioning.maxCount else { throw ShardError("'\(text)': N must be 1 to \(Partitioning.maxCount)") }
        guard i < n else { throw ShardError("'\(text)': I must be 0 to N - 1 (shards are numbered from 0)") }
        self.init(uncheckedIndex: i, count: n)
    }

    /// Checks the shard against the site's partitions: with more shards than partitions some
    /// shards would own nothing.
    public func check(_ partitions: Partitioning) throws(ShardError) {
        guard count <= partitions.count else {
            throw ShardError("\(self) needs the site's partitions to be at least \(count) (it is \(partitions.count)): "
                + "shard I owns the partitions k with k mod \(count) = I")
        }
    }

    public var isWhole: Bool { count == 1 }

    /// Whether this shard owns partition `k`.
    @inlinable
    public func owns(partition k: Int) -> Bool { k % count == index }

    /// The partitions of `partitions` this shard owns, ascending.
    public func partitions(of partitions: Partitioning) -> [Int] {
        (0..<partitions.count).filter(owns(partition:))
    }

    /// Whether this shard owns the device whose id has these UTF-8 bytes.
    @inlinable
    public func owns(id bytes: UnsafeRawBufferPointer, _ partitions: Partitioning) -> Bool {
        count == 1 || owns(partition: partitions.partition(ofID: bytes))
    }

    public var description: String { "\(index)/\(count)" }
}

/// A `--shard` value or a shard that does not go with the site.
public struct ShardError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
