/// Where the edge hears advertisements: HCI packets with the time they were heard.
///
/// Replay and standard input live here; the live sources (`--adapter`, `--monitor`) come
/// from the HCI module through this same protocol, so every source feeds one pipeline.
public protocol ReportSource: AnyObject, Sendable {
    /// What telemetry calls the source: `hci0`, `monitor`, `replay:FILE`, `stdin`.
    var name: String { get }
    /// Delivers packets to `sink` on the calling thread (a thread of its own, never
    /// Swift's cooperative pool) until the input ends or `stop()` is called. Throws when the
    /// input fails for good.
    func run(_ sink: PacketSink) throws
    /// Asks `run` to return soon; may be called from any thread.
    func stop()
    /// A live source's state for telemetry (`scanning`, `down: …`); nil for recordings.
    var stateDescription: String? { get }
}

extension ReportSource {
    public var stateDescription: String? { nil }
}

/// What a source hands its packets to.
public struct PacketSink {
    let deliver: (UnsafeRawBufferPointer, Double) -> Void
    let reject: () -> Void

    public init(deliver: @escaping (UnsafeRawBufferPointer, Double) -> Void, reject: @escaping () -> Void) {
        self.deliver = deliver
        self.reject = reject
    }

    /// An H4 packet (packet type byte first) heard at Unix time `t`.
    public func packet(h4: UnsafeRawBufferPointer, at t: Double) { deliver(h4, t) }

    /// Input that is not a packet at all (a garbage line); counted and skipped.
    public func malformed() { reject() }
}

/// A source failure that ends the edge with exit code 1.
public struct SourceError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
