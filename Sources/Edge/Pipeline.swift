import BLE
import Wire

/// Decoded report → identity → filters → reading, on the source's thread.
///
/// Ids and address strings are formatted once per device and cached, so the steady state
/// allocates nothing per advertisement beyond what the publisher's queue already holds.
final class Pipeline {
    private struct Device {
        let id: String
        let kind: ReadingKind
        let allowed: Bool
        /// Its readings' partition (docs/protocol.md, Partitions and shards), hashed once.
        let partition: Int
        var lastAccepted: Double?
    }

    /// Caches are cleared when they grow past this, so a crowd of passing phones cannot
    /// grow memory without bound.
    private static let cacheLimit = 20_000

    private let rules: ReadingFilter.Rules
    private let counters: EdgeCounters
    private let printer: ReportPrinter?
    private let partitions: Partitioning
    private let deliver: (Reading, Int) -> Void
    private var devices: [DeviceIdentity: Device] = [:]
    private var macs: [BluetoothAddress: String] = [:]
    /// Phones, one per configured key (in the resolver's order).
    private let resolver: IRKResolver?
    private var phones: [Device]

    /// `deliver` takes each reading with its partition of `partitions`.
    init(rules: ReadingFilter.Rules, counters: EdgeCounters, printer: ReportPrinter?, resolver: IRKResolver? = nil,
         partitions: Partitioning = .single, deliver: @escaping (Reading, Int) -> Void) {
        self.rules = rules
        self.partitions = partitions
        self.counters = counters
        self.printer = printer
        self.deliver = deliver
        self.resolver = resolver.flatMap { $0.isEmpty ? nil : $0 }
        phones = (resolver?.ids ?? []).map {
            Device(id: $0, kind: .irk, allowed: rules.allows(id: $0), partition: partitions.partition(of: $0), lastAccepted: nil)
        }
    }

    /// Handles one H4 packet heard at Unix time `t`; a malformed packet is counted and its
    /// well-formed reports (those before the fault) are still used.
    func handle(h4 packet: UnsafeRawBufferPointer, at t: Double) {
        do {
            let n = try AdvertisingDecoder.forEachReport(h4: packet) { report in handle(report, at: t) }
            counters.adverts.add(UInt64(n), ordering: .relaxed)
        } catch {
            counters.malformed.add(1, ordering: .relaxed)
        }
    }

    private func handle(_ report: borrowing AdvertisingReportView, at t: Double) {
        let rssi = report.header.rssi
        // A report without RSSI never becomes a reading: only --print wants its identity, so
        // without it neither cache is filled nor AES spent on it.
        guard rssi != nil || printer != nil else { return }
        if let identity = report.identity {
            guard let index = device(identity) else { printer?.print(report, at: t, as: nil); return }
            printer?.print(report, at: t, as: (devices.values[index].id, devices.values[index].kind))
            if let rssi { accept(&devices.values[index], report, rssi: rssi, at: t) }
        } else if let key = resolver?.resolve(report.header.address, type: report.header.addressType) {
            // A rotating address one of our keys made: the phone, under its stable id.
            printer?.print(report, at: t, as: (phones[key].id, phones[key].kind))
            if let rssi { accept(&phones[key], report, rssi: rssi, at: t) }
        } else {
            printer?.print(report, at: t, as: nil)
        }
    }

    private func accept(_ device: inout Device, _ report: borrowing AdvertisingReportView, rssi: Int8, at t: Double) {
        guard device.allowed, rules.accepts(rssi: Int(rssi), at: t, lastAccepted: device.lastAccepted) else { return }
        device.lastAccepted = t
        deliver(Reading(id: device.id, mac: mac(report.header.address), rssi: Int(rssi),
                        tx: report.summary.measuredPower.map(Int.init), t: t, kind: device.kind), device.partition)
    }

    private func device(_ identity: DeviceIdentity) -> Dictionary<DeviceIdentity, Device>.Index? {
        if let index = devices.index(forKey: identity) { return index }
        if devices.count >= Self.cacheLimit { devices.removeAll(keepingCapacity: true) }
        let id = identity.id
        guard let kind = ReadingKind(rawValue: identity.kind) else { return nil }
        devices[identity] = Device(id: id, kind: kind, allowed: rules.allows(id: id), partition: partitions.partition(of: id), lastAccepted: nil)
        return devices.index(forKey: identity)
    }

    private func mac(_ address: BluetoothAddress) -> String {
        if let text = macs[address] { return text }
        if macs.count >= Self.cacheLimit { macs.removeAll(keepingCapacity: true) }
        let text = address.description
        macs[address] = text
        return text
    }
}
