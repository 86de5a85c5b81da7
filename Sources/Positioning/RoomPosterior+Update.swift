import Wire
import SiteModel

/// What one solve tells the room posterior, and how much it counts.
struct RoomLook {
    var fix: RoomFix?
    var floor: Int
    /// Per room, the loudest node in it (`Presence.observe`); `-infinity` where none heard it.
    var heard: [Double]
    var evidence: RoomEvidence?
    /// The seconds the solve stands for over `RoomPosteriorOptions.memory`: what its evidence counts for.
    var share: Double
    /// The device's believed floor differs from the solve's.
    var crossing: Bool
}

extension RoomPosterior {
    /// The slope of the logistic that stands for the normal distribution's CDF: a fix `d` metres
    /// deep in a room of spread `σ` is in it with probability about `1 / (1 + exp(-slope·d/σ))`.
    /// Its tail is linear in `d`, not quadratic: a fix far off costs a bounded amount per metre.
    static let slope = 1.7

    /// One solve: the transitions since the last, then its evidence.
    mutating func step(_ look: RoomLook, dt: Double, keep: Int, site: SiteGeometry, options: RoomPosteriorOptions) {
        let rate = look.crossing && (look.fix?.floorContested ?? false) ? options.floorJumpRate : options.jumpRate
        predict(dt: dt, jump: 1 - Elementary.exp(-rate * dt), site: site, options: options)
        let fix = look.fix.flatMap { $0.confidence >= options.minimumConfidence && $0.position.x.isFinite && $0.position.y.isFinite ? $0 : nil }
        guard fix != nil || look.evidence?.isInformative == true else { return }
        let spread = max((fix?.spread ?? 0) * options.spreadShare, options.spreadFloor)
        let reach = -options.farLogLikelihood * spread / Self.slope + max(options.wallBand, 0)
        if let fix {
            site.forEachRoom(near: fix.position, within: reach, floor: look.floor) { r in
                if !(site.rooms[r].boxDistance(fix.position) > reach) { admit(r, keep: keep, rooms: site.rooms.count) }
            }
        }
        // A floor of few rooms is held whole: a room no fix lies near may still be named by evidence.
        if site.floors.indices.contains(look.floor), site.floors[look.floor].rooms.count <= Self.capacity,
           slots.count < site.floors[look.floor].rooms.count {
            for r in site.floors[look.floor].rooms { admit(r, keep: keep, rooms: site.rooms.count) }
        }
        if let evidence = look.evidence {
            for r in evidence.touched where site.rooms[Int(r)].floor == look.floor || look.floor < 0 {
                admit(Int(r), keep: keep, rooms: site.rooms.count)
            }
        }
        // The position counts by the fix's confidence; a change of floor in full when the floor
        // won a contest (`Fix.floorContested`), as its confidence says nothing of its floor.
        var weight = look.share * min((fix?.confidence ?? 0) / options.fullConfidence, 1)
        if look.crossing && fix?.floorContested == true { weight = look.share }
        let loudness = meanLoudness(look, site: site)
        weigh(restScore: 0, awayScore: (look.evidence?.away ?? 0) * look.share) { r in
            guard site.rooms[r].floor == look.floor || look.floor < 0 else { return 0 }
            var score = (look.evidence?.logLikelihood[r] ?? 0) * look.share
            if let fix, !(site.rooms[r].boxDistance(fix.position) > reach) {
                let depth = site.signedDepth(room: r, at: fix.position)
                let z = (depth > 0 ? max(depth - options.wallBand, 0) : min(depth + options.wallBand, 0)) / spread
                score += weight * (max(-Self.softplus(-Self.slope * z), options.farLogLikelihood) - options.farLogLikelihood)
            }
            let heard = look.heard[r]
            if heard.isFinite && loudness.isFinite {
                score += look.share * options.heardWeight * min(max((heard - loudness) / options.heardScale, -1), 1)
            }
            return score
        }
    }

    /// The mean loudness of the held rooms of the solve's floor whose nodes heard the device:
    /// what a room's own node is compared with.
    private func meanLoudness(_ look: RoomLook, site: SiteGeometry) -> Double {
        var sum = 0.0, count = 0
        for s in slots where look.heard[Int(s.room)].isFinite && site.rooms[Int(s.room)].floor == look.floor {
            sum += look.heard[Int(s.room)]; count += 1
        }
        return count > 0 ? sum / Double(count) : -.infinity
    }

    /// log(1 + e^x), without overflow.
    static func softplus(_ x: Double) -> Double {
        x > 30 ? x : Elementary.log(1 + Elementary.exp(x))
    }
}

/// The likeliest rooms of a device with their probabilities, likeliest first (at most
/// `RoomShares.most`): the `rooms` of the `state` payload (docs/protocol.md, MQTT topics).
/// Held inline, so an update carries them without allocating.
public struct RoomShares: Sendable, Equatable, RandomAccessCollection {
    /// The most rooms kept.
    public static let most = 3
    private var ids: (String?, String?, String?) = (nil, nil, nil)
    private var shares: (Double, Double, Double) = (0, 0, 0)
    public private(set) var count = 0

    public init() {}

    /// The rooms given, likeliest first; beyond `most` dropped.
    public init(_ rooms: [(id: String, p: Double)]) {
        for (id, p) in rooms { offer(id, p, keep: Self.most) }
    }

    public subscript(i: Int) -> (id: String, p: Double) {
        switch i {
        case 0: (ids.0 ?? "", shares.0)
        case 1: (ids.1 ?? "", shares.1)
        default: (ids.2 ?? "", shares.2)
        }
    }

    /// Takes `id` if it is among the `keep` likeliest so far (`keep` at most `most`).
    mutating func offer(_ id: String, _ p: Double, keep: Int) {
        let keep = Swift.min(keep, Self.most)
        var i = count
        while i > 0 && self[i - 1].p < p { i -= 1 }
        guard i < keep else { return }
        var j = Swift.min(count, keep - 1)
        while j > i { set(j, self[j - 1]); j -= 1 }
        set(i, (id, p))
        count = Swift.min(count + 1, keep)
    }

    private mutating func set(_ i: Int, _ v: (id: String, p: Double)) {
        switch i {
        case 0: ids.0 = v.id; shares.0 = v.p
        case 1: ids.1 = v.id; shares.1 = v.p
        default: ids.2 = v.id; shares.2 = v.p
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public static func == (a: RoomShares, b: RoomShares) -> Bool {
        a.count == b.count && (0..<a.count).allSatisfy { a[$0].id == b[$0].id && a[$0].p == b[$0].p }
    }
}
