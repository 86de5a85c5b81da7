import Wire
import SiteModel

/// The room decision and zones stages: which room and zones one device is in, with the
/// hysteresis that keeps a still device put (`RoomOptions`, `ZoneOptions`).
///
/// A room change is a sequential test, not a timer: each solve adds evidence for every other
/// room on the floor — how much deeper the position lies in it than in the current room
/// (clipped to `room.step`), less a drift `room.drift`, weighted by the fix's confidence and the
/// time it stands for — and the sum is floored at zero (a CUSUM). A still device near a wall
/// adds evidence that averages below zero and rarely reaches the threshold; a walk through a
/// door adds about `room.step` a second and crosses it within seconds. Rooms not joined to the
/// current one need `room.farRoomFactor` times the evidence. A fix on another floor than the
/// current room's counts in full whatever its confidence when its floor won against another
/// floor that three or more nodes fixed too (below). Zones are entered after `dwell`
/// seconds clearly inside and left after `dwell` seconds clearly outside. Every enter is
/// paired with exactly one exit, including on `leave` (away or shutdown).
struct Presence: Sendable {
    struct Visit: Sendable {
        var zone: Int
        var inside: Bool
        var enteredAt: Double
        /// When the position first disagreed with `inside`; `nil` while it agrees.
        var pendingSince: Double?
    }

    var room = -1
    var roomSince = 0.0
    var floor = -1
    /// Evidence (m·s) that the device is in another room rather than in `room`, kept only for
    /// the few rooms where it is above zero (a device has some near it, none across the site):
    /// a dense per-room array cost every device 8 bytes per room of the site.
    private var evidence: [(room: Int32, value: Double)] = []
    /// When the device was last located (its last tracked position), `-infinity` before.
    private(set) var lastObserved = -Double.infinity
    /// The device's probability over rooms (`RoomPosterior`), and when it was last stepped.
    var posterior = RoomPosterior()
    var posteriorStepped = -Double.infinity
    /// Before the first enter: the room the last solves agreed on, and how many did.
    private var firstRoom = -1
    private var firstCount = 0
    var visits: [Visit] = []

    /// One tracked position: may emit exits and enters. `heard` is, per room, the strongest
    /// RSSI (for the device's reference power) of a node in that room; `-infinity` where none heard it.
    /// `floorContested`: the fix's floor beat another floor that three or more nodes fixed too
    /// (`Fix.floorContested`).
    mutating func observe(_ p: Point2, floor f: Int, confidence: Double, floorContested: Bool = false, heard: [Double], at t: Double,
                          site: SiteGeometry, options: EngineOptions, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        observe(fix: RoomFix(position: p, spread: 0, confidence: confidence, floorContested: floorContested), floor: f,
                heard: heard, evidence: nil, at: t, site: site, options: options, emit: emit)
    }

    /// One solve: its fix (`nil` where the site has no floor plan or the solve placed none),
    /// floor, per-room loudness (as above) and other room evidence (`RoomEvidence`, `nil` for
    /// none). Steps the room posterior; may emit exits and enters.
    mutating func observe(fix: RoomFix?, floor f: Int, heard: [Double], evidence: RoomEvidence?, at t: Double,
                          site: SiteGeometry, options: EngineOptions, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        // Without a fix (a site without a floor plan) there is no room test: the posterior decides.
        if options.room.posterior.decides || fix == nil {
            decideByPosterior(fix, floor: f, heard: heard, evidence: evidence, at: t, site: site,
                              options: options.room.posterior, emit: emit)
        } else {
            stepPosterior(fix, floor: f, heard: heard, evidence: evidence, at: t, site: site, options: options.room.posterior)
            if let fix {
                updateRoom(fix.position, floor: f, confidence: fix.confidence, floorContested: fix.floorContested,
                           heard: heard, at: t, site: site, options: options.room, emit: emit)
            }
        }
        if let fix { updateZones(fix.position, floor: f, at: t, site: site, options: options.zones, emit: emit) }
    }

