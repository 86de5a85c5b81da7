/// The kernel's own news about an adapter (`HCI_EV_STACK_INTERNAL` / `HCI_EV_SI_DEVICE`),
/// sent to raw sockets bound to no device: this is how a scanning socket, which the kernel
/// leaves silent when its adapter goes down, learns about it.
public struct AdapterEvent: Hashable, Sendable {
    public enum Kind: UInt16, Sendable {
        case registered = 1
        case unregistered = 2
        case up = 3
        case down = 4
    }

    public let kind: Kind
    /// The adapter's index: 0 for hci0.
    public let index: UInt16

    static let stackInternal: UInt8 = 0xFD
    static let deviceEvent: UInt16 = 0x0001

    /// From an H4 event packet: 04 FD 06, type (u16), event (u16), device id (u16). `nil`
    /// for any other packet.
    public init?(h4 p: UnsafeRawBufferPointer) {
        guard p.count == 9, p[0] == HCIPacket.event, p[1] == Self.stackInternal, p[2] == 6,
              UInt16(p[3]) | UInt16(p[4]) << 8 == Self.deviceEvent,
              let kind = Kind(rawValue: UInt16(p[5]) | UInt16(p[6]) << 8) else { return nil }
        self.kind = kind
        index = UInt16(p[7]) | UInt16(p[8]) << 8
    }
}
