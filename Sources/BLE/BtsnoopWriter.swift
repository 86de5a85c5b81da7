/// Builds a btsnoop capture in memory. The simulator writes the bytes to a file; `drain()`
/// hands over what has accumulated so long captures can be written as they grow.
public struct BtsnoopWriter {
    public let datalink: Btsnoop.Datalink
    public private(set) var bytes: [UInt8] = []

    /// Starts a capture with its 16-byte file header.
    public init(datalink: Btsnoop.Datalink = .h4) {
        self.datalink = datalink
        bytes = Btsnoop.magic
        appendBigEndian(UInt64(Btsnoop.version), 4)
        appendBigEndian(UInt64(datalink.rawValue), 4)
    }

    /// Appends one HCI packet given without its H4 indicator. `unixMicroseconds` is the
    /// capture time; `adapterIndex` is kept by the monitor datalink only.
    public mutating func append(_ type: HCIPacketType, _ packet: some Collection<UInt8>,
                                unixMicroseconds: Int64, adapterIndex: UInt16 = 0) {
        // A scanner's capture: commands go out, everything else comes in.
        append(type, packet, direction: type == .command ? .sent : .received,
               unixMicroseconds: unixMicroseconds, adapterIndex: adapterIndex)
    }

    public mutating func append(_ type: HCIPacketType, _ packet: some Collection<UInt8>, direction: Btsnoop.Direction,
                                unixMicroseconds: Int64, adapterIndex: UInt16 = 0) {
        let withIndicator = datalink == .h4
        let length = UInt64(packet.count + (withIndicator ? 1 : 0))
        appendBigEndian(length, 4)  // original length
        appendBigEndian(length, 4)  // included length
        appendBigEndian(UInt64(flags(type, direction, adapterIndex)), 4)
        appendBigEndian(0, 4)  // cumulative drops
        appendBigEndian(UInt64(bitPattern: unixMicroseconds + Btsnoop.unixEpochOffset), 8)
        if withIndicator { bytes.append(type.rawValue) }
        bytes.append(contentsOf: packet)
    }

    /// Returns the bytes written so far and forgets them (the header included, once).
    public mutating func drain() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    private func flags(_ type: HCIPacketType, _ direction: Btsnoop.Direction, _ index: UInt16) -> UInt32 {
        let received: UInt32 = direction == .received ? 1 : 0
        switch datalink {
        case .h1, .h4:
            return (type == .command || type == .event ? 2 : 0) | received
        case .monitor:
            let opcode: UInt32 = switch type {
            case .command: 2
            case .event: 3
            case .acl: 4 + received
            case .sco: 6 + received
            case .iso: 18 + received
            }
            return UInt32(index) << 16 | opcode
        }
    }

    private mutating func appendBigEndian(_ value: UInt64, _ count: Int) {
        for i in stride(from: count - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i)))
        }
    }
}
