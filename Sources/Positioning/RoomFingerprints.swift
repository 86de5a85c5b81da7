import Wire
import SiteModel

/// Taught per-room fingerprints (`RoomFingerprintSet`, `whereabouts calibrate --rooms`) compiled
/// against a site: per room and node, how likely the node hears a device there and how loud.
///
/// A solve's levels (per node: smoothed RSSI with `rx_adj`, less the device's reference power;
/// `-infinity` not heard) give each room a log-likelihood, nodes taken as independent (naive
/// Bayes) and the sum tempered by `temper`, since neighbouring windows and nodes are not
/// independent. Two rules keep a changed set of nodes from naming a confident wrong room:
/// - a node that is not live (heard by no device lately: switched off, or gone since teach-in)
///   is left out of every room's sum: its silence says nothing of the room;
/// - a node the fingerprints do not know (added after teach-in) adds nothing here; the node-room
///   evidence (`NodeRoomEvidence`) speaks for it.
/// A room the teach-in never visited is scored with the pooled fingerprint of every taught room,
/// less `untaughtPenalty`: it wins only where no taught room fits.
public struct RoomFingerprints: Sendable {
    /// Rooms (the site's room order, all floors) and nodes (the site's node order).
    public let roomCount: Int, nodeCount: Int
    /// Per room, whether it was taught.
    public private(set) var taught: [Bool]
    /// Per node, whether any fingerprint knows it.
    public private(set) var known: [Bool]
    /// `roomCount × nodeCount`: log P(heard), log P(not heard), mean level, 1 / sd, log-density constant.
    private var logHeard: [Double], logMissed: [Double], mean: [Double], inverseSD: [Double], logNorm: [Double]
    /// The pooled fingerprint per node (for untaught rooms), same meaning.
    private var pooled: [(logHeard: Double, logMissed: Double, mean: Double, inverseSD: Double, logNorm: Double)]
    public let window: Double

    /// Weight of a solve's summed log-likelihood.
    public static let temper = 0.5
    /// Nats an untaught room scores below the pooled fingerprint.
    public static let untaughtPenalty = 2.0
    /// A heard share is kept within these, so one window unlike teach-in is not impossible.
    public static let heardRange = 0.03...0.97
    /// The least spread of a level (dB): RSSI is whole dB and fades by several.
    public static let minimumSD = 3.0
    /// Levels deeper than this below a fingerprint's mean count as this deep: a wild reading
    /// does not decide alone.
    public static let maximumZ = 3.0

    /// Compiles `set` for rooms `rooms` and nodes `nodes` (ids and names in the engine's order).
    /// Rooms or nodes of `set` not among them are left out.
    public init(_ set: RoomFingerprintSet, rooms: [String], nodes: [String]) {
        roomCount = rooms.count; nodeCount = nodes.count; window = set.window
        let cells = rooms.count * nodes.count
        taught = Array(repeating: false, count: rooms.count)
        known = Array(repeating: false, count: nodes.count)
        logHeard = Array(repeating: 0, count: cells); logMissed = logHeard; mean = logHeard; inverseSD = logHeard; logNorm = logHeard
        pooled = Array(repeating: (0, 0, 0, 1, 0), count: nodes.count)
        var nodeIndex: [String: Int] = [:]
        for (i, n) in nodes.enumerated() where nodeIndex[n] == nil { nodeIndex[n] = i }
        var pool = Array(repeating: (windows: 0.0, heard: 0.0, sum: 0.0, squares: 0.0), count: nodes.count)
        for room in set.rooms {
            guard let r = rooms.firstIndex(of: room.room) else { continue }
            taught[r] = true
            for level in room.nodes {
                guard let n = nodeIndex[level.node] else { continue }
                known[n] = true
                let c = Self.cell(heard: level.heard, mean: level.level, sd: level.sd)
                let i = r * nodes.count + n
                (logHeard[i], logMissed[i], mean[i], inverseSD[i], logNorm[i]) = c
                let w = Double(room.windows), h = w * level.heard
                pool[n].windows += w; pool[n].heard += h; pool[n].sum += h * level.level
                pool[n].squares += h * (level.sd * level.sd + level.level * level.level)
            }
        }
        for n in nodes.indices where pool[n].windows > 0 && pool[n].heard > 0 {
            let m = pool[n].sum / pool[n].heard
            let sd = max(pool[n].squares / pool[n].heard - m * m, 0).squareRoot()
            pooled[n] = Self.cell(heard: pool[n].heard / pool[n].windows, mean: m, sd: sd)
        }
    }

    private static func cell(heard: Double, mean: Double, sd: Double) -> (Double, Double, Double, Double, Double) {
        let p = min(max(heard, heardRange.lowerBound), heardRange.upperBound)
        let s = max(sd, minimumSD)
        // log of the normal density's constant, 1 / (s √(2π)); `log` from the engine's own.
        return (Elementary.log(p), Elementary.log(1 - p), mean, 1 / s, -Elementary.log(s) - 0.918_938_533_204_672_7)
    }

    /// Whether any room was taught at all.
    public var isEmpty: Bool { !taught.contains(true) }

    /// Adds each room's tempered log-likelihood of `levels` (per node, `-infinity`: not heard)
    /// to `out[room]` for the rooms in `rooms`; nodes with `live[n] == false` are left out.
    public func addLogLikelihoods(levels: [Double], live: [Bool], rooms: [Int], into out: inout [Double]) {
        for r in rooms where r < roomCount {
            var sum = 0.0
            for n in 0..<min(nodeCount, levels.count) where known[n] && (n >= live.count || live[n]) {
                sum += taught[r] ? term(at: r * nodeCount + n, levels[n]) : pooledTerm(n, levels[n])
            }
            out[r] += Self.temper * (taught[r] ? sum : sum - Self.untaughtPenalty)
        }
    }

    private func term(at i: Int, _ level: Double) -> Double {
        guard level.isFinite else { return logMissed[i] }
        let z = min(abs(level - mean[i]) * inverseSD[i], Self.maximumZ)
        return logHeard[i] + logNorm[i] - z * z / 2
    }

    private func pooledTerm(_ n: Int, _ level: Double) -> Double {
        let c = pooled[n]
        guard level.isFinite else { return c.logMissed }
        let z = min(abs(level - c.mean) * c.inverseSD, Self.maximumZ)
        return c.logHeard + c.logNorm - z * z / 2
    }
}
