import Foundation

/// Aggregator RSS over a long simulated run, sampled as it goes.
struct MemoryFigures {
    var devices: Int
    var nodes: Int
    var simulatedSeconds: Double
    var wallSeconds: Double
    var rate: Double
    var offered: Int
    var accepted: Double
    /// (simulated seconds since start, RSS bytes).
    var samples: [(t: Double, rss: Double)]

    var peak: Double { samples.map(\.rss).max() ?? 0 }
    var last: Double { samples.last?.rss ?? 0 }

    /// Mean RSS over a fraction of the run, e.g. `0.25..<0.5`.
    func mean(_ part: Range<Double>) -> Double {
        let end = samples.last?.t ?? 0
        let chosen = samples.filter { part.contains($0.t / max(end, 1)) }.map(\.rss)
        return chosen.isEmpty ? 0 : chosen.reduce(0, +) / Double(chosen.count)
    }

    /// Growth from the second quarter of the run (every device seen, caches warm) to the
    /// last; nil when the run was too short to have samples in both.
    var growth: Double? {
        guard samples.count >= 8 else { return nil }
        return mean(0.75..<1.01) - mean(0.25..<0.5)
    }
    /// Flat: the last quarter is within 3 % (or 2 MB) of the second.
    var isFlat: Bool? { growth.map { $0 < max(2 * 1_048_576, 0.03 * mean(0.25..<0.5)) } }
}

/// The memory bar: `devices` tags on `nodes` nodes, each advertising every `advertPeriod`
/// simulated seconds, for `simulatedSeconds` of event time compressed into wall time: the
/// batches carry simulated time and the aggregator runs under libfaketime at the same speed
/// (its clock correction would otherwise pull the readings back to arrival time). `rate`
/// readings/s fixes the compression.
func measureMemory(_ plan: BenchPlan, rate: Double, devices: Int? = nil) throws -> MemoryFigures {
    let scale = plan.scale
    let devices = devices ?? scale.devices
    // Four readings per advert; the generator visits devices round robin.
    let perSimulatedSecond = Double(devices * 4) / scale.advertPeriod
    let wall = min(scale.simulatedSeconds * perSimulatedSecond / rate, scale.memoryWallLimit)
    // The smoke run ages nothing, so `make test` needs no libfaketime.
    let speed = plan.smoke ? 1 : rate / perSimulatedSecond
    let rig = try BenchRig(bin: plan.bin, nodes: scale.nodes, devices: devices, subscriber: false, speed: speed)
    defer { rig.stop() }
    var samples: [(Double, Double)] = []
    let before = rig.metrics()
    // Batches every 250 ms of simulated time, as edges send them: full batches spanning
    // seconds of compressed time would make the engine solve each device once per batch.
    let run = rig.offer(rate: rate, seconds: wall, batchInterval: 0.25, every: 1) { elapsed in
        if let rss = rig.aggregator.residentBytes { samples.append((elapsed * speed, rss)) }
    }
    let after = rig.drain(to: (before?.readings ?? 0) + (before?.rejected ?? 0) + Double(run.readings))
    if let rss = rig.aggregator.residentBytes { samples.append((run.seconds * speed, rss)) }
    return MemoryFigures(devices: devices, nodes: rig.site.nodeCount, simulatedSeconds: run.seconds * speed,
                         wallSeconds: run.seconds, rate: run.rate, offered: run.readings,
                         accepted: (after?.readings ?? 0) - (before?.readings ?? 0), samples: samples)
}

func runMemoryBench(_ plan: BenchPlan) {
    do {
        let scale = plan.scale
        let m = try measureMemory(plan, rate: plan.smoke ? 2_000
                                  : scale.simulatedSeconds * Double(scale.devices * 4) / scale.advertPeriod / scale.memoryWallLimit)
        print(memoryLine(m))
    } catch {
        print("memory: failed: \(error)")
    }
}

func memoryLine(_ m: MemoryFigures) -> String {
    "memory: \(m.devices) devices, \(m.nodes) nodes, \(decimal(m.simulatedSeconds / 60, 1)) simulated minutes in "
        + "\(decimal(m.wallSeconds, 0)) s at \(thousands(m.rate))/s (\(decimal(m.accepted / Double(max(m.offered, 1)) * 100, 1)) % accepted): "
        + "RSS peak \(megabytes(m.peak)), last \(megabytes(m.last)), growth over the second half "
        + (m.growth.map { "\(megabytes($0)) (\(m.isFlat == true ? "flat" : "growing"))" } ?? "unknown (run too short)")
}

/// How cost grows with the number of devices: sustained readings/s and RSS.
struct ScalingRow {
    var devices: Int
    var sustained: Double
    var rss: Double
    var cores: Double
    /// The aggregator kept up with every step up to the item's top (`ladder.last`): its limit
    /// is above `sustained`, not at it.
    var capped = false
}

/// Item 7: for each device count a fresh aggregator, a ladder of rates (×1.5) until it falls
/// behind; RSS after the highest sustained step. No `mosquitto_sub` here: the aggregator alone.
func measureScaling(_ plan: BenchPlan, log: (String) -> Void) throws -> [ScalingRow] {
    let scale = plan.scale
    var rows: [ScalingRow] = []
    for devices in scale.scalingDevices {
        let rig = try BenchRig(bin: plan.bin, nodes: scale.nodes, devices: devices, subscriber: false)
        defer { rig.stop() }
        var row = ScalingRow(devices: devices, sustained: 0, rss: 0, cores: 0)
        rig.warmUp(rate: scale.ladder[0])
        var rate = scale.ladder[0]
        row.capped = true
        while rate <= scale.ladder.last! {
            let step = rig.step(rate: rate, seconds: scale.stepSeconds)
            log("scaling: \(devices) devices, offered \(thousands(step.offered))/s → \(thousands(step.aggregatorRate))/s "
                + "(\(step.aggregatorKeepsUp ? "keeps up" : "behind"), \(decimal(step.aggregatorCores, 2)) cores)")
            guard step.aggregatorKeepsUp else { row.capped = false; break }
            row.sustained = step.offered
            row.cores = step.aggregatorCores
            row.rss = rig.aggregator.residentBytes ?? 0
            rate *= 1.5
        }
        rows.append(row)
    }
    return rows
}

func runScalingBench(_ plan: BenchPlan) {
    do {
        for row in try measureScaling(plan, log: { print($0) }) {
            print("scaling: \(row.devices) devices: \(row.capped ? "≥ " : "")\(thousands(row.sustained)) readings/s sustained, RSS \(megabytes(row.rss))")
        }
    } catch {
        print("scaling: failed: \(error)")
    }
}

func megabytes(_ bytes: Double) -> String { "\(decimal(bytes / 1_048_576, 1)) MB" }
