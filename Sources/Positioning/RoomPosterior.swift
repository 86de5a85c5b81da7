import Wire
import SiteModel

/// One device's probability over the site's rooms and `away`: a hidden Markov model's forward
/// filter, stepped at every solve (`RoomPosterior+Update.swift`).
///
/// - **Transitions** (`predict`): in a second the device leaves its room with probability
///   `RoomPosteriorOptions.leaveRate` (the dwell prior: stays last about 1/rate seconds), through a door
///   into one of the rooms the site joins to it (`SiteGeometry.neighbours`); a small
///   `RoomPosteriorOptions.jumpRate` lets any room (a tracker that lost the device, the stairs) and `away`
///   gain, so a wrong belief always recovers.
/// - **Evidence** (`update`): how deep the fix lies in each room for its spread, which room's node
///   hears the device loudest, and the sources' `RoomEvidence`, each tempered by the seconds the
///   solve stands for over `RoomPosteriorOptions.memory` (successive fixes share most of their readings,
///   and counted as independent they made a still device's noise look certain).
///
/// With doors and a dwell prior the filter is a sequential test: another room's log-odds gather
/// what each solve says for it and are floored near `log(leaveRate · dt)`, so a still device's
/// noise by a wall must climb all of that to flip, while a walk through a door climbs it in a
/// few seconds.
///
/// The rooms are kept in at most `capacity` slots (the whole site when it has that few): the
/// rooms the fix lies near, those with evidence, and those that were; every other room shares
/// `rest`, spread evenly over them (far from every fix, they are told apart by nothing). A solve
/// then costs the slots it touches, not the site, and allocates nothing once the slots exist.
struct RoomPosterior: Sendable {
    struct Slot: Sendable {
        var room: Int32
        var p: Double
        /// Scratch for `predict`: what leaves the room this step.
        var leaving = 0.0
    }

    /// The rooms held one by one, in no set order.
    private(set) var slots: [Slot] = []
    /// The probability of all other rooms, evenly theirs, and of `away`.
    private(set) var rest = 1.0
    private(set) var away = 0.0
    /// The most rooms held one by one.
    static let capacity = 16

    /// How likely room `r` (an engine room index) is; -1 for `away`.
    func probability(of r: Int, rooms: Int) -> Double {
        if r < 0 { return away }
        if let s = slots.first(where: { $0.room == Int32(r) }) { return s.p }
        let others = rooms - slots.count
        return others > 0 ? rest / Double(others) : 0
    }

    /// Room `r`'s probability if it is held one by one, else 0.
    func held(_ r: Int) -> Double {
        slots.first { $0.room == Int32(r) }?.p ?? 0
    }

    /// How sure of its room a device must be for the engine to hold its fix (`Engine.mayHold`):
    /// a held device's posterior stands still, so it must not be half-way to a change.
    static let settled = 0.95
    /// A probability below which a room's door transitions are left out (`predict`).
    static let negligible = 1e-6

    /// The likeliest room held one by one (-1 with none), and its probability.
    var best: (room: Int, p: Double) {
        var best = (room: -1, p: -1.0)
        for s in slots where s.p > best.p || (s.p == best.p && Int(s.room) > best.room) { best = (Int(s.room), s.p) }
        return best
    }

    /// Back to knowing nothing (a start, or back from away).
    mutating func reset() {
        slots.removeAll(keepingCapacity: true)
        rest = 1
        away = 0
    }

    /// The slot of room `r`, taking it into the slots (with its even share of `rest`) when it is
    /// not there. With every slot taken, the least likely room other than `keep` goes back to `rest`.
    @discardableResult
    mutating func admit(_ r: Int, keep: Int, rooms: Int) -> Int {
        if let i = slots.firstIndex(where: { $0.room == Int32(r) }) { return i }
        if slots.capacity < min(rooms, Self.capacity) { slots.reserveCapacity(min(rooms, Self.capacity)) }
        if slots.count >= min(rooms, Self.capacity) {
            var low = -1
            for i in slots.indices where Int(slots[i].room) != keep && (low < 0 || slots[i].p < slots[low].p) { low = i }
            guard low >= 0 else { return -1 }
            rest += slots[low].p
            slots.swapAt(low, slots.count - 1)
            slots.removeLast()
        }
        let others = rooms - slots.count
        let share = others > 0 ? rest / Double(others) : 0
        rest = max(rest - share, 0)
        slots.append(Slot(room: Int32(r), p: share))
        return slots.count - 1
    }

    /// The step of `dt` seconds: each held room gives `1 - exp(-leaveRate·dt)` of its probability
    /// to its door neighbours (to `rest` for those not held; a room without neighbours keeps it),
    /// then `jump` (a probability) of everything is spread evenly over every room and `away`.
    mutating func predict(dt: Double, jump: Double, site: SiteGeometry, options: RoomPosteriorOptions) {
        let leave = 1 - Elementary.exp(-options.leaveRate * dt)
        // A room this unlikely keeps what would leave it: moving it is most of a step's cost
        // (a look-up per door) and changes nothing a decision or a payload shows.
        for i in slots.indices {
            slots[i].leaving = slots[i].p < Self.negligible || site.neighbours[Int(slots[i].room)].isEmpty ? 0 : slots[i].p * leave
        }
        for i in slots.indices where slots[i].leaving > 0 {
            let through = site.neighbours[Int(slots[i].room)]
            let each = slots[i].leaving / Double(through.count)
            for n in through {
                if let j = slots.firstIndex(where: { $0.room == n }) { slots[j].p += each } else { rest += each }
            }
            slots[i].p -= slots[i].leaving
        }
        guard jump > 0 else { return }
        let states = Double(site.rooms.count + 1), keep = 1 - jump
        for i in slots.indices { slots[i].p = slots[i].p * keep + jump / states }
        rest = rest * keep + jump * Double(site.rooms.count - slots.count) / states
        away = away * keep + jump / states
    }

    /// Multiplies each held room by `exp(score)` (`score(room)`), the other rooms by
    /// `exp(restScore)`, `away` by `exp(awayScore)`, and normalises.
    mutating func weigh(restScore: Double, awayScore: Double, _ score: (Int) -> Double) {
        var top = max(restScore, awayScore)
        for i in slots.indices {
            slots[i].leaving = score(Int(slots[i].room))
            top = max(top, slots[i].leaving)
        }
        guard top.isFinite else { return }
        var total = 0.0
        for i in slots.indices {
            slots[i].p *= Elementary.exp(slots[i].leaving - top)
            total += slots[i].p
        }
        rest *= Elementary.exp(restScore - top)
        away *= Elementary.exp(awayScore - top)
        total += rest + away
        guard total > 0, total.isFinite else { reset(); return }
        for i in slots.indices { slots[i].p /= total }
        rest /= total
        away /= total
    }

    /// The `count` likeliest held rooms, likeliest first, into `out` (cleared).
    func top(_ count: Int, into out: inout RoomShares, site: SiteGeometry) {
        out = RoomShares()
        for s in slots where s.p > 0 { out.offer(site.rooms[Int(s.room)].id, s.p, keep: count) }
    }
}
