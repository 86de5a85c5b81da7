import BLE
import Wire
#if canImport(Glibc)
import Glibc
#endif

/// `--print`: each decoded report as one JSON line on standard output, with the id and kind
/// it is published under (an IRK-resolved phone's `irk:` id), or null for a report that
/// makes no device (a rotating address no key resolves), as `whereabouts decode` writes them.
final class ReportPrinter {
    private var writer = JSONWriter(capacity: 512)

    func print(_ report: borrowing AdvertisingReportView, at t: Double, as device: (id: String, kind: ReadingKind)?) {
        let h = report.header
        writer.reset()
        writer.objectStart()
        writer.key("t"); writer.time(t)
        writer.field("mac", h.address.description)
        writer.field("address_type", h.addressType.description)
        writer.field("event_type", Int(h.eventType))
        if let rssi = h.rssi { writer.field("rssi", Int(rssi)) }
        writer.key("id"); if let device { writer.value(device.id) } else { writer.null() }
        writer.key("kind"); if let device { writer.value(device.kind.rawValue) } else { writer.null() }
        if let tx = report.summary.measuredPower { writer.field("tx", Int(tx)) }
        writer.key("data"); writer.hex(report.data)
        writer.objectEnd()
        // Unbuffered, so a reader of the pipe sees each report as it is heard.
        writer.bytes.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
        _ = write(1, "\n", 1)
    }
}
