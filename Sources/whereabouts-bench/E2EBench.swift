import Foundation

/// One rung of the ladder: what was offered and who kept up with it.
struct LoadStep {
    var target: Double
    /// Readings/s the generator actually published.
    var offered: Double
    /// Whether the generator offered the rate asked for (up to the batches still filling).
    var generatorReached: Bool
    /// Whether the aggregator had caught up with everything offered before the step began
    /// (after a fall it may still carry a backlog, and a step on top of that is no fair test).
    var startedClean = true
    /// Readings/s the aggregator accepted while the load ran (not counting the drain after).
    var aggregatorRate: Double
    /// Readings/s `mosquitto_sub` received while the load ran.
    var subscriberRate: Double?
    var aggregatorKeepsUp: Bool
    var subscriberKeepsUp: Bool?
    /// Readings the aggregator refused (late, malformed, …) over the step and its drain.
    var rejected: Double = 0
    /// Cores the aggregator used while the load ran.
    var aggregatorCores: Double
    /// The aggregator's resident memory after the step, bytes.
    var rss: Double = 0
    /// State messages the aggregator published and those a subscriber got.
    var statesMade = 0.0
    var statesReceived = 0.0
    /// Updates the aggregator's state deadband left unpublished.
    var statesSuppressed = 0.0
    /// Wall seconds the load ran.
    var seconds = 0.0
    /// Position solves the aggregator made over the step, and those it left out (held).
    var solves = 0.0
    var holds = 0.0
    /// Processing seconds (arrival → last publish handed to MQTT) at p50 and p99 over the step.
    var p50: Double?
    var p99: Double?
}

/// The end-to-end bar: offered readings/s in steps through a real broker to the aggregator
/// (MQTT in, fuse, publish, SQLite) and to a plain `mosquitto_sub` on the same topics.
///
/// "Keeps up" means: the generator reached the rate, every offered reading was accepted
/// (counted by `whereabouts_readings_total`) or received by the end of a short drain, the
/// backlog (offered − accepted) at the end of the step was under 0.2 s of load, and for the
/// aggregator, 98 % of the state messages it published (`whereabouts_states_total{result="published"}`;
/// its state deadband leaves most updates of a still device unpublished) reached a subscriber
/// by the end of the drain. Only full 200-reading batches are offered,
/// so `mosquitto_sub`'s lines × 200 are its readings.
struct EndToEndResult {
    var steps: [LoadStep] = []
    /// Highest offered rate the aggregator kept up with, of the steps it began caught up.
    var aggregatorLimit: Double { steps.filter { $0.aggregatorKeepsUp && $0.startedClean }.map(\.offered).max() ?? 0 }
    /// Highest offered rate `mosquitto_sub` kept up with (as for the aggregator, any step).
    var subscriberLimit: Double { steps.filter { $0.subscriberKeepsUp == true }.map(\.offered).max() ?? 0 }
    /// True when `mosquitto_sub` never fell behind a rate the generator offered in full (its
    /// limit is then above the highest rate offered, and the ratio only a bound).
    var subscriberNeverFell: Bool { !steps.contains(where: subscriberFell) }
    /// A step the generator offered in full and `mosquitto_sub` did not keep up with (a step
    /// the generator could not offer says nothing about the subscriber).
    private func subscriberFell(at step: LoadStep) -> Bool { step.generatorReached && step.subscriberKeepsUp == false }
    /// Whether the generator reached the highest rates asked for.
    var generatorLimited: Bool { steps.last.map { !$0.generatorReached } ?? false }
}

extension BenchRig {
    /// Offers `rate` for `seconds`, drains, and judges both consumers.
    func step(rate: Double, seconds: Double) -> LoadStep {
        let before = metrics()
        let offeredSoFar = Double(generator.published.load(ordering: .relaxed))
        let sub0 = subscriber?.lines.load(ordering: .relaxed) ?? 0
        let cpu0 = aggregator.cpuSeconds ?? 0
        let states0 = states.lines.load(ordering: .relaxed)
        // Backlog sampled while the load runs: a /metrics answer that comes late under load
        // then counts against the aggregator, never for it (offered is read after it).
        var worstBacklog = 0.0
        let run = offer(rate: rate, seconds: seconds) { elapsed in
            guard elapsed >= seconds / 2, let m = self.metrics() else { return }
            let offered = Double(self.generator.published.load(ordering: .relaxed)) - offeredSoFar
            worstBacklog = max(worstBacklog, offered - (m.readings + m.rejected - (before?.readings ?? 0) - (before?.rejected ?? 0)))
        }
        let atEnd = metrics()
        let sub1 = subscriber?.lines.load(ordering: .relaxed) ?? 0
        let cpu1 = aggregator.cpuSeconds ?? 0
        let accepted0 = (before?.readings ?? 0) + (before?.rejected ?? 0)
        let drained = drain(to: accepted0 + Double(run.readings))
        let subDone = subscriber.map { wait(for: $0, lines: sub0 + run.batches) } ?? 0
        let statesMade = (drained?.statesPublished ?? 0) - (before?.statesPublished ?? 0)
        let statesDone = wait(for: states, lines: states0 + Int(0.98 * statesMade))
        let offered = Double(run.readings)
        let slack = max(0.2 * rate, Double(4 * LoadGenerator.batchMax))
        let accepted = (drained?.readings ?? 0) - (before?.readings ?? 0)
        let backlog = max(worstBacklog, offered - ((atEnd?.readings ?? 0) + (atEnd?.rejected ?? 0) - accepted0))
        // Only full batches go out: up to one partial batch per node is still being filled.
        let reached = Double(run.readings + site.nodeCount * LoadGenerator.batchMax) >= 0.95 * rate * run.seconds
        var step = LoadStep(target: rate, offered: run.rate, generatorReached: reached,
                            aggregatorRate: ((atEnd?.readings ?? 0) - (before?.readings ?? 0)) / run.seconds,
                            aggregatorKeepsUp: reached && accepted >= 0.99 * offered && backlog <= slack
                                && Double(statesDone - states0) >= 0.98 * statesMade,
                            aggregatorCores: (cpu1 - cpu0) / run.seconds)
        // Nothing left waiting from the steps before: every reading offered so far accepted,
        // refused, or shed (a batch the aggregator dropped on arrival while its queue was full
        // is gone, not waiting; every batch offered here has 200 readings). Counting only the
        // accepted ones made every step after the first shedding fall look unclean for good.
        let shed = (before?.shedMessages ?? 0) * Double(LoadGenerator.batchMax)
        step.startedClean = (before?.readings ?? 0) + (before?.rejected ?? 0) + shed >= 0.99 * offeredSoFar
        step.statesMade = statesMade
        step.seconds = run.seconds
        step.statesReceived = Double(statesDone - states0)
        step.statesSuppressed = (drained?.statesSuppressed ?? 0) - (before?.statesSuppressed ?? 0)
        step.solves = (drained?.solved ?? 0) - (before?.solved ?? 0)
        step.holds = (drained?.held ?? 0) - (before?.held ?? 0)
        if subscriber != nil {
            let received = Double((sub1 - sub0) * LoadGenerator.batchMax)
            step.subscriberRate = received / run.seconds
            step.subscriberKeepsUp = reached && Double((subDone - sub0) * LoadGenerator.batchMax) >= 0.99 * offered
                && offered - received <= slack
        }
        step.rejected = (drained?.rejected ?? 0) - (before?.rejected ?? 0)
        step.rss = aggregator.residentBytes ?? 0
        step.p50 = drained?.processingQuantile(0.5, since: before)
        step.p99 = drained?.processingQuantile(0.99, since: before)
        return step
    }

