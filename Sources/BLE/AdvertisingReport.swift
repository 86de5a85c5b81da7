/// One advertising report fully decoded: data copied out, every AD structure and the beacon
/// frame. Allocates; serves `whereabouts decode`, tests and reassembly, not the edge's hot path.
public struct AdvertisingReport: Hashable, Sendable {
    public var header: AdvertisingReportHeader
    public let data: [UInt8]
    /// The AD structures before the first lying length, if any.
    public let structures: [ADStructure]
    public let summary: ADSummary
    /// The first beacon frame in the data.
    public let frame: BeaconFrame?
    /// How many extended-report fragments were joined into this report (1 if none).
    public var fragments: Int = 1

    /// Decodes `data`; `dataOffset` is where it sits in the packet, for error offsets.
    public init(header: AdvertisingReportHeader, data: [UInt8], dataOffset: Int = 0) {
        self.header = header
        self.data = data
        let parsed = ADStructure.parse(data, origin: dataOffset)
        structures = parsed.structures
        summary = data.withUnsafeBytes { ADSummary($0, origin: dataOffset) }
        frame = parsed.structures.lazy.compactMap { s in
            s.value.withUnsafeBytes { BeaconFrame(adType: s.type, value: $0) }
        }.first
    }

    /// Copies a fast-path view.
    public init(_ view: borrowing AdvertisingReportView) {
        self.init(header: view.header, data: Array(view.data), dataOffset: view.dataOffset)
    }

    /// The AD length error that stopped the walk, if any.
    public var adError: DecodeError? { summary.error }

    /// See `AdvertisingReportView.identity`.
    public var identity: DeviceIdentity? {
        DeviceIdentity.of(frame: summary.frameIdentity, address: header.address, type: header.addressType)
    }

    /// See `AdvertisingReportView.txPower`.
    public var txPower: Int8? { summary.measuredPower ?? summary.txPowerLevel ?? header.reportedTxPower }

    /// Every report of one H4 packet, and the error that stopped decoding, if any.
    /// Packets that are not advertising report events give no reports and no error.
    public static func decode(h4 packet: [UInt8]) -> (reports: [AdvertisingReport], error: DecodeError?) {
        var reports: [AdvertisingReport] = []
        let error = packet.withUnsafeBytes { raw -> DecodeError? in
            do throws(DecodeError) { _ = try AdvertisingDecoder.forEachReport(h4: raw) { reports.append(AdvertisingReport($0)) } }
            catch { return error }
            return nil
        }
        return (reports, error)
    }

    /// As `decode(h4:)` for an event without the packet type byte.
    public static func decode(event: [UInt8]) -> (reports: [AdvertisingReport], error: DecodeError?) {
        var reports: [AdvertisingReport] = []
        let error = event.withUnsafeBytes { raw -> DecodeError? in
            do throws(DecodeError) { _ = try AdvertisingDecoder.forEachReport(event: raw) { reports.append(AdvertisingReport($0)) } }
            catch { return error }
            return nil
        }
        return (reports, error)
    }
}
