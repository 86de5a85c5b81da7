/// A 48-bit Bluetooth device address, held as the number its text form spells
/// (`aa:bb:cc:dd:ee:ff` is `0xaabbccddeeff`). HCI sends it little-endian.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFFFF_FFFF_FFFF }

    /// Parses `aa:bb:cc:dd:ee:ff` (either case, `:` or `-` separators).
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(byte)
        }
        self.rawValue = value
    }

    /// The most significant byte, whose top two bits tell a random address's kind.
    public var mostSignificantByte: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 40) }

    /// Lower-case `aa:bb:cc:dd:ee:ff`.
    public var description: String {
        var out: [UInt8] = []
        out.reserveCapacity(17)
        appendText(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func appendText(to out: inout [UInt8]) {
        for shift in stride(from: 40, through: 0, by: -8) {
            if shift != 40 { out.append(UInt8(ascii: ":")) }
            appendHex(UInt8(truncatingIfNeeded: rawValue >> UInt64(shift)), to: &out)
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// The address type byte of an advertising report (Core Vol 4 Part E 7.7.65.2 / 7.7.65.13).
public struct AddressType: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let publicDevice = AddressType(rawValue: 0)
    public static let randomDevice = AddressType(rawValue: 1)
    /// A public identity address the controller resolved from a resolvable private address.
    public static let publicIdentity = AddressType(rawValue: 2)
    /// A static random identity address the controller resolved.
    public static let randomIdentity = AddressType(rawValue: 3)
    /// Extended reports only: no address was sent (anonymous advertising).
    public static let anonymous = AddressType(rawValue: 0xFF)

    public var description: String {
        switch rawValue {
        case 0: "public"
        case 1: "random"
        case 2: "public identity"
        case 3: "random identity"
        case 0xFF: "anonymous"
        default: "reserved"
        }
    }
}

/// What a random address is, from its two most significant bits (Core Vol 6 Part B 1.3.2).
public enum RandomAddressKind: UInt8, Hashable, Sendable, CustomStringConvertible {
    case nonResolvable = 0b00
    case resolvable = 0b01
    case reserved = 0b10
    case staticAddress = 0b11

    public init(_ address: BluetoothAddress) {
        // Two bits always match one of the four cases.
        self = RandomAddressKind(rawValue: address.mostSignificantByte >> 6) ?? .reserved
    }

    /// `static`, `resolvable`, `non-resolvable` or `reserved`.
    public var description: String {
        switch self {
        case .nonResolvable: "non-resolvable"
        case .resolvable: "resolvable"
        case .reserved: "reserved"
        case .staticAddress: "static"
        }
    }
}

extension AddressType {
    /// The kind of a random address of this type; `nil` for public addresses.
    /// A random identity address is static by definition, whatever its bits say.
    public func randomKind(of address: BluetoothAddress) -> RandomAddressKind? {
        switch rawValue {
        case 1: RandomAddressKind(address)
        case 3: .staticAddress
        default: nil
        }
    }
}

@inline(__always)
func appendHex(_ byte: UInt8, to out: inout [UInt8]) {
    out.append(hexDigit(byte >> 4))
    out.append(hexDigit(byte & 0x0F))
}

/// The low `count` bytes of `value` as hex, most significant first.
func appendHexBytes(_ value: UInt64, count: Int, to out: inout [UInt8]) {
    for i in stride(from: count - 1, through: 0, by: -1) {
        appendHex(UInt8(truncatingIfNeeded: value >> UInt64(8 * i)), to: &out)
    }
}

@inline(__always)
func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
}
