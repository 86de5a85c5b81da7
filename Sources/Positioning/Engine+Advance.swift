import Wire

extension Engine {
    /// Moves event time to `t`: solves devices with new readings (at most once per
    /// `updateInterval` each), marks devices silent for `away_after` as away, and appends
    /// what happened to `output`.
    public func advance(to t: Double, into output: inout [EngineOutput]) {
        advance(to: t, maxSolves: .max, into: &output)
    }

    /// As `advance(to:into:)`, solving at most `maxSolves` devices (a held fix counts as an
    /// eighth of one, `mayHold`); those left due stay queued
    /// (`hasDueDevices`) for the next call. A pause in arrivals makes every device due in it
    /// due at once: the caller spreads that catch-up instead of doing it in one go.
    public func advance(to t: Double, maxSolves: Int, into output: inout [EngineOutput]) {
        guard t.isFinite else { return }
        watermark = max(watermark, t)
        var work = 0
        let budget = maxSolves == .max ? .max : maxSolves * Self.solveWork
        let interval = options.updateInterval
        // Each device is solved at most once per call: those that stay queued go back after.
        requeue.removeAll(keepingCapacity: true)
        while work < budget, queue.earliest <= t {
            let (device, due) = queue.pop()
            let d = Int(device)
            work += solve(device: d, at: t, into: &output) ? Self.solveWork : Self.holdWork
            // The device keeps its own phase: the next solve is due an interval after this
            // one was due, not after the moment it ran. Resetting to `t` let every pause of
            // event time (a stalled queue, a quiet moment) gather the devices due in it
            // into one phase for good: thousands then came due in the same message, every
            // half second. A device's first phase is spread by its index, so devices first
            // heard together do not stay together either.
            hot[d].lastSolve = due.isFinite
                ? t - (t - due).truncatingRemainder(dividingBy: interval)
                : t - interval * (Double(d) * Self.goldenFraction).truncatingRemainder(dividingBy: 1)
            // Readings stamped after `t` wait for a later advance.
            if hot[d].lastReading <= t { hot[d].isQueued = false } else { requeue.append(device) }
        }
        hasDueDevices = queue.earliest <= t
        for device in requeue { queue.push(device, due: hot[Int(device)].lastSolve + interval) }
        if t >= nextAwaySweep {
            sweepAway(at: t, into: &output)
            nextAwaySweep = t + Self.awaySweepInterval
        }
    }

    /// What `maxSolves` counts: a held fix costs about a tenth of a solve, so a solve counts 8
    /// and a hold 1.
    static let solveWork = 8, holdWork = 1
    /// Spreads first phases over the interval: device indices times the golden ratio's
    /// fraction fall evenly whatever their number.
    static let goldenFraction = 0.618_033_988_749_895
    /// Seconds of event time between two sweeps for away and forgotten devices: `away_after`
    /// is tens of seconds, so a second late is nothing.
    static let awaySweepInterval = 1.0

    /// Closes every open room and zone visit at `t` (a clean shutdown): one exit per enter.
    public func shutdown(at t: Double) -> [ZoneEvent] {
        var output: [EngineOutput] = []
        for d in devices.indices where devices[d].isPresent { leave(device: d, at: t, into: &output) }
        return output.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }

    private func sweepAway(at t: Double, into output: inout [EngineOutput]) {
        let limit = site.positioning.awayAfter
        let forgetLimit = max(forgetAfter, limit)
        for d in devices.indices where !devices[d].isFree {
            let silence = t - hot[d].lastReading
            if devices[d].isPresent {
                guard silence > limit else { continue }
                // The device left when it was last heard (or last located, when a solve came
                // after its last reading), as a crash recovery closes a visit at its last track
                // point: the sweep's own time put `away_after` of absence into every dwell.
                let left = max(hot[d].lastReading, devices[d].presence.lastObserved)
                leave(device: d, at: left, into: &output)
                output.append(.update(awayUpdate(device: d, at: t, since: left)))
            } else if silence > forgetLimit && !hot[d].isQueued {
                forget(device: d)
            }
        }
    }

    /// The update of a device that went away at `since`: no room, floor, zones or fix (docs/protocol.md#mqtt-topics-and-payloads;
    /// its position is the last one, which the publisher does not repeat as if it were current).
    private func awayUpdate(device d: Int, at t: Double, since: Double) -> DeviceUpdate {
        var u = update(device: d, at: t, nearest: nil)
        u.floor = nil
        u.zones = []
        u.confidence = 0
        u.fixes = 0
        u.since = since
        return u
    }

    private func leave(device d: Int, at t: Double, into output: inout [EngineOutput]) {
        let confidence = devices[d].confidence
        var presence = takePresence(d)
        presence.leave(at: t) { kind, zone, isRoom, dwell in
            output.append(.event(event(kind, device: d, zone: zone, isRoom: isRoom, at: t, confidence: confidence, dwell: dwell)))
        }
        devices[d].presence = presence
        devices[d].isPresent = false
        devices[d].track.floor = -1
        // Whatever comes back may be carried differently (or be another phone behind the same key).
        // An anchored device stays where it is, as it is.
        if devices[d].fixedFloor < 0 { devices[d].txOffset = 0 }
    }

