/// One advertising report as the fast path sees it: borrowed, fixed-size, no allocation.
///
/// `data` points into the caller's packet and is valid only during the callback; copy what
/// must outlive it.
public struct AdvertisingReportView {
    public var header: AdvertisingReportHeader
    /// The advertising data (AD structures) of this report.
    public var data: UnsafeRawBufferPointer
    /// Offset of `data` in the packet the decoder was given.
    public var dataOffset: Int
    /// What the AD structures say; see `ADSummary`.
    public var summary: ADSummary

    /// The device identity: the beacon frame's, else the address when public or static.
    public var identity: DeviceIdentity? {
        DeviceIdentity.of(frame: summary.frameIdentity, address: header.address, type: header.addressType)
    }

    /// Measured power at 1 m from a beacon frame, else the AD TX Power Level, else the TX
    /// power of an extended report's header.
    public var txPower: Int8? { summary.measuredPower ?? summary.txPowerLevel ?? header.reportedTxPower }
}

/// Decodes LE advertising reports straight out of HCI event bytes without allocating.
///
/// Layout note: the Core spec (Vol 4 Part E 7.7.65.2) draws a multi-report event as
/// parallel arrays, but controllers, the Linux kernel (`hci_le_adv_report_evt`) and BlueZ's
/// `monitor/packet.c` all lay reports out one after another, each with its own data and RSSI.
/// Real captures (one report per event in every fixture) cannot tell the two apart; this
/// decoder follows the kernel, since the kernel is what hands these bytes to the edge.
public enum AdvertisingDecoder {
    public static let leMetaEvent: UInt8 = 0x3E
    public static let advertisingReport: UInt8 = 0x02
    public static let extendedAdvertisingReport: UInt8 = 0x0D

    /// Calls `body` for each advertising report in an H4 packet (first byte the packet
    /// type) and returns how many it delivered. Packets that are not LE advertising report
    /// events give 0 reports. A malformed event throws after delivering the reports before
    /// the fault; offsets count from the packet type byte.
    public static func forEachReport(h4 packet: UnsafeRawBufferPointer,
                                     _ body: (borrowing AdvertisingReportView) -> Void) throws(DecodeError) -> Int {
        guard let indicator = packet.first, (1...5).contains(indicator) else {
            throw DecodeError(.badPacketType, at: 0)
        }
        guard indicator == HCIPacketType.event.rawValue else { return 0 }
        return try forEachReport(event: UnsafeRawBufferPointer(rebasing: packet[1...]), origin: 1, body)
    }

    /// As `forEachReport(h4:)` for an event without the packet type byte (event code first),
    /// as the HCI monitor channel and btsnoop datalink 2001 give it.
    public static func forEachReport(event: UnsafeRawBufferPointer, origin: Int = 0,
                                     _ body: (borrowing AdvertisingReportView) -> Void) throws(DecodeError) -> Int {
        var c = ByteCursor(event, origin: origin)
        guard let code = c.readUInt8(), let length = c.readUInt8() else { throw DecodeError(.truncated, at: c.offset) }
        guard code == leMetaEvent else { return 0 }
        guard Int(length) <= c.remaining else { throw DecodeError(.truncated, at: origin + 1) }
        guard Int(length) == c.remaining else { throw DecodeError(.lengthMismatch, at: origin + 1) }
        guard let subevent = c.readUInt8() else { throw DecodeError(.truncated, at: c.offset) }
        switch subevent {
        case advertisingReport: return try reports(&c, extended: false, body)
        case extendedAdvertisingReport: return try reports(&c, extended: true, body)
        default: return 0
        }
    }

    private static func reports(_ c: inout ByteCursor, extended: Bool,
                                _ body: (borrowing AdvertisingReportView) -> Void) throws(DecodeError) -> Int {
        guard let count = c.readUInt8() else { throw DecodeError(.truncated, at: c.offset) }
        for _ in 0..<count {
            let header = try extended ? extendedHeader(&c) : legacyHeader(&c)
            let lengthOffset = c.offset
            guard let length = c.readUInt8() else { throw DecodeError(.truncated, at: lengthOffset) }
            guard let data = c.readBytes(Int(length)) else { throw DecodeError(.truncated, at: lengthOffset) }
            var view = AdvertisingReportView(header: header, data: data, dataOffset: lengthOffset + 1,
                                             summary: ADSummary(data, origin: lengthOffset + 1))
            if !extended {
                guard let rssi = c.readInt8() else { throw DecodeError(.truncated, at: c.offset) }
                view.header.rssi = rssi == 127 ? nil : rssi
            }
            body(view)
        }
        return Int(count)
    }

    /// Event type, address type and address; the RSSI follows the data.
    private static func legacyHeader(_ c: inout ByteCursor) throws(DecodeError) -> AdvertisingReportHeader {
        guard let type = c.readUInt8(), let addressType = c.readUInt8(), let address = c.readLittleEndian(6) else {
            throw DecodeError(.truncated, at: c.offset)
        }
        return AdvertisingReportHeader(format: .legacy, eventType: UInt16(type), addressType: AddressType(rawValue: addressType),
                                       address: BluetoothAddress(rawValue: address), rssi: nil)
    }

    /// The 24 bytes before an extended report's data length (Core Vol 4 Part E 7.7.65.13).
    private static func extendedHeader(_ c: inout ByteCursor) throws(DecodeError) -> AdvertisingReportHeader {
        guard c.remaining >= 23, let type = c.readUInt16LE(), let addressType = c.readUInt8(),
              let address = c.readLittleEndian(6), let primary = c.readUInt8(), let secondary = c.readUInt8(),
              let sid = c.readUInt8(), let tx = c.readInt8(), let rssi = c.readInt8(),
              let interval = c.readUInt16LE(), let directType = c.readUInt8(), let direct = c.readLittleEndian(6) else {
            throw DecodeError(.truncated, at: c.offset)
        }
        var h = AdvertisingReportHeader(format: .extended, eventType: type, addressType: AddressType(rawValue: addressType),
                                        address: BluetoothAddress(rawValue: address), rssi: rssi == 127 ? nil : rssi)
        h.primaryPHY = primary
        h.secondaryPHY = secondary
        h.sid = sid
        h.reportedTxPower = tx == 127 ? nil : tx
        h.periodicInterval = interval
        if h.isDirected {
            h.directAddressType = AddressType(rawValue: directType)
            h.directAddress = BluetoothAddress(rawValue: direct)
        }
        return h
    }
}
