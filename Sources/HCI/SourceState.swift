import Synchronization

/// What a live source is doing, for logs and telemetry.
public enum SourceState: Sendable, Equatable, CustomStringConvertible {
    case opening
    /// Scanning with the legacy or the extended (Bluetooth 5) commands.
    case scanning(extended: Bool, mode: ScanMode)
    /// On the monitor channel, taking whatever is scanning.
    case listening
    /// Gone or failed; the next attempt is in `retryIn` seconds (sooner if the kernel says
    /// the adapter is back).
    case down(reason: String, retryIn: Double)
    /// Stopped on request; for a scanner that had the adapter open, what closing achieved.
    case stopped(ScanTeardown?)
    /// Stopped by an error that waiting will not fix (permissions, no LE).
    case failed(reason: String)

    public var description: String {
        switch self {
        case .opening: "opening"
        case let .scanning(extended, mode): "scanning (\(extended ? "extended" : "legacy") commands, \(mode))"
        case .listening: "listening on the monitor channel"
        case let .down(reason, retryIn): "down: \(reason); retrying in \(Int(retryIn)) s"
        case let .stopped(teardown?):
            "stopped: scan \(teardown.scanDisabled ? "disabled" : "NOT disabled"), HCI filter \(teardown.filterRestored ? "restored" : "NOT restored")"
        case .stopped(nil): "stopped"
        case let .failed(reason): "failed: \(reason)"
        }
    }
}

/// What closing a scanning adapter achieved: the kernel drops a socket's filter with the
/// socket, but a scan left on keeps the radio busy for whoever comes next.
public struct ScanTeardown: Sendable, Equatable {
    /// The controller confirmed the scan is off (or said it was not scanning).
    public var scanDisabled = false
    /// The filter found on the socket was put back, as read back from the kernel.
    public var filterRestored = false
}

/// A source's state, written by its reader and read from anywhere.
final class StateCell: Sendable {
    private let state = Mutex<SourceState>(.opening)
    private let observer: (@Sendable (SourceState) -> Void)?

    init(observer: (@Sendable (SourceState) -> Void)?) { self.observer = observer }

    var current: SourceState { state.withLock { $0 } }

    func set(_ new: SourceState) {
        let changed = state.withLock { old in
            defer { old = new }
            return old != new
        }
        if changed { observer?(new) }
    }
}
