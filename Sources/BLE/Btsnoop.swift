/// btsnoop capture files (RFC 1761 layout, as BlueZ `src/shared/btsnoop.c`, Android and
/// Wireshark use it): a 16-byte header, then records of 24 big-endian header bytes and the
/// packet. Pure over bytes: reading and writing files is the caller's business.
public enum Btsnoop {
    static let magic: [UInt8] = Array("btsnoop\0".utf8)
    static let version: UInt32 = 1
    /// Microseconds from 0000-01-01 (the btsnoop epoch) to 1970-01-01.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000
    /// Bytes of the file header (magic, version, datalink): what tells a capture from any other file.
    public static let headerSize = 16
    static let recordHeaderSize = 24

    /// The link type of a capture.
    public enum Datalink: UInt32, Hashable, Sendable {
        /// Packets without the H4 indicator; flags tell command/event and direction.
        case h1 = 1001
        /// Packets with the H4 indicator byte (Android's snoop log).
        case h4 = 1002
        /// BlueZ monitor (`btmon -w`): flags hold the adapter index and an opcode.
        case monitor = 2001
    }

    /// What a record carries, from the datalink and the record's flags.
    public enum Direction: Hashable, Sendable {
        /// Host to controller.
        case sent
        /// Controller to host.
        case received
    }
}

/// One record of a btsnoop capture.
public struct BtsnoopRecord: Hashable, Sendable {
    /// 0-based position in the file.
    public var index: Int
    public var originalLength: UInt32
    public var flags: UInt32
    public var drops: UInt32
    /// Microseconds since the btsnoop epoch (year 0).
    public var timestamp: Int64
    /// The record's bytes as stored (with the H4 indicator only for datalink 1002).
    public var payload: [UInt8]
    /// The HCI packet type, or `nil` for a monitor record that is not an HCI packet.
    public var packetType: HCIPacketType?
    public var direction: Btsnoop.Direction
    /// The controller index of a monitor (2001) record; 0 otherwise.
    public var adapterIndex: UInt16

    /// Unix time in seconds.
    public var unixTime: Double {
        // A damaged record may hold any 64 bits: subtracting the epoch then overflows, and
        // only then is the (less exact) floating-point difference used.
        let (micros, overflow) = timestamp.subtractingReportingOverflow(Btsnoop.unixEpochOffset)
        return overflow ? (Double(timestamp) - Double(Btsnoop.unixEpochOffset)) / 1_000_000 : Double(micros) / 1_000_000
    }

    /// The packet with its H4 indicator byte in front, whatever the datalink stored.
    public var h4: [UInt8]? {
        guard let packetType else { return nil }
        if storesIndicator { return payload }
        return [packetType.rawValue] + payload
    }

    /// Whether `payload` starts with the H4 indicator (datalink 1002 only).
    var storesIndicator: Bool = false
}
