public import HCI
import Options

// The live sources (`--adapter`, `--monitor`) come from the HCI module; this file only
// fits them to `ReportSource`. (Owned by the HCI work, kept apart from the pipeline.)

extension AdapterScanner: ReportSource {
    public var name: String { adapter.description }
    public var stateDescription: String? { state.description }

    public func run(_ sink: PacketSink) throws {
        try run { packet, t in sink.packet(h4: packet, at: t) }
    }
}

extension MonitorListener: ReportSource {
    public var name: String { "monitor" }
    public var stateDescription: String? { state.description }

    public func run(_ sink: PacketSink) throws {
        try run { packet, t in sink.packet(h4: packet, at: t) }
    }
}

/// `--adapter DEV [--scan active]`: each change of the adapter's state is logged on
/// standard error (`hci0: scanning …`, `hci0: down: …; retrying in 2 s`).
public func adapterSource(_ adapter: String, active: Bool) throws -> ReportSource {
    let mode: ScanMode = active ? .active : .passive
    do {
        return try AdapterScanner(adapter: adapter, mode: mode) { state in printError("whereabouts-edge: \(adapter): \(state)") }
    } catch { throw SourceError("\(error)") }
}

/// `--monitor`: the advertising reports of whatever scans, from the HCI monitor channel.
public func monitorSource() throws -> ReportSource {
    do { return try MonitorListener { state in printError("whereabouts-edge: monitor: \(state)") } }
    catch { throw SourceError("\(error)") }
}