    /// Solves device `d` at `t`, or holds its last fix (`mayHold`); `false` when it held.
    private func solve(device d: Int, at t: Double, into output: inout [EngineOutput]) -> Bool {
        gatherObservations(device: d, at: t)
        guard !observations.isEmpty else { return false }
        // No plan, no position: rooms from what the nodes hear (Engine+Rooms.swift).
        if !hasFloorPlan { return solveWithoutPlan(device: d, at: t, into: &output) }
        if mayHold(device: d, at: t) {
            holds += 1
            if options.hold.reportsHeldFixes { output.append(.update(heldUpdate(device: d, at: t))) }
            return false
        }
        rememberHeard(device: d, at: t)
        guard let fix = bestFix(device: d, at: t) else { return true }
        solves += 1
        var position = fix.position
        let floorBefore = devices[d].track.floor
        if pipeline.tracks {
            devices[d].track.update(fix, at: t)
            // Rooms follow the track, not the still device's mean (`Track.reported`): the room
            // test was tuned on the track, and fed the mean it held a tag on seed + 3's flat
            // steadily in the wrong room (25 → 39 % of updates) for fewer flips.
            position = geometry.clamp(devices[d].track.position, floor: fix.floor)
        } else {
            devices[d].track.start(fix, at: t)
        }
        settle(device: d, floorBefore: floorBefore, at: t)
        if pipeline.txLearning, txLearning.mayLearn(from: fix),
           let loudest = strongestObservation(), geometry.nodes[Int(loudest.node)].floors.contains(fix.floor) {
            // Only where the loudest node agrees on the floor: learning on a wrong floor would
            // fit the power to that floor and keep the device there. Learning goes on at solves
            // only: a held device's levels are those it was learned on.
            devices[d].txOffset = txLearning.learned(devices[d].txOffset, fix: fix, observations: observations,
                                                     site: geometry, model: selfCalibration.model(floor: fix.floor, base: model),
                                                     dt: t - hot[d].lastSolve)
            if selfCalibration.learns { teachSelfCalibration(device: d, fix: fix) }
        } else if selfCalibration.learns, devices[d].fixedFloor >= 0 {
            teachSelfCalibration(device: d, fix: fix)
        }
        devices[d].confidence = fix.confidence
        devices[d].residual = fix.cost
        devices[d].fixes = fix.fixes
        devices[d].isPresent = true
        measureRoomLoudness()
        gatherRoomEvidence(floor: fix.floor)
        var presence = takePresence(d)
        let roomFix = RoomFix(position: position.xy, spread: ((fix.xx + fix.yy) / 2).squareRoot(), confidence: fix.confidence,
                              floorContested: fix.floorContested)
        presence.observe(fix: roomFix, floor: fix.floor, heard: roomLoudness, evidence: roomEvidenceSources.isEmpty ? nil : roomEvidence,
                         at: t, site: geometry, options: options) { kind, zone, isRoom, dwell in
            output.append(.event(event(kind, device: d, zone: zone, isRoom: isRoom, at: t, confidence: fix.confidence, dwell: dwell)))
        }
        devices[d].presence = presence
        forgetRoomLoudness()
        let reported = geometry.clamp(devices[d].track.reported, floor: fix.floor)
        output.append(.update(update(device: d, at: t, nearest: strongestObservation().map { range(of: $0, from: reported, floor: fix.floor) })))
        return true
    }

    /// Moves a device's presence out of `devices` so that emitting its events may read
    /// `devices`, and so that the moved-out value is uniquely owned (no copy on write).
    func takePresence(_ d: Int) -> Presence {
        var presence = Presence()
        swap(&presence, &devices[d].presence)
        return presence
    }

    /// Per room, the loudest observation (RSSI less reference power) of a node in it. Between
    /// solves every room is `-infinity` (`forgetRoomLoudness`): only the rooms of the nodes that
    /// heard the device are touched, not every room of the site.
    func measureRoomLoudness() {
        for o in observations {
            let r = geometry.nodeRooms[Int(o.node)]
            if r >= 0 { roomLoudness[r] = max(roomLoudness[r], o.rssi - o.txRef) }
        }
    }

    /// Asks every room evidence source about this solve's observations (`RoomEvidence`).
    func gatherRoomEvidence(floor: Int) {
        guard !roomEvidenceSources.isEmpty else { return }
        roomEvidence.reset()
        for source in roomEvidenceSources {
            source.addEvidence(from: observations, floor: floor, site: geometry, into: &roomEvidence)
        }
    }

    /// Sets back what `measureRoomLoudness` set.
    func forgetRoomLoudness() {
        for o in observations {
            let r = geometry.nodeRooms[Int(o.node)]
            if r >= 0 { roomLoudness[r] = -.infinity }
        }
    }

    /// The device's smoothed observation from every node that heard it within the window.
    private func gatherObservations(device d: Int, at t: Double) {
        observations.removeAll(keepingCapacity: true)
        let txRef = (devices[d].configuredTxRef ?? hot[d].frameTxRef ?? site.positioning.txRefDefault) + devices[d].txOffset
        // A link silent this long (a walking tag left that node behind) is handed back for
        // reuse: links otherwise grow with every node a device ever passed.
        let smoothing = options.smoothing
        let stale = t - max(smoothing.staleAfter, smoothing.staleWindows * site.positioning.window)
        var i = 0
        while i < linkCount(device: d) {
            let l = link(device: d, at: i)
            guard links.latest(l.link) >= stale else {
                freeLinks[Int(l.node)].append(l.link)
                removeLink(device: d, at: i)
                continue
            }
            i += 1
        }
        for i in 0..<linkCount(device: d) {
            let l = link(device: d, at: i)
            guard let s = links.smoothed(link: l.link, at: t, window: site.positioning.window, options: smoothing) else { continue }
            let n = Int(l.node)
            observations.append(Observation(node: Int32(n), position: geometry.nodes[n].point, rssi: s.rssi + selfCalibration.offset(node: n),
                                            txRef: txRef, samples: s.samples))
        }
    }
}
