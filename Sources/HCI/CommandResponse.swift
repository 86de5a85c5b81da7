/// The controller's answer to a command: Command Complete (Vol 4 Part E 7.7.14) or Command
/// Status (7.7.15).
public struct CommandResponse: Hashable, Sendable {
    /// The command's status; 0 is success.
    public let status: UInt8
    /// Command Complete's return parameters after the status byte; empty for Command Status.
    public let returned: [UInt8]

    static let commandComplete: UInt8 = 0x0E
    static let commandStatus: UInt8 = 0x0F

    /// The answer to `opcode` in `packet` (an H4 event, packet type byte first), or `nil` when
    /// the packet is some other event or answers another command.
    public static func parse(h4 packet: UnsafeRawBufferPointer, for opcode: UInt16) throws(HCIError) -> CommandResponse? {
        guard packet.count >= 3, packet[0] == 0x04 else { return nil }
        let code = packet[1]
        guard code == commandComplete || code == commandStatus else { return nil }
        let length = Int(packet[2])
        guard packet.count == 3 + length else { throw HCIError(.malformedEvent, "event 0x\(hexByte(code)) length") }
        if code == commandStatus {
            // status, Num_HCI_Command_Packets, opcode
            guard length >= 4 else { throw HCIError(.malformedEvent, "Command Status") }
            guard opcodeAt(packet, 5) == opcode else { return nil }
            return CommandResponse(status: packet[3], returned: [])
        }
        // Num_HCI_Command_Packets, opcode, return parameters (status first for every command we send)
        guard length >= 3 else { throw HCIError(.malformedEvent, "Command Complete") }
        guard opcodeAt(packet, 4) == opcode else { return nil }
        guard length >= 4 else { throw HCIError(.malformedEvent, "Command Complete without a status") }
        return CommandResponse(status: packet[6], returned: Array(packet[7...]))
    }

    private static func opcodeAt(_ p: UnsafeRawBufferPointer, _ i: Int) -> UInt16 {
        UInt16(p[i]) | UInt16(p[i + 1]) << 8
    }
}

/// The controller status codes this module treats specially (Vol 1 Part F).
enum ControllerStatus {
    /// Command Disallowed: e.g. LE Set Scan Enable(off) when not scanning.
    static let commandDisallowed: UInt8 = 0x0C
}
