/// An HCI command: opcode and parameters, and its H4 packet (Core Vol 4 Part E 5.4.1).
public struct HCICommand: Hashable, Sendable, CustomStringConvertible {
    public let opcode: UInt16
    public let parameters: [UInt8]
    /// The spec's name, for errors and logs.
    public let name: String

    public init(ogf: UInt8, ocf: UInt16, _ name: String, parameters: [UInt8] = []) {
        precondition(ocf < 0x400 && ogf < 0x40 && parameters.count <= 255, "an HCI opcode is 6 + 10 bits, parameters ≤ 255 bytes")
        opcode = UInt16(ogf) << 10 | ocf
        self.parameters = parameters
        self.name = name
    }

    /// Packet type 0x01, opcode (little-endian), parameter length, parameters.
    public var packet: [UInt8] {
        [HCICommand.packetType, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
    }

    public var description: String { name }

    static let packetType: UInt8 = 0x01
}

/// Passive scanning only listens; active scanning also asks scannable advertisers for their
/// scan response (more data, more air time, the advertiser sees us).
public enum ScanMode: UInt8, Sendable, CustomStringConvertible {
    case passive = 0
    case active = 1

    public var description: String { self == .passive ? "passive" : "active" }
}

/// How the controller scans: timing in units of 0.625 ms.
public struct ScanParameters: Hashable, Sendable {
    public var mode: ScanMode
    /// How often the controller starts listening on the next channel.
    public var interval: UInt16
    /// How long it listens each time; equal to `interval` means all the time.
    public var window: UInt16

    /// 60 ms interval and window: the radio listens all the time, as a node with mains power
    /// should, changing channel every 60 ms (BlueZ's own LE scan interval).
    public init(mode: ScanMode = .passive, interval: UInt16 = 0x0060, window: UInt16 = 0x0060) {
        self.mode = mode
        self.interval = interval
        self.window = window
    }
}

extension HCICommand {
    static let ogfInformational: UInt8 = 0x04
    static let ogfLE: UInt8 = 0x08

    /// Read Local Supported Commands (Vol 4 Part E 7.4.2): the 64-octet bitmap.
    public static let readLocalSupportedCommands = HCICommand(ogf: ogfInformational, ocf: 0x0002, "Read Local Supported Commands")
    /// Read Local Supported Features (7.4.3): the LMP feature bits, LE among them.
    public static let readLocalSupportedFeatures = HCICommand(ogf: ogfInformational, ocf: 0x0003, "Read Local Supported Features")

    /// LE Set Scan Parameters (7.8.10): public own address, accept all advertisers.
    public static func leSetScanParameters(_ p: ScanParameters) -> HCICommand {
        HCICommand(ogf: ogfLE, ocf: 0x000B, "LE Set Scan Parameters",
                   parameters: [p.mode.rawValue] + le16(p.interval) + le16(p.window) + [0x00, 0x00])
    }

    /// LE Set Scan Enable (7.8.11) with duplicate filtering off: every advertisement is a
    /// reading, not just the first of each device.
    public static func leSetScanEnable(_ enable: Bool) -> HCICommand {
        HCICommand(ogf: ogfLE, ocf: 0x000C, "LE Set Scan Enable", parameters: [enable ? 1 : 0, 0x00])
    }

    /// LE Set Extended Scan Parameters (7.8.64) on the LE 1M PHY only: public own address,
    /// accept all.
    public static func leSetExtendedScanParameters(_ p: ScanParameters) -> HCICommand {
        HCICommand(ogf: ogfLE, ocf: 0x0041, "LE Set Extended Scan Parameters",
                   parameters: [0x00, 0x00, 0x01, p.mode.rawValue] + le16(p.interval) + le16(p.window))
    }

    /// LE Set Extended Scan Enable (7.8.65): duplicates off, no duration, no period
    /// (scan until told to stop).
    public static func leSetExtendedScanEnable(_ enable: Bool) -> HCICommand {
        HCICommand(ogf: ogfLE, ocf: 0x0042, "LE Set Extended Scan Enable",
                   parameters: [enable ? 1 : 0, 0x00, 0x00, 0x00, 0x00, 0x00])
    }
}

private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
