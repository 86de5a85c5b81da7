/// Reads the records of a btsnoop capture held in memory.
///
/// `next()` returns `nil` at the clean end of the file and throws on a short or
/// impossible record; the records before it stay valid.
public struct BtsnoopReader {
    public let datalink: Btsnoop.Datalink
    private let bytes: [UInt8]
    private var position = Btsnoop.headerSize
    private var count = 0

    public init(_ bytes: [UInt8]) throws(DecodeError) {
        guard bytes.count >= Btsnoop.headerSize else { throw DecodeError(.truncated, at: bytes.count) }
        guard Array(bytes[0..<8]) == Btsnoop.magic else { throw DecodeError(.notBtsnoop, at: 0) }
        let header = bytes.withUnsafeBytes { raw -> (UInt32, UInt32) in
            var c = ByteCursor(UnsafeRawBufferPointer(rebasing: raw[8..<16]))
            return (c.readUInt32BE() ?? 0, c.readUInt32BE() ?? 0)
        }
        guard header.0 == Btsnoop.version else { throw DecodeError(.unsupportedBtsnoop, at: 8) }
        guard let datalink = Btsnoop.Datalink(rawValue: header.1) else { throw DecodeError(.unsupportedBtsnoop, at: 12) }
        self.bytes = bytes
        self.datalink = datalink
    }

    /// The next record, or `nil` at the end.
    public mutating func next() throws(DecodeError) -> BtsnoopRecord? {
        guard position < bytes.count else { return nil }
        let start = position
        let (fields, payload) = try bytes.withUnsafeBytes { raw in
            Self.readRecord(UnsafeRawBufferPointer(rebasing: raw[start...]), origin: start)
        }.get()
        var record = BtsnoopRecord(index: count, originalLength: fields.original, flags: fields.flags,
                                   drops: fields.drops, timestamp: fields.time, payload: payload,
                                   packetType: nil, direction: .received, adapterIndex: 0)
        try classify(&record, at: start)
        position = start + Btsnoop.recordHeaderSize + payload.count
        count += 1
        return record
    }

    /// Every record, and the error that stopped reading, if any. The datalink is `nil` only
    /// when the file header itself is bad; records read before a later error keep theirs.
    public static func records(in bytes: [UInt8]) -> (datalink: Btsnoop.Datalink?, records: [BtsnoopRecord], error: DecodeError?) {
        var records: [BtsnoopRecord] = []
        let reader: BtsnoopReader
        do throws(DecodeError) { reader = try BtsnoopReader(bytes) } catch { return (nil, [], error) }
        var rest = reader
        do throws(DecodeError) {
            while let record = try rest.next() { records.append(record) }
            return (reader.datalink, records, nil)
        } catch {
            return (reader.datalink, records, error)
        }
    }

    private typealias Fields = (original: UInt32, flags: UInt32, drops: UInt32, time: Int64)

    private static func readRecord(_ raw: UnsafeRawBufferPointer, origin: Int) -> Result<(Fields, [UInt8]), DecodeError> {
        var c = ByteCursor(raw, origin: origin)
        guard let original = c.readUInt32BE(), let included = c.readUInt32BE(), let flags = c.readUInt32BE(),
              let drops = c.readUInt32BE(), let time = c.readBigEndian(8) else { return .failure(DecodeError(.truncated, at: c.offset)) }
        guard let payload = c.readBytes(Int(included)) else { return .failure(DecodeError(.truncated, at: origin + 4)) }
        return .success(((original, flags, drops, Int64(bitPattern: time)), Array(payload)))
    }

    /// Packet type and direction, which each datalink spells differently.
    private func classify(_ record: inout BtsnoopRecord, at offset: Int) throws(DecodeError) {
        let received = record.flags & 1 != 0
        switch datalink {
        case .h4:
            guard let first = record.payload.first, let type = HCIPacketType(rawValue: first) else {
                throw DecodeError(.badPacketType, at: offset + Btsnoop.recordHeaderSize)
            }
            record.packetType = type
            record.direction = received ? .received : .sent
            record.storesIndicator = true
        case .h1:
            let commandOrEvent = record.flags & 2 != 0
            record.direction = received ? .received : .sent
            record.packetType = commandOrEvent ? (received ? .event : .command) : .acl
        case .monitor:
            record.adapterIndex = UInt16(truncatingIfNeeded: record.flags >> 16)
            (record.packetType, record.direction) = Self.monitorOpcode(UInt16(truncatingIfNeeded: record.flags))
        }
    }

    /// BlueZ monitor opcodes (src/shared/btsnoop.h) that carry HCI packets.
    static func monitorOpcode(_ opcode: UInt16) -> (HCIPacketType?, Btsnoop.Direction) {
        switch opcode {
        case 2: (.command, .sent)
        case 3: (.event, .received)
        case 4: (.acl, .sent)
        case 5: (.acl, .received)
        case 6: (.sco, .sent)
        case 7: (.sco, .received)
        case 18: (.iso, .sent)
        case 19: (.iso, .received)
        default: (nil, .received)
        }
    }
}
