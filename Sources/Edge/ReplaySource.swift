import BLE
import YAML
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--replay FILE`: the HCI events of a btsnoop capture, paced like the capture
/// (`speed` 1), faster, or as fast as possible (`speed` 0).
public final class ReplaySource: ReportSource {
    public let name: String
    private let bytes: [UInt8]
    private let speed: Double
    private let retime: Bool
    private let stopped = Atomic<Bool>(false)

    /// Reads and checks the whole capture now, so a truncated or garbage file is refused
    /// before anything is published.
    public init(path: String, speed: Double, retime: Bool) throws(SourceError) {
        let bytes: [UInt8]
        do {
            // The header first: a path naming no capture (`/dev/zero`, a log, a pipe) is
            // refused at once instead of being read whole until memory runs out.
            _ = try BtsnoopReader(try YAML.readHead(path, count: Btsnoop.headerSize))
            bytes = try YAML.readFile(path)
        } catch let error as YAMLError {
            throw SourceError("cannot read capture \(path): \(error)")
        } catch {
            throw SourceError("\(path) is not a usable btsnoop capture: \(error)")
        }
        do {
            var reader = try BtsnoopReader(bytes)
            while try reader.next() != nil {}
        } catch {
            throw SourceError("\(path) is not a usable btsnoop capture: \(error)")
        }
        self.name = "replay:\(path)"
        self.bytes = bytes
        self.speed = speed
        self.retime = retime
    }

    public func run(_ sink: PacketSink) throws {
        var reader = try BtsnoopReader(bytes)
        var first: (capture: Double, wall: Double)?
        while !stopped.load(ordering: .relaxed), let record = try reader.next() {
            guard record.packetType == .event, let packet = record.h4 else { continue }
            let captured = record.unixTime
            let origin = first ?? (captured, unixTime())
            first = origin
            if speed > 0 { pause(until: origin.wall + (captured - origin.capture) / speed) }
            // --retime stamps each packet with the moment it is replayed (at --speed X the
            // capture's clock runs X times faster than the wall's), never ahead of its batch.
            let t: Double
            if !retime { t = captured } else if speed > 0 { t = origin.wall + (captured - origin.capture) / speed } else { t = unixTime() }
            packet.withUnsafeBytes { sink.packet(h4: $0, at: t) }
        }
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    /// Packets due within this many seconds go out together: at 1,000 adverts/s a sleep per
    /// packet costs more CPU than decoding them. Readings keep their captured times, so only
    /// the moment of publishing moves, by at most this much.
    private static let slack = 0.004

    /// Sleeps in short steps so `stop()` is noticed quickly.
    private func pause(until wall: Double) {
        while !stopped.load(ordering: .relaxed) {
            let left = wall - unixTime()
            guard left > Self.slack else { return }
            usleep(useconds_t(min(left, 0.1) * 1e6))
        }
    }
}
