/// The header the kernel puts before each packet on the HCI monitor channel (as `btmon`
/// reads it): opcode, controller index, payload length, all little-endian u16.
public struct MonitorHeader: Hashable, Sendable {
    public static let size = 6

    public let opcode: UInt16
    public let index: UInt16
    public let length: UInt16

    /// The monitor opcode of an HCI event (`HCI_MON_EVENT_PKT` in
    /// `include/net/bluetooth/hci_mon.h`); the payload is the event without the H4 packet type byte.
    public static let eventPacket: UInt16 = 3

    public init(opcode: UInt16, index: UInt16, length: UInt16) {
        self.opcode = opcode
        self.index = index
        self.length = length
    }

    /// `nil` when fewer than six bytes.
    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.size else { return nil }
        opcode = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        index = UInt16(bytes[2]) | UInt16(bytes[3]) << 8
        length = UInt16(bytes[4]) | UInt16(bytes[5]) << 8
    }
}
