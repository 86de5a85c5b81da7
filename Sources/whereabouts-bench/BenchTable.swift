import Foundation

/// Every figure of one suite run, and the table of the speed and memory bars (docs/benchmarks.md) made from them.
struct SuiteFigures {
    var machine: Machine
    var smoke: Bool
    /// Output of the in-process benches run as children, by name.
    var childOutput: [String: String] = [:]
    var edge: EdgeFigures?
    var endToEnd: EndToEndResult?
    var latency: LatencyResult?
    var burst: BurstFigures?
    var storageCost: StorageCostResult?
    var memory: MemoryFigures?
    var scaling: [ScalingRow] = []
    /// The edge with 16 partitions, beside `edge` (P = 1), same run.
    var edgePartitioned: EdgeFigures?
    /// One shard, then two side by side, at hospital scale (ShardBench.swift).
    var shards: [ShardFigures] = []
    var seconds = 0.0

    /// A row of the bars table: figure, bar, and whether it is met (`nil`: no bar).
    struct Row {
        var item: String, what: String, figure: String, bar: String, met: Bool?
    }

    /// The number before `suffix` in a child's output, e.g. "14.53" before " million reports/s".
    func number(_ child: String, before suffix: String) -> Double? {
        guard let output = childOutput[child], let end = output.range(of: suffix) else { return nil }
        let digits = output[..<end.lowerBound].reversed().prefix { $0.isNumber || $0 == "." }
        return Double(String(digits.reversed()))
    }

    var rows: [Row] {
        var rows: [Row] = []
        let reports = number("decoder", before: " million reports/s")
        rows.append(Row(item: "1", what: "HCI report + AD decoding, one core", figure: reports.map { "\(decimal($0, 2)) M reports/s" } ?? "n/a",
                        bar: "≥ 5 M reports/s", met: reports.map { $0 >= 5 }))
        let allocations = number("decoder", before: " allocations per report")
        rows.append(Row(item: "1", what: "allocations per decoded report", figure: allocations.map { decimal($0, 6) } ?? "n/a",
                        bar: "0", met: allocations.map { $0 == 0 }))
        if let e = edge {
            rows.append(Row(item: "2", what: "edge CPU per 1,000 adverts (at \(decimal(e.rate, 0)) adverts/s)",
                            figure: "\(decimal(e.perThousand, 4)) CPU-s (\(decimal(e.coreShare * 100, 2)) % of a core)",
                            bar: "< 0.01 CPU-s (< 1 % of a core)", met: e.perThousand < 0.01))
        } else {
            rows.append(Row(item: "2", what: "edge CPU per 1,000 adverts", figure: "n/a", bar: "< 0.01 CPU-s", met: nil))
        }
        let engine = number("engine", before: " million readings/s per CPU-second")
        rows.append(Row(item: "3", what: "engine in process (ingest + solve), one core", figure: engine.map { "\(decimal($0, 2)) M readings/CPU-s" } ?? "n/a",
                        bar: "≥ 1 M readings/s", met: engine.map { $0 >= 1 }))
        rows += endToEndRows + burstRows + memoryRows
        for s in scaling {
            rows.append(Row(item: "7", what: "\(s.devices) devices: sustained readings/s, RSS",
                            figure: "\(s.capped ? "≥ " : "")\(thousands(s.sustained))/s (\(decimal(s.cores, 2)) cores\(s.capped ? ", the item's top step" : "")), \(megabytes(s.rss))",
                            bar: "—", met: nil))
        }
        if let points = number("storage", before: " track points written/s") {
            rows.append(Row(item: "—", what: "storage: track points written to SQLite", figure: "\(thousands(points))/s", bar: "—", met: nil))
        }
        rows.append(storageCostRow)
        rows += shardRows
        return rows
    }

    private var endToEndRows: [Row] {
        guard let e = endToEnd else { return [Row(item: "4", what: "end to end", figure: "n/a", bar: "≥ 200,000 readings/s", met: nil)] }
        let a = e.aggregatorLimit, s = e.subscriberLimit
        var rows = [Row(item: "4", what: "end to end: highest rate the aggregator keeps up with", figure: "\(thousands(a)) readings/s",
                        bar: "≥ 200,000 readings/s", met: a >= 200_000)]
        // The end-to-end bar compares the aggregator with what mosquitto_sub receives in the same run. When
        // it never fell behind a rate offered in full, that is all the generator could offer:
        // its own limit is higher, and the ratio to that limit is at most the figure shown.
        let ratio = s > 0 ? a / s : 0
        rows.append(Row(item: "4", what: "… ÷ highest rate mosquitto_sub keeps up with (\(thousands(s))/s\(e.subscriberNeverFell ? ", never fell behind\(e.generatorLimited ? " what the generator offered" : "")" : ""))",
                        figure: decimal(ratio, 2) + (e.subscriberNeverFell ? " of what it received (≤ \(decimal(ratio, 2)) of its own limit, not reached)" : ""),
                        bar: "≥ 0.8", met: ratio >= 0.8))
        if let l = latency {
            rows.append(Row(item: "5", what: "processing latency p50 / p99 / p99.9 at \(thousands(l.rate)) readings/s",
                            figure: "\(milliseconds(l.p50)) / \(milliseconds(l.p99)) / \(milliseconds(l.p999))",
                            bar: "p99 < 5 ms", met: l.p99.map { $0 < 0.005 }))
        }
        return rows
    }

