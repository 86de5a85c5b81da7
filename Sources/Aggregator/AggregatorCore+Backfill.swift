import Metrics
import Positioning
import Wire

/// Outages of the broker ridden through without a hole (docs/operations.md, Outages).
///
/// While the broker is away the live engine's event time stands still: no reading can
/// arrive, which says nothing about the devices, so none is sent away for it. When the broker
/// is back, readings stamped inside the gap (the edges' buffers) are held in a `Backfill`
/// until every node heard before the outage has caught up; the live engine takes the newer
/// ones but solves nothing meanwhile. Then one pass solves the gap in event time in a second
/// engine that starts from each device's live state; its track points are stored marked
/// backfilled, its zone events stored and published with `"late": true`, and the live engine
/// goes on from each device's state at the gap's end, so no room change is made twice.
extension AggregatorCore {
    /// What the core keeps for outages (one stored property of the core).
    struct BackfillState {
        /// Event and wall time at which the broker went away, while it is away.
        var lost: (event: Double, wall: Double)?
        var gap: Backfill?
        /// Event time of each site node's newest accepted reading, by engine node index.
        var lastHeard: [Double]
        /// How far behind the gap's end a reading may be and still be backfilled.
        var horizon: Double
        let readings: Counter
        let passes: Counter
        let overflow: Counter

        init(nodes: Int, horizon: Double, registry: Registry) {
            lastHeard = Array(repeating: -.infinity, count: nodes)
            self.horizon = horizon
            readings = registry.counter("whereabouts_backfill_readings_total",
                                        "Readings stamped inside a broker outage, solved by a backfill pass.").labels()
            passes = registry.counter("whereabouts_backfill_passes_total", "Backfill passes run, one per broker outage.").labels()
            overflow = registry.counter("whereabouts_backfill_overflow_total",
                                        "Readings of an outage refused because a backfill held its most already.").labels()
        }

        /// The live engine solves nothing: the broker is away, or its backlog is being gathered.
        var holdsLive: Bool { lost != nil || gap != nil }
    }

    /// Event-time steps of a pass: readings up to each step are taken, then solved at it
    /// (the live engine solves at each batch's newest time, a node's batch every second or less).
    static let backfillStep = 0.1
    /// Nodes heard this long before an outage are waited for after it.
    static let activeBefore = 60.0

    /// The broker connection dropped at wall time `wall`.
    func brokerLost(wall: Double, into effects: inout [Effect]) {
        if backfill.gap != nil { runBackfill(into: &effects) }
        guard backfill.lost == nil, let clock = eventClock else { return }
        backfill.lost = (clock.event, wall)
    }

    /// The broker connection is back at wall time `wall`: readings stamped before now (in
    /// event time) belong to the gap.
    func brokerBack(wall: Double) {
        guard let lost = backfill.lost, let clock = eventClock else { backfill.lost = nil; return }
        backfill.lost = nil
        let end = clock.event + max(0, wall - clock.wall)
        var nodes = Set<Int32>()
        for (n, t) in backfill.lastHeard.enumerated() where t >= lost.event - Self.activeBefore { nodes.insert(Int32(n)) }
        backfill.gap = Backfill(start: lost.event, end: end, horizon: backfill.horizon, since: wall, nodes: nodes)
        log("broker back after \(Int((wall - lost.wall).rounded())) s: readings stamped in the gap are gathered for a backfill pass "
            + "once \(nodes.count) nodes have caught up (at most \(Int(Backfill.maxWait)) s)")
    }

    /// Takes the readings of `raw` that belong to the open gap out of it, into the gap; notes
    /// what node `n` delivered. Called for every batch (one compare when no gap is open).
    func divertToBackfill(node n: Int, ids: UnsafeRawBufferPointer, arrival: Double) {
        var newest = -Double.infinity
        for r in raw { newest = max(newest, r.t) }
        if n < backfill.lastHeard.count { backfill.lastHeard[n] = max(backfill.lastHeard[n], newest) }
        guard var gap = backfill.gap else { return }
        backfill.gap = nil
        var kept = 0, tooOld = 0, held: UInt64 = 0
        for r in raw {
            // Older than the horizon: refused as late, as the live engine refuses late readings.
            if r.t < gap.oldest { tooOld += 1; continue }
            guard gap.holds(r.t) else { raw[kept] = r; kept += 1; continue }
            if gap.add(node: Int32(n), id: r.id(in: ids), rssi: r.rssi, tx: r.tx, t: r.t, wall: arrival) {
                held += 1
            } else {
                backfill.overflow.add()
            }
        }
        raw.removeLast(raw.count - kept)
        if tooOld > 0 { metrics.rejected(.late).add(UInt64(tooOld)) }
        // Accepted: counted in `whereabouts_readings_total` now, as the live engine's are; the
        // pass counts what it refuses (an excluded id, a full engine) under its reason as well.
        if held > 0 {
            backfill.readings.add(held)
            metrics.readings(site.nodes[n].name).add(held)
        }
        gap.heard(node: Int32(n), at: newest)
        backfill.gap = gap
    }

