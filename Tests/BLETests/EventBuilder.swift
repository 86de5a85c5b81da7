import BLE

/// Builds HCI events byte by byte from the Core spec layouts, for cases no capture holds.
enum EventBuilder {
    /// An H4 LE Meta event around `parameters` (subevent code first).
    static func leMeta(_ parameters: [UInt8]) -> [UInt8] {
        [0x04, 0x3E, UInt8(parameters.count)] + parameters
    }

    /// One legacy report (Core Vol 4 Part E 7.7.65.2), laid out as controllers send it.
    static func legacyReport(type: UInt8 = 0, addressType: UInt8 = 0, address: UInt64, data: [UInt8], rssi: Int8) -> [UInt8] {
        [type, addressType] + littleEndian(address, 6) + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
    }

    static func legacyEvent(_ reports: [[UInt8]]) -> [UInt8] {
        leMeta([0x02, UInt8(reports.count)] + reports.flatMap { $0 })
    }

    /// One extended report (Core Vol 4 Part E 7.7.65.13).
    static func extendedReport(eventType: UInt16, addressType: UInt8 = 1, address: UInt64, primaryPHY: UInt8 = 1,
                               secondaryPHY: UInt8 = 2, sid: UInt8 = 3, txPower: Int8 = 127, rssi: Int8 = -60,
                               interval: UInt16 = 0, directType: UInt8 = 0, direct: UInt64 = 0, data: [UInt8]) -> [UInt8] {
        littleEndian(UInt64(eventType), 2) + [addressType] + littleEndian(address, 6)
            + [primaryPHY, secondaryPHY, sid, UInt8(bitPattern: txPower), UInt8(bitPattern: rssi)]
            + littleEndian(UInt64(interval), 2) + [directType] + littleEndian(direct, 6) + [UInt8(data.count)] + data
    }

    static func extendedEvent(_ reports: [[UInt8]]) -> [UInt8] {
        leMeta([0x0D, UInt8(reports.count)] + reports.flatMap { $0 })
    }

    /// An AD structure: length, type, value.
    static func ad(_ type: UInt8, _ value: [UInt8]) -> [UInt8] { [UInt8(value.count + 1), type] + value }

    /// Eddystone service data: 16-bit UUID 0xFEAA (little-endian), frame type, body.
    static func eddystone(_ frameType: UInt8, _ body: [UInt8]) -> [UInt8] {
        ad(0x03, [0xAA, 0xFE]) + ad(0x16, [0xAA, 0xFE, frameType] + body)
    }

    static func littleEndian(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
}