    /// Waits (up to 5 s, or 1.5 s without progress) for a `mosquitto_sub` to reach `lines`.
    private func wait(for subscriber: SubscriberCount, lines target: Int) -> Int {
        var last = subscriber.lines.load(ordering: .relaxed), lastChange = wallSeconds()
        let deadline = wallSeconds() + 5
        while last < target, wallSeconds() < deadline, wallSeconds() - lastChange < 1.5 {
            usleep(50_000)
            let now = subscriber.lines.load(ordering: .relaxed)
            if now != last { lastChange = wallSeconds(); last = now }
        }
        return last
    }

    /// Step-up search: rates rise until the aggregator has fallen behind and `mosquitto_sub`
    /// has too (or the generator cannot offer more), within `budget` seconds.
    func ladder(rates: [Double], seconds: Double, budget: Double, log: (String) -> Void) -> EndToEndResult {
        var result = EndToEndResult()
        warmUp(rate: rates[0])
        let start = wallSeconds()
        for rate in rates {
            let step = step(rate: rate, seconds: seconds)
            result.steps.append(step)
            log("e2e: offered \(thousands(step.offered))/s → aggregator \(thousands(step.aggregatorRate))/s "
                + "(\(step.aggregatorKeepsUp ? "keeps up" : "behind"), \(decimal(step.aggregatorCores, 2)) cores, "
                + "p99 \(milliseconds(step.p99)), RSS \(megabytes(step.rss)), "
                + "states \(decimal(step.statesReceived, 0))/\(decimal(step.statesMade, 0)) (\(decimal(step.statesSuppressed, 0)) suppressed), "
                + "\(decimal(step.solves / seconds, 0)) solves/s, \(decimal(100 * step.holds / max(step.solves + step.holds, 1), 0)) % held" + (step.rejected > 0 ? ", \(decimal(step.rejected, 0)) rejected)" : ")")
                + (step.subscriberRate.map { ", mosquitto_sub \(thousands($0))/s (\(step.subscriberKeepsUp == true ? "keeps up" : "behind"))" } ?? ""))
            let aggregatorDone = result.steps.contains { !$0.aggregatorKeepsUp }
            let subscriberDone = subscriber == nil || result.steps.contains { $0.subscriberKeepsUp == false }
            let generatorDone = !step.generatorReached
            if (aggregatorDone && (subscriberDone || generatorDone)) || wallSeconds() - start > budget { break }
        }
        return result
    }
}

/// Processing latency at a steady working load, from the aggregator's histogram.
struct LatencyResult {
    var rate: Double
    var messages: Double
    var p50: Double?, p99: Double?, p999: Double?
}

extension BenchRig {
    func latency(rate: Double, seconds: Double) -> LatencyResult {
        let before = metrics()
        let run = offer(rate: rate, seconds: seconds)
        let after = drain(to: (before?.readings ?? 0) + (before?.rejected ?? 0) + Double(run.readings))
        return LatencyResult(rate: run.rate, messages: after?.processedMessages(since: before) ?? 0,
                             p50: after?.processingQuantile(0.5, since: before),
                             p99: after?.processingQuantile(0.99, since: before),
                             p999: after?.processingQuantile(0.999, since: before))
    }
}

func thousands(_ v: Double) -> String { v >= 1_000 ? "\(decimal(v / 1_000, v >= 100_000 ? 0 : 1))k" : decimal(v, 0) }

func milliseconds(_ v: Double?) -> String {
    guard let v else { return "n/a" }
    return v.isFinite ? "\(decimal(v * 1_000, 2)) ms" : "> 100 ms"
}

func decimal(_ v: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", v) }
