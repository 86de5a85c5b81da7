/// The controller's Supported_Commands bitmap (Vol 4 Part E 6.27): 64 octets, a bit per
/// command.
public struct SupportedCommands: Hashable, Sendable {
    public let octets: [UInt8]

    /// A command's place in the bitmap.
    public struct Bit: Hashable, Sendable {
        public let octet: Int
        public let bit: Int

        public init(octet: Int, bit: Int) {
            self.octet = octet
            self.bit = bit
        }

        public static let leSetExtendedScanParameters = Bit(octet: 37, bit: 5)
        public static let leSetExtendedScanEnable = Bit(octet: 37, bit: 6)
    }

    /// From Read Local Supported Commands' return parameters after the status.
    public init(returned: [UInt8]) throws(HCIError) {
        guard returned.count >= 64 else { throw HCIError(.malformedEvent, "Read Local Supported Commands: \(returned.count) of 64 octets") }
        octets = Array(returned.prefix(64))
    }

    public func supports(_ b: Bit) -> Bool {
        octets.indices.contains(b.octet) && octets[b.octet] & (1 << b.bit) != 0
    }

    /// Both extended scanning commands: a controller may list one without the other (the
    /// kernel's own `use_ext_scan` also asks for both), and a half is no use.
    public var extendedScanning: Bool {
        supports(.leSetExtendedScanParameters) && supports(.leSetExtendedScanEnable)
    }
}

/// The controller's LMP features page 0 (Vol 2 Part C 3.3): 8 octets.
public struct LocalFeatures: Hashable, Sendable {
    public let octets: [UInt8]

    /// From Read Local Supported Features' return parameters after the status.
    public init(returned: [UInt8]) throws(HCIError) {
        guard returned.count >= 8 else { throw HCIError(.malformedEvent, "Read Local Supported Features: \(returned.count) of 8 octets") }
        octets = Array(returned.prefix(8))
    }

    /// "LE Supported (Controller)", bit 38.
    public var leSupported: Bool { octets[4] & 0x40 != 0 }
}
