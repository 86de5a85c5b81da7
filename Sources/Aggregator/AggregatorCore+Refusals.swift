#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Metrics
import Wire

/// Batches refused by `Ingest`: each counted in `whereabouts_rejected_total{reason}`, which has
/// no node label, so the first refusal of each reason from each node is also logged, naming the
/// node (and, for a clock, its offset), and each node's clock offset is a gauge.
extension AggregatorCore {
    /// Who a refusal is logged for: a site node, or `nil` for any other (an unknown or
    /// mismatched topic names anything anyone publishes: one line per reason for all of them).
    struct RefusalKey: Hashable {
        let node: String?
        let reason: RejectReason
    }

    /// Counts a refused batch from the node its topic names, and logs it if it is the first of
    /// its reason from that node. The line is built only then.
    func refused(_ error: PayloadError, node: String) {
        reject(error.reason)
        let site = engine.index(ofNode: node) != nil ? node : nil
        if error.reason == .clockAhead, let site, let ahead = ingest.stream(node: site, partition: ingest.lastPartition)?.refusedAhead {
            clockGauge(site).set(ahead)
        }
        guard loggedRefusals.insert(RefusalKey(node: site, reason: error.reason)).inserted else { return }
        log(refusalLine(error, node: printable(node)) + "; later \(error.reason.rawValue) refusals from "
            + (site.map { "node \($0)" } ?? "nodes outside the site") + " are only counted (whereabouts_rejected_total)")
    }

    private func refusalLine(_ error: PayloadError, node: String) -> String {
        let header = ingest.refused
        let what = "refused a batch on node \(node)'s topic: \(error.reason.rawValue)"
        switch error.reason {
        case .clockAhead:
            let ahead = ingest.stream(node: node, partition: ingest.lastPartition)?.refusedAhead ?? 0
            return what + ": its time is \(seconds(ahead)) s after its arrival (the node's clock is ahead, or this server's "
                + "behind); refused until its batches agree for \(seconds(Ingest.clockWindow)) s, then corrected"
        case .replayed:
            return what + ": seq \(header.map { String($0.seq) } ?? "?") with the time of a batch accepted already "
                + "(a QoS 1 redelivery or a queued or retained copy)"
        case .nodeMismatch:
            return what + ": the payload names node \(header?.node ?? "?")"
        default:
            return what + ": " + error.message
        }
    }

    /// The node's clock error after an accepted batch: the node's clock minus this server's,
    /// less the shortest transit.
    /// Also logs what the batch told of the node's sequence (`Ingest.notice`): this is the one
    /// call the core makes for every accepted batch.
    func observeClock(node: String) {
        if let notice = ingest.notice { log(noticeLine(notice, node: node)) }
        guard let offset = ingest.stream(node: node, partition: ingest.lastPartition)?.clockOffset else { return }
        clockGauge(node).set(-offset)
    }

    private func noticeLine(_ notice: Ingest.StreamNotice, node: String) -> String {
        switch notice {
        case .restarted(let from, let to):
            return "node \(node)'s seq went back from \(from) to \(to): an edge restarted; if this repeats, two edges may share the node name"
        case .sharedName(let restarts):
            return "node \(node)'s seq went back or returned \(restarts) times within a minute: two edges likely share the node name "
                + "(their readings are mixed); later restarts are only counted"
        }
    }

    /// `node` is a site node (`Ingest` accepts no other): as many gauges as the site has nodes.
    private func clockGauge(_ node: String) -> Gauge {
        if let gauge = clockGauges[node] { return gauge }
        let gauge = metrics.nodeClockOffset(node)
        clockGauges[node] = gauge
        return gauge
    }
}

/// A topic's node name as a log line may carry it: anyone may publish any topic, and a control
/// character (a newline, an escape sequence) must not forge or garble lines of the log.
func printable(_ name: String) -> String {
    guard name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return name }
    var out = ""
    for scalar in name.unicodeScalars {
        if scalar.properties.generalCategory == .control {
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// Seconds with a millisecond, as a log line reads them.
private func seconds(_ s: Double) -> String {
    let ms = (s * 1000).rounded()
    guard ms.isFinite, abs(ms) < 1e15 else { return "\(s)" }
    let whole = Int64(ms)
    let sign = whole < 0 ? "-" : "", magnitude = whole.magnitude
    let fraction = String(magnitude % 1000)
    return sign + String(magnitude / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
}

extension AggregatorCore {
    /// Where the core's lines go when its owner passes none: standard error, spelt as the
    /// aggregator's own log lines (`whereabouts-aggregator: …`).
    static func standardError(_ line: String) {
        let text = "whereabouts-aggregator: " + line + "\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
