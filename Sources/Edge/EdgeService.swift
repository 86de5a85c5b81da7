import Dispatch
import Foundation
public import MQTT
import Options
import Synchronization
import Wire

/// The edge node: one source, the pipeline, the publisher; runs until the source ends or a
/// SIGTERM / SIGINT, then flushes and says `offline` (SIGHUP is logged and ignored).
public final class EdgeService {
    private let config: EdgeConfig
    private let source: ReportSource
    private let counters = EdgeCounters()
    private let publisher: Publisher

    /// - Parameter version: reported in telemetry.
    public init(config: EdgeConfig, source: ReportSource, version: String) throws(MQTTError) {
        self.config = config
        self.source = source
        let telemetry = Telemetry(topic: Topics(prefix: config.prefix).nodeTelemetry(config.node),
                                  version: version, adapter: source.name, counters: counters, started: unixTime(),
                                  sourceState: { [weak source] in source?.stateDescription })
        publisher = try Publisher(config: config, telemetry: telemetry)
    }

    /// Runs to the end and returns the process exit code: 0, or 1 when the source failed.
    public func run() -> Int32 {
        do { try publisher.start() } catch {
            printError("whereabouts-edge: \(error)")
            return 1
        }
        let finished = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
        let failure = SourceFailure()
        let signals = watchSignals { [source] in
            source.stop()
            finished.signal()
        }
        startSourceThread(finishing: finished, ended: ended, failure: failure)
        finished.wait()
        source.stop()
        // A source sees `stop` between packets: the readings of the one it was handling still
        // come. Counted only if they are queued before the flush counts what is left, so the
        // flush waits for the source to return (a while at most: stdin may block in a read).
        _ = ended.wait(timeout: .now() + Self.sourceGrace)
        let outcome = publisher.shutdown(timeout: config.flushTimeout)
        signals.forEach { $0.cancel() }
        if outcome.undelivered > 0 {
            printError("whereabouts-edge: \(outcome.undelivered) readings not delivered before the \(config.flushTimeout) s flush timeout")
        }
        if let message = failure.message.withLock({ $0 }) {
            printError("whereabouts-edge: \(message)")
            return 1
        }
        return 0
    }

    /// The source gets a thread of its own: it blocks (reads, pacing) and must never sit on
    /// Swift's cooperative pool or the publisher's queue.
    /// Seconds a stop waits for the source to return before flushing.
    static let sourceGrace = 1.0

    private func startSourceThread(finishing finished: DispatchSemaphore, ended: DispatchSemaphore, failure: SourceFailure) {
        let source = self.source
        let rules = config.filter
        let counters = self.counters
        let publisher = self.publisher
        let printReports = config.printReports
        let irks = config.irks
        let partitions = config.partitions
        let thread = Thread {
            let resolver: IRKResolver
            do { resolver = try IRKResolver(keys: irks) } catch {
                failure.message.withLock { $0 = "identity resolving keys: \(error)" }
                finished.signal()
                ended.signal()
                return
            }
            let pipeline = Pipeline(rules: rules, counters: counters, printer: printReports ? ReportPrinter() : nil,
                                    resolver: resolver, partitions: partitions, deliver: publisher.append)
            let sink = PacketSink(deliver: { pipeline.handle(h4: $0, at: $1) },
                                  reject: { counters.malformed.add(1, ordering: .relaxed) })
            do { try source.run(sink) } catch { failure.message.withLock { $0 = "\(error)" } }
            finished.signal()
            ended.signal()
        }
        thread.name = "whereabouts-source"
        thread.start()
    }

    /// SIGTERM and SIGINT call `body` once (on a queue of their own) instead of killing us.
    /// SIGHUP (a closed terminal, an operator expecting a reload) killed the edge without a
    /// flush; there is nothing to reload (the config is read at start), so it is logged and ignored.
    private func watchSignals(_ body: @escaping @Sendable () -> Void) -> [DispatchSourceSignal] {
        let queue = DispatchQueue(label: "whereabouts.edge.signals")
        let hangup: @Sendable () -> Void = {
            printError("whereabouts-edge: SIGHUP ignored: the config is read at start only; restart to apply a change")
        }
        return [(SIGTERM, body), (SIGINT, body), (SIGHUP, hangup)].map { number, handler in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }
}

/// Why the source stopped, if it failed; written on the source's thread.
private final class SourceFailure: Sendable {
    let message = Mutex<String?>(nil)
}
