/// A read cursor over borrowed bytes whose reads return `nil` when the bytes run short.
///
/// Every read checks the remaining length first, so no input can make it read out of
/// bounds. `origin` is the offset of `bytes[0]` in the enclosing packet, so errors can name
/// the offset a user sees in the whole packet rather than in a slice of it.
public struct ByteCursor {
    public let bytes: UnsafeRawBufferPointer
    public let origin: Int
    public private(set) var position: Int = 0

    public init(_ bytes: UnsafeRawBufferPointer, origin: Int = 0) {
        self.bytes = bytes
        self.origin = origin
    }

    /// Bytes not yet read.
    public var remaining: Int { bytes.count - position }
    public var isAtEnd: Bool { position >= bytes.count }
    /// The packet offset of the next byte to read.
    public var offset: Int { origin + position }

    public mutating func readUInt8() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func readInt8() -> Int8? {
        readUInt8().map { Int8(bitPattern: $0) }
    }

    public mutating func readUInt16LE() -> UInt16? { readLittleEndian(2).map { UInt16(truncatingIfNeeded: $0) } }
    public mutating func readUInt16BE() -> UInt16? { readBigEndian(2).map { UInt16(truncatingIfNeeded: $0) } }
    public mutating func readUInt32LE() -> UInt32? { readLittleEndian(4).map { UInt32(truncatingIfNeeded: $0) } }
    public mutating func readUInt32BE() -> UInt32? { readBigEndian(4).map { UInt32(truncatingIfNeeded: $0) } }

    /// Reads `count` (at most 8) bytes as a little-endian unsigned number.
    public mutating func readLittleEndian(_ count: Int) -> UInt64? {
        guard count >= 0, count <= 8, count <= remaining else { return nil }
        var value: UInt64 = 0
        for i in 0..<count {
            value |= UInt64(bytes[position + i]) << (8 * UInt64(i))
        }
        position += count
        return value
    }

    /// Reads `count` (at most 8) bytes as a big-endian unsigned number.
    public mutating func readBigEndian(_ count: Int) -> UInt64? {
        guard count >= 0, count <= 8, count <= remaining else { return nil }
        var value: UInt64 = 0
        for i in 0..<count {
            value = value << 8 | UInt64(bytes[position + i])
        }
        position += count
        return value
    }

    /// The next `count` bytes as a borrowed buffer, valid as long as `bytes` is.
    public mutating func readBytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= remaining else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    /// Skips `count` bytes; `false` (and no move) when fewer remain.
    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        position += count
        return true
    }
}
