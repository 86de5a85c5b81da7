import BLE
import Wire
#if canImport(Glibc)
import Glibc
#endif

/// `--print`: each decoded report as one JSON line on standard output.
final class ReportPrinter {
    private var writer = JSONWriter(capacity: 512)

    func print(_ report: borrowing AdvertisingReportView, at t: Double) {
        let h = report.header
        writer.reset()
        writer.objectStart()
        writer.key("t"); writer.time(t)
        writer.field("mac", h.address.description)
        writer.field("address_type", h.addressType.description)
        writer.field("event_type", Int(h.eventType))
        if let rssi = h.rssi { writer.field("rssi", Int(rssi)) }
        if let identity = report.identity {
            writer.field("id", identity.id)
            writer.field("kind", identity.kind)
        }
        if let tx = report.summary.measuredPower { writer.field("tx", Int(tx)) }
        writer.key("data"); writer.hex(report.data)
        writer.objectEnd()
        // Unbuffered, so a reader of the pipe sees each report as it is heard.
        writer.bytes.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
        _ = write(1, "\n", 1)
    }
}
