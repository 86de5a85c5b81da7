/// Joins the fragments of extended advertisements. A controller splits advertising data
/// longer than one event can hold into reports with data status "incomplete, more to come",
/// the last one "complete" or "truncated"; fragments of one advertisement share address,
/// address type and advertising set id (SID), and scan responses are kept apart from the
/// advertisements they answer.
public struct ExtendedReassembler {
    /// Which advertisement a fragment belongs to.
    public struct Key: Hashable, Sendable {
        public let address: BluetoothAddress
        public let addressType: AddressType
        public let sid: UInt8
        public let scanResponse: Bool

        public init(_ header: AdvertisingReportHeader) {
            address = header.address
            addressType = header.addressType
            sid = header.sid
            scanResponse = header.isScanResponse
        }
    }

    /// What became of a fragment given to `add`.
    public enum Outcome: Hashable, Sendable {
        /// A whole advertisement on its own: use the report as it is.
        case passThrough
        /// Held until the rest arrives.
        case pending
        /// The last fragment arrived: the joined advertisement.
        case joined(AdvertisingReport)
    }

    /// The most advertising data one advertisement may carry (Core Vol 6 Part B 2.3.4.9).
    public static let maximumLength = 1650

    /// The fragments so far and the header of the latest one.
    private struct Partial {
        var header: AdvertisingReportHeader
        var data: [UInt8] = []
        var fragments = 0
    }

    private var pending: [Key: Partial] = [:]
    private let maximumPending: Int
    /// Unfinished advertisements dropped to stay within `maximumPending`.
    public private(set) var dropped = 0

    public init(maximumPending: Int = 256) { self.maximumPending = max(1, maximumPending) }

    /// Advertisements waiting for more fragments.
    public var pendingCount: Int { pending.count }

    /// Feeds one report. Allocates only for reports that are, or close, a fragment chain.
    public mutating func add(_ view: borrowing AdvertisingReportView) -> Outcome {
        let header = view.header
        guard header.format == .extended else { return .passThrough }
        let key = Key(header)
        if header.dataStatus != .incomplete && pending[key] == nil { return .passThrough }
        var entry = pending.removeValue(forKey: key) ?? Partial(header: header)
        entry.header = header
        entry.data.append(contentsOf: view.data)
        entry.fragments += 1
        return finish(key, header, entry)
    }

    /// As `add(_:)` for a decoded report: returns the report to use, or `nil` while more
    /// fragments are expected.
    public mutating func add(_ report: AdvertisingReport) -> AdvertisingReport? {
        let outcome = report.data.withUnsafeBytes { raw in
            add(AdvertisingReportView(header: report.header, data: raw, dataOffset: 0, summary: report.summary))
        }
        switch outcome {
        case .passThrough: return report
        case .pending: return nil
        case .joined(let joined): return joined
        }
    }

    /// Hands over the advertisements still waiting for fragments (their data status stays
    /// incomplete) and forgets them: at the end of a capture, nothing more will come.
    public mutating func flush() -> [AdvertisingReport] {
        defer { pending.removeAll() }
        return pending.values.map { entry in
            var report = AdvertisingReport(header: entry.header, data: entry.data)
            report.fragments = entry.fragments
            return report
        }
    }

    private mutating func finish(_ key: Key, _ header: AdvertisingReportHeader, _ entry: Partial) -> Outcome {
        var last = header
        let overflow = entry.data.count > Self.maximumLength
        if header.dataStatus == .incomplete && !overflow {
            if pending.count >= maximumPending, let stale = pending.keys.first {
                pending.removeValue(forKey: stale)
                dropped += 1
            }
            pending[key] = entry
            return .pending
        }
        if overflow || header.dataStatus == .reserved {
            last.eventType = last.eventType & ~0x60 | UInt16(DataStatus.truncated.rawValue) << 5
        }
        var report = AdvertisingReport(header: last, data: Array(entry.data.prefix(Self.maximumLength)))
        report.fragments = entry.fragments
        return .joined(report)
    }
}
