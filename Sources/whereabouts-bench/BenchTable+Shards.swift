/// The scale-out rows: the edge's cost of partitions, a shard's engine at hospital scale, and
/// one shard against two on this machine (docs/operations.md, A hospital).
extension SuiteFigures {
    var shardRows: [Row] {
        var rows: [Row] = []
        if let single = edge, let partitioned = edgePartitioned {
            rows.append(Row(item: "8", what: "edge CPU per 1,000 adverts, partitions 1 vs 16 (same run)",
                            figure: "\(decimal(single.perThousand, 4)) vs \(decimal(partitioned.perThousand, 4)) CPU-s", bar: "—", met: nil))
        }
        for f in shards {
            for i in 0..<f.shards {
                let rate = f.perShardRate(i)
                rows.append(Row(item: "8", what: "shard \(i)/\(f.shards), \(f.devices / f.shards) of \(f.devices) devices, 5 nodes an advert: engine readings and solves per CPU-s",
                                figure: "\(thousands(rate)) readings, \(thousands(f.solveRate(i))) solves; \(decimal(f.solveCPU[i] / (f.ingestCPU[i] + f.solveCPU[i]) * 100, 0)) % in solves",
                                bar: "≥ 250,000 readings/s", met: rate >= 250_000))
            }
            rows.append(Row(item: "8", what: "\(f.shards) shard\(f.shards == 1 ? "" : "s") side by side on this machine: total readings/s (wall)",
                            figure: "\(thousands(f.totalRate))/s", bar: "—", met: nil))
        }
        return rows
    }
}