    /// The storage cost: ingest with SQLite against without, same run (StorageCostBench.swift).
    private var storageCostRow: Row {
        let what = "storage cost: highest rate kept up with, SQLite on vs off (same run)"
        guard let s = storageCost, let cost = s.cost else { return Row(item: "—", what: what, figure: "n/a", bar: "< 10 % of ingest throughput", met: nil) }
        return Row(item: "—", what: what,
                   figure: "\(decimal(cost * 100, 1)) % (on \(thousands(s.limitWith))/s, off \(thousands(s.limitWithout))/s"
                       + (s.cpuPerReading.map { "; CPU per reading \(decimal($0.with, 2)) vs \(decimal($0.without, 2)) µs" } ?? "") + ")",
                   bar: "< 10 % of ingest throughput", met: s.met)
    }

    private var memoryRows: [Row] {
        guard let m = memory else { return [Row(item: "6", what: "aggregator RSS", figure: "n/a", bar: "< 100 MB", met: nil)] }
        return [
            Row(item: "6", what: "aggregator RSS, \(m.devices) devices, \(m.nodes) nodes, \(decimal(m.simulatedSeconds / 60, 1)) simulated min",
                figure: "peak \(megabytes(m.peak)), last \(megabytes(m.last))", bar: "< 100 MB", met: m.peak < 100 * 1_048_576),
            Row(item: "6", what: "RSS growth over the run (last quarter vs second)", figure: m.growth.map(megabytes) ?? "n/a (too short)",
                bar: "flat (< 3 % or 2 MB)", met: m.isFlat),
        ]
    }

    func markdown(command: String) -> String {
        var lines = ["## Figures", "",
                     "Command: `\(command)` (\(decimal(seconds, 0)) s). Machine: \(machine.cores) cores, \(machine.cpu), "
                     + "Linux \(machine.kernel); load average \(machine.load) at the start (the cores are shared). "
                     + "Commit \(machine.commit), \(machine.date).", "",
                     "| # | what | figure | bar | met |", "|---|---|---|---|---|"]
        for r in rows {
            lines.append("| \(r.item) | \(r.what) | \(r.figure) | \(r.bar) | \(r.met.map { $0 ? "yes" : "**no**" } ?? "—") |")
        }
        lines += ladderLines + memoryLines
        return lines.joined(separator: "\n") + "\n"
    }

    private var ladderLines: [String] {
        guard let e = endToEnd else { return [] }
        var lines = ["", "### End-to-end ladder (aggregator and `mosquitto_sub` on the same broker, same run)", "",
                     "| offered/s | aggregator accepted/s | keeps up | aggregator cores | p50 / p99 processing | states published/s (of updates) | mosquitto_sub received/s | keeps up |",
                     "|---|---|---|---|---|---|---|---|"]
        // A step begun with a backlog from the one before is shown, not counted.
        for s in e.steps {
            let keeps = s.aggregatorKeepsUp ? (s.startedClean ? "yes" : "(yes, begun with a backlog)") : "no"
            lines.append("| \(thousands(s.offered)) | \(thousands(s.aggregatorRate)) | \(keeps) | "
                         + "\(decimal(s.aggregatorCores, 2)) | \(milliseconds(s.p50)) / \(milliseconds(s.p99)) | "
                         + "\(s.seconds > 0 ? thousands(s.statesMade / s.seconds) : "—") (\(s.statesMade + s.statesSuppressed > 0 ? decimal(100 * s.statesMade / (s.statesMade + s.statesSuppressed), 0) : "—") %) | "
                         + "\(s.subscriberRate.map { thousands($0) } ?? "—") | \(s.subscriberKeepsUp.map { $0 ? "yes" : "no" } ?? "—") |")
        }
        return lines
    }

    private var memoryLines: [String] {
        guard let m = memory else { return [] }
        let picks = stride(from: 0, to: m.samples.count, by: max(1, m.samples.count / 10)).map { m.samples[$0] } + [m.samples.last].compactMap { $0 }
        return ["", "### Aggregator RSS over the memory run (\(thousands(m.rate)) readings/s, \(decimal(m.wallSeconds, 0)) s wall, "
                + "\(decimal(m.accepted / Double(max(m.offered, 1)) * 100, 1)) % of offered readings accepted)", "",
                "| simulated time | RSS |", "|---|---|"]
            + picks.map { "| \(decimal($0.t / 60, 1)) min | \(megabytes($0.rss)) |" }
    }
}