    private mutating func updateRoom(_ p: Point2, floor f: Int, confidence: Double, floorContested: Bool, heard: [Double], at t: Double,
                                     site: SiteGeometry, options: RoomOptions,
                                     emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        let dt = min(max(t - lastObserved, 0), EngineOptions.longestSolveGap)
        lastObserved = t
        guard room >= 0 else { enterFirstRoom(p, floor: f, confidence: confidence, at: t, site: site, options: options, emit: emit); return }
        guard confidence >= options.minimumConfidence, site.floors.indices.contains(f) else { return }
        let weight = min(confidence / options.fullConfidence, 1) * dt
        // Evidence between floors counts in full, both ways: the fix's confidence is its spread
        // over the floor, and says nothing of its floor, which the locator chose on other grounds
        // (`Engine.bestFix`). Weighed by it, a fix on another floor than the current room's added
        // the 2 m·s of a room change at the default locator's usual confidence of 0.05–0.15 in
        // 7–20 s: it came down the house's stairs into the hall 7.5 s after the device, the
        // baselines, whose confidence there is 0.3 or more, 2 s. Only when the floor was
        // contested, though (`Fix.floorContested`): a floor that won because the current one had
        // fewer than three nodes to fix it (its nodes down, or two heard and three through the
        // ceiling) is weighed by confidence as any fix is.
        let floorWeight = floorContested ? dt : weight
        let cap = options.step
        // The current room on another floor: this fix says the device is not in it at all.
        let here = site.rooms[room].floor == f ? site.signedDepth(room: room, at: p) : -cap
        let test = RoomTest(p: p, floor: f, current: room, here: here, weight: weight, floorWeight: floorWeight,
                            crossing: site.rooms[room].floor != f, heard: heard, cap: cap)
        var winner = (room: -1, ratio: 1.0)
        guard test.mayPrune(options) else {
            for c in site.rooms.indices where c != room { weigh(c, test, site: site, options: options, winner: &winner) }
            return finishRoom(winner.room, floor: f, at: t, emit: emit)
        }
        // Only the rooms near the fix and those holding evidence can gain any: the others'
        // evidence is zero and stays so (`RoomTest.mayPrune`).
        site.forEachRoom(near: p, within: test.far, floor: f) { c in
            if test.isNear(c, site: site) { weigh(c, test, site: site, options: options, winner: &winner) }
        }
        var i = 0
        while i < evidence.count {
            let c = Int(evidence[i].room), count = evidence.count
            if !test.isNear(c, site: site) { weigh(c, test, site: site, options: options, winner: &winner) }
            // Weighing a held room keeps or drops its own entry.
            if evidence.count == count { i += 1 }
        }
        finishRoom(winner.room, floor: f, at: t, emit: emit)
    }

    /// A room change to `winner`, if there is one.
    private mutating func finishRoom(_ winner: Int, floor f: Int, at t: Double, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        guard winner >= 0 else { return }
        emit(.exit, room, true, t - roomSince)
        enter(winner, floor: f, at: t, emit: emit)
    }

    /// Adds this solve's evidence for room `c` (not the current one), and makes it the winner
    /// when it has gathered enough: the larger share of what it needs, the higher index on a tie
    /// (as a walk through the rooms in order keeping the last of equals).
    private mutating func weigh(_ c: Int, _ test: RoomTest, site: SiteGeometry, options: RoomOptions, winner: inout (room: Int, ratio: Double)) {
        let f = test.floor, room = test.current, p = test.p, cap = options.step
        let held = evidence.firstIndex { $0.room == Int32(c) }
        let before = held.map { evidence[$0].value } ?? 0
        let after: Double
        if site.rooms[c].floor == f {
            var step = site.rooms[c].boxDistance(p) > test.far ? -cap : min(max(site.signedDepth(room: c, at: p) - test.here, -cap), cap)
            // The room whose own node hears the device clearly louder than the current room's
            // does gains, as a nearest-node system would say; a tie adds nothing.
            let louder = test.heard[c] - test.heard[room]
            if louder.isFinite { step += options.heardStep * min(max(louder / options.heardScale, -1), 1) }
            after = max(0, before + (test.crossing ? test.floorWeight : test.weight) * (step - options.drift))
        } else {
            after = max(0, before - test.floorWeight * (cap + options.drift))
        }
        if let held {
            if after > 0 { evidence[held].value = after } else { evidence.remove(at: held) }
        } else if after > 0 {
            evidence.append((Int32(c), after))
        }
        guard site.rooms[c].floor == f else { return }
        let joined = site.mayMove(from: room, to: c) || site.rooms[room].floor != f
        let ratio = after / (options.evidence * (joined ? 1 : options.farRoomFactor))
        if ratio > winner.ratio || (ratio == winner.ratio && c > winner.room) { winner = (c, ratio) }
    }

