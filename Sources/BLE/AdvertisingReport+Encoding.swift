/// Building LE Advertising Report events (Core Vol 4 Part E 7.7.65.2), the inverse of
/// `AdvertisingDecoder` for legacy reports: the simulator writes what a controller would send.
extension AdvertisingReport {
    /// The largest advertising data a legacy report carries (Core Vol 6 Part B 2.3.1).
    public static let maxLegacyDataLength = 31

    /// Appends one LE Meta event holding a single legacy advertising report, without the H4
    /// indicator (as `BtsnoopWriter.append` takes it): event code, length, subevent 0x02,
    /// count 1, then the report laid out as controllers and the kernel lay it out.
    ///
    /// `data` longer than 31 bytes is cut to 31, as a controller never reports more.
    /// `rssi` `nil` writes 127, "not available".
    public static func appendLegacyEvent(eventType: UInt8, addressType: AddressType, address: BluetoothAddress,
                                         data: some Collection<UInt8>, rssi: Int8?, to out: inout [UInt8]) {
        let length = min(data.count, maxLegacyDataLength)
        // subevent, count, type, address type, 6 address bytes, length, data, RSSI.
        let parameterLength = 2 + 1 + 1 + 6 + 1 + length + 1
        out.append(AdvertisingDecoder.leMetaEvent)
        out.append(UInt8(parameterLength))
        out.append(AdvertisingDecoder.advertisingReport)
        out.append(1)
        out.append(eventType)
        out.append(addressType.rawValue)
        for i in 0..<6 { out.append(UInt8(truncatingIfNeeded: address.rawValue >> UInt64(8 * i))) }
        out.append(UInt8(length))
        out.append(contentsOf: data.prefix(length))
        out.append(UInt8(bitPattern: rssi ?? 127))
    }
}
