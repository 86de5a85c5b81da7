/// The kernel's per-socket HCI filter (`struct hci_filter`, `SOL_HCI`/`HCI_FILTER`): which
/// packet types and event codes a raw socket receives.
public struct EventFilter: Hashable, Sendable {
    /// Bit n set: packets of type n pass.
    public var typeMask: UInt32
    /// Bit (code & 63) set: events with that code pass. The kernel keeps 64 bits, so codes
    /// 64 apart share a bit (0xFD, the stack-internal event, shares with 0x3D).
    public var eventMask: (UInt32, UInt32)
    /// When non-zero, Command Complete/Status events pass only for this opcode.
    public var opcode: UInt16

    public init(typeMask: UInt32 = 0, eventMask: (UInt32, UInt32) = (0, 0), opcode: UInt16 = 0) {
        self.typeMask = typeMask
        self.eventMask = eventMask
        self.opcode = opcode
    }

    /// Events only, of these codes.
    public init(events codes: [UInt8]) {
        self.init(typeMask: 1 << UInt32(HCIPacket.event))
        for code in codes { allow(event: code) }
    }

    public mutating func allow(event code: UInt8) {
        let bit = UInt32(code & 63)
        if bit < 32 { eventMask.0 |= 1 << bit } else { eventMask.1 |= 1 << (bit - 32) }
    }

    /// Whether the kernel would hand this H4 packet to the socket (`is_filtered_packet` in
    /// `net/bluetooth/hci_sock.c`, for events).
    public func passes(h4 packet: UnsafeRawBufferPointer) -> Bool {
        guard let type = packet.first, type < 32, typeMask & (1 << UInt32(type)) != 0 else { return false }
        guard type == HCIPacket.event else { return true }
        guard packet.count >= 2 else { return false }
        let code = packet[1]
        let bit = UInt32(code & 63)
        guard (bit < 32 ? eventMask.0 >> bit : eventMask.1 >> (bit - 32)) & 1 != 0 else { return false }
        guard opcode != 0, code == CommandResponse.commandComplete || code == CommandResponse.commandStatus else { return true }
        let at = code == CommandResponse.commandComplete ? 4 : 5
        guard packet.count >= at + 2 else { return false }
        return UInt16(packet[at]) | UInt16(packet[at + 1]) << 8 == opcode
    }

    /// What the scanning socket needs: the answers to its commands and LE Meta events.
    public static let scanning = EventFilter(events: [CommandResponse.commandComplete, CommandResponse.commandStatus, HCIPacket.leMetaEvent])
    /// What the watching socket needs: the kernel's own device events.
    public static let deviceEvents = EventFilter(events: [AdapterEvent.stackInternal])

    public static func == (a: EventFilter, b: EventFilter) -> Bool {
        a.typeMask == b.typeMask && a.eventMask == b.eventMask && a.opcode == b.opcode
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeMask)
        hasher.combine(eventMask.0)
        hasher.combine(eventMask.1)
        hasher.combine(opcode)
    }
}

enum HCIPacket {
    static let event: UInt8 = 0x04
    static let leMetaEvent: UInt8 = 0x3E
}