    /// The first room after a start or an away: a thin first window can put the fix anywhere,
    /// so the room must be named by `firstRoomSolves` solves in a row, or one confident fix.
    private mutating func enterFirstRoom(_ p: Point2, floor f: Int, confidence: Double, at t: Double, site: SiteGeometry,
                                         options: RoomOptions, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        floor = f
        guard let (r, _) = site.room(at: p, floor: f), confidence >= options.minimumConfidence else { return }
        firstCount = r == firstRoom ? firstCount + 1 : 1
        firstRoom = r
        guard firstCount >= options.firstRoomSolves || confidence >= options.firstRoomConfidence else { return }
        enter(r, floor: f, at: t, emit: emit)
    }

    mutating func enter(_ r: Int, floor f: Int, at t: Double, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        room = r; roomSince = t; floor = f
        firstRoom = -1; firstCount = 0
        evidence.removeAll(keepingCapacity: true)
        emit(.enter, r, true, nil)
    }

    /// The device left (away, or the engine shuts down): close every open visit.
    mutating func leave(at t: Double, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        for v in visits where v.inside { emit(.exit, v.zone, false, t - v.enteredAt) }
        visits.removeAll(keepingCapacity: true)
        if room >= 0 { emit(.exit, room, true, t - roomSince) }
        room = -1; firstRoom = -1; firstCount = 0
        evidence.removeAll()
        posterior.reset()
        posteriorStepped = -.infinity
    }

    /// In a room with no room or zone change under way (engine holds need this): the sequential
    /// test holds no evidence, or, where the posterior decides, it is sure of the room
    /// (`RoomPosterior.settled`).
    func isSettled(options: RoomOptions) -> Bool {
        guard room >= 0, !visits.contains(where: { $0.pendingSince != nil }) else { return false }
        return options.posterior.decides ? posterior.held(room) >= RoomPosterior.settled : evidence.isEmpty
    }
}

/// What one solve's room test weighs each room against.
struct RoomTest {
    var p: Point2
    var floor: Int
    /// The device's room, and how deep the fix lies in it (m; `-room.step` on another floor).
    var current: Int
    var here: Double
    /// What a second of evidence counts for on this floor, and across floors.
    var weight: Double
    var floorWeight: Double
    var crossing: Bool
    /// Per room, the loudest level of a node in it (`Presence.observe`).
    var heard: [Double]
    /// A room whose box lies farther than this is at least `room.step` shallower than the current
    /// one, so its depth term is `-room.step` without measuring it (the margin covers rounding).
    var far: Double
    /// Metres added to `far` so that rounding in the box distance never prunes a room that counts.
    static let roundingMargin = 1e-6

    init(p: Point2, floor: Int, current: Int, here: Double, weight: Double, floorWeight: Double, crossing: Bool,
         heard: [Double], cap: Double) {
        self.p = p; self.floor = floor; self.current = current; self.here = here
        self.weight = weight; self.floorWeight = floorWeight; self.crossing = crossing; self.heard = heard
        far = cap - here + Self.roundingMargin
    }

    /// Whether a room that holds no evidence and is not near the fix (`isNear`) may be left out:
    /// its evidence would stay zero. So it is when no weight is negative and a room beyond `far`
    /// gains nothing, however loud its node (`-step + |heardStep| - drift <= 0`, as the
    /// defaults have it), nor one on another floor; and for a position and reach that are numbers.
    func mayPrune(_ options: RoomOptions) -> Bool {
        let cap = options.step, drift = options.drift
        return weight >= 0 && floorWeight >= 0 && cap + drift >= 0 && abs(options.heardStep) - cap - drift <= 0
            && p.x.isFinite && p.y.isFinite && far.isFinite
    }

    /// Another room on the fix's floor whose box comes within `far` of it: one whose depth is measured.
    func isNear(_ c: Int, site: SiteGeometry) -> Bool {
        c != current && site.rooms[c].floor == floor && !(site.rooms[c].boxDistance(p) > far)
    }
}