    /// A clean stop with a gap still gathered: its pass runs first, so what the edges delivered
    /// is stored before the visits are closed.
    func backfillBeforeShutdown(into effects: inout [Effect]) {
        guard backfill.gap != nil else { return }
        runBackfill(into: &effects)
        backfill.lost = nil
    }

    /// Runs the pass if its gap is complete (every node caught up, or the wait is over).
    func backfillIfDue(wall: Double, into effects: inout [Effect]) {
        guard let gap = backfill.gap, gap.isDue(wall: wall) else { return }
        runBackfill(into: &effects)
        if let clock = eventClock { advance(to: clock.event + max(0, wall - clock.wall), into: &effects) }
    }

    /// Solves the gap in a second engine seeded from the live one, then hands each device's
    /// state at the gap's end back to the live engine.
    private func runBackfill(into effects: inout [Effect]) {
        guard var gap = backfill.gap else { return }
        backfill.gap = nil
        backfill.passes.add()
        let readings = gap.sorted()
        // The live engine's site (a SIGHUP may have recalibrated it) and what it has learned.
        let pass = Engine(site: engine.site, pipeline: engine.pipeline, options: engine.options)
        pass.restoreCalibration(engine.calibrationSnapshot())
        for id in gap.ids { pass.adoptDevice(id, from: engine, heardUntil: gap.start) }
        var outputs: [EngineOutput] = []
        var last: [String: DeviceUpdate] = [:]
        var i = 0
        var step = max(gap.start, readings.first?.t ?? gap.end)
        while i < readings.count {
            step += Self.backfillStep
            while i < readings.count, readings[i].t < step {
                if !ingest(readings[i], gap: gap, into: pass), let why = pass.lastRejection { reject(why) }
                i += 1
            }
            solve(pass, to: min(step, gap.end), outputs: &outputs, last: &last, into: &effects)
        }
        solve(pass, to: gap.end, outputs: &outputs, last: &last, into: &effects)
        for id in pass.trackedIds { engine.adoptDevice(id, from: pass) }
        // The live engine's smoothing window reaches back into the gap at its next solves.
        let window = site.positioning.window
        for r in readings where r.t >= gap.end - window { _ = ingest(r, gap: gap, into: engine) }
        // Each device's latest state, published as the live one (after the state published
        // before the outage, so no topic goes back in time).
        for u in last.values.sorted(by: { $0.t < $1.t }) { apply(update: u, backfilled: true, into: &effects) }
        log("backfill pass: \(readings.count) readings from \(gap.ids.count) devices over \(Int((gap.end - gap.start).rounded())) s "
            + "of event time" + (gap.overflow > 0 ? "; \(gap.overflow) more refused (the pass holds \(Backfill.maxReadings) at most)" : ""))
    }

    private func ingest(_ r: Backfill.Held, gap: Backfill, into target: Engine) -> Bool {
        var id = gap.ids[Int(r.device)]
        return id.withUTF8 { bytes in
            target.ingest(nodeIndex: Int(r.node), id: UnsafeRawBufferPointer(bytes), rssi: Int(r.rssi),
                              tx: r.tx == BatchReading.noTx ? nil : Int(r.tx), t: r.t)
        }
    }

    /// Advances the pass to `t`: its updates become backfilled track points (the latest of
    /// each device kept in `last`), its zone events late events.
    private func solve(_ pass: Engine, to t: Double, outputs: inout [EngineOutput], last: inout [String: DeviceUpdate],
                       into effects: inout [Effect]) {
        outputs.removeAll(keepingCapacity: true)
        pass.advance(to: t, into: &outputs)
        for output in outputs {
            switch output {
            case .update(let u):
                last[u.id] = u
                if u.room != nil { effects.append(.backfilledTrack(u)) }
            case .event(let e):
                emit(e, late: true, into: &effects)
            }
        }
    }
}
