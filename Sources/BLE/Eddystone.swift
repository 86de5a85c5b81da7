/// The common head of an Eddystone frame: 16-bit service data for 0xFEAA, then a frame type.
struct EddystoneFrame {
    static let uid: UInt8 = 0x00
    static let url: UInt8 = 0x10
    static let tlm: UInt8 = 0x20
    static let eid: UInt8 = 0x30

    let type: UInt8
    /// The bytes after the frame type.
    var body: ByteCursor

    /// `value` is the service data AD value, UUID included.
    init?(serviceData value: UnsafeRawBufferPointer) {
        var c = ByteCursor(value)
        guard c.readUInt16LE() == 0xFEAA, let type = c.readUInt8() else { return nil }
        self.type = type
        self.body = c
    }
}

/// The 10-byte namespace of an Eddystone-UID, held as 2 + 8 bytes so it needs no allocation.
public struct EddystoneNamespace: Hashable, Sendable {
    public let high: UInt16
    public let low: UInt64

    public init(high: UInt16, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// 20 lower-case hex digits.
    public var hex: String {
        var out: [UInt8] = []
        out.reserveCapacity(20)
        appendHex(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func appendHex(to out: inout [UInt8]) {
        appendHexBytes(UInt64(high), count: 2, to: &out)
        appendHexBytes(low, count: 8, to: &out)
    }
}

/// Eddystone-UID: TX power at 0 m, a 10-byte namespace and a 6-byte instance.
public struct EddystoneUID: Hashable, Sendable {
    public let txPowerAt0m: Int8
    public let namespace: EddystoneNamespace
    /// The 6-byte instance as a number (first byte most significant).
    public let instance: UInt64

    init?(_ frame: EddystoneFrame) {
        var c = frame.body
        guard frame.type == EddystoneFrame.uid, let tx = c.readInt8(), let nsHigh = c.readUInt16BE(),
              let nsLow = c.readBigEndian(8), let instance = c.readBigEndian(6) else { return nil }
        (txPowerAt0m, namespace, self.instance) = (tx, EddystoneNamespace(high: nsHigh, low: nsLow), instance)
    }
}

/// Eddystone-URL: TX power at 0 m and a URL compressed with a scheme byte and expansion codes.
public struct EddystoneURL: Hashable, Sendable {
    public let txPowerAt0m: Int8
    public let scheme: UInt8
    /// The compressed URL after the scheme byte.
    public let encoded: [UInt8]

    init?(_ frame: EddystoneFrame) {
        var c = frame.body
        guard frame.type == EddystoneFrame.url, let tx = c.readInt8(), let scheme = c.readUInt8(),
              let rest = c.readBytes(c.remaining) else { return nil }
        (txPowerAt0m, self.scheme, encoded) = (tx, scheme, Array(rest))
    }

    static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    static let expansions = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                             ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]

    /// The expanded URL, or `nil` when the scheme or a byte is one the spec reserves.
    public var url: String? {
        guard Int(scheme) < Self.schemes.count else { return nil }
        var text = Self.schemes[Int(scheme)]
        for byte in encoded {
            if Int(byte) < Self.expansions.count {
                text += Self.expansions[Int(byte)]
            } else if byte > 0x20 && byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                return nil
            }
        }
        return text
    }
}

/// Eddystone-TLM: telemetry, plain (version 0) or encrypted (version 1, for EID beacons).
public enum EddystoneTLM: Hashable, Sendable {
    case plain(EddystoneTelemetry)
    case encrypted(EncryptedTelemetry)

    init?(_ frame: EddystoneFrame) {
        var c = frame.body
        guard frame.type == EddystoneFrame.tlm, let version = c.readUInt8() else { return nil }
        switch version {
        case 0x00:
            guard let volts = c.readUInt16BE(), let temp = c.readUInt16BE(),
                  let count = c.readUInt32BE(), let uptime = c.readUInt32BE() else { return nil }
            self = .plain(EddystoneTelemetry(batteryMillivolts: volts, temperatureRaw: Int16(bitPattern: temp),
                                             advertisingCount: count, uptimeDeciseconds: uptime))
        case 0x01:
            guard let high = c.readBigEndian(8), let low = c.readUInt32BE(),
                  let salt = c.readUInt16BE(), let mic = c.readUInt16BE() else { return nil }
            self = .encrypted(EncryptedTelemetry(etlmHigh: high, etlmLow: low, salt: salt, check: mic))
        default:
            return nil
        }
    }
}

/// Plain TLM fields. Zero battery voltage and temperature `0x8000` mean "not supported".
public struct EddystoneTelemetry: Hashable, Sendable {
    public let batteryMillivolts: UInt16
    /// Signed 8.8 fixed point degrees Celsius.
    public let temperatureRaw: Int16
    public let advertisingCount: UInt32
    /// Time since power-on, in 0.1 s.
    public let uptimeDeciseconds: UInt32

    public var temperature: Double? {
        temperatureRaw == Int16.min ? nil : Double(temperatureRaw) / 256
    }
}

/// Encrypted TLM: 12 bytes of ciphertext, a 16-bit salt and a 16-bit integrity check.
public struct EncryptedTelemetry: Hashable, Sendable {
    public let etlmHigh: UInt64
    public let etlmLow: UInt32
    public let salt: UInt16
    public let check: UInt16

    /// The 12 ciphertext bytes.
    public var etlm: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: etlmHigh >> UInt64(56 - 8 * $0)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: etlmLow >> UInt32(24 - 8 * $0)) }
    }
}

/// Eddystone-EID: TX power at 0 m and an 8-byte ephemeral id that rotates.
public struct EddystoneEID: Hashable, Sendable {
    public let txPowerAt0m: Int8
    public let eid: UInt64

    init?(_ frame: EddystoneFrame) {
        var c = frame.body
        guard frame.type == EddystoneFrame.eid, let tx = c.readInt8(), let eid = c.readBigEndian(8) else { return nil }
        (txPowerAt0m, self.eid) = (tx, eid)
    }
}
