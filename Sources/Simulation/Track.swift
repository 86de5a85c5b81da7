import Wire
import SiteModel

/// Where a device is at each moment: a chain of legs (walks, stays, absences) covering the
/// whole scenario, built once from its path. Times are seconds since the scenario's start.
package struct Track: Sendable {
    struct Spot: Sendable, Equatable {
        var xy: Point2
        var floor: Int
    }

    struct Leg: Sendable {
        var start: Double
        var end: Double
        var from: Spot
        var to: Spot
        /// The direction the carrier faces (unit vector): where they walk, or last walked.
        var heading: Point2
        var away: Bool
    }

    /// The device at one moment.
    package struct State: Sendable, Equatable {
        package var position: Point3
        package var floor: Int
        package var heading: Point2
        package var away: Bool
    }

    var legs: [Leg]
    /// The carrier's height above the floor.
    let height: Double

    /// The device at `t`; before the first leg it is at its start, after the last at its end.
    package func state(at t: Double, in world: World) -> State {
        let i = legIndex(at: t)
        let leg = legs[i]
        let span = leg.end - leg.start
        let f = span > 0 ? min(max((t - leg.start) / span, 0), 1) : 1
        let xy = Point2(leg.from.xy.x + (leg.to.xy.x - leg.from.xy.x) * f, leg.from.xy.y + (leg.to.xy.y - leg.from.xy.y) * f)
        let z0 = world.z(leg.from.floor, height: height), z1 = world.z(leg.to.floor, height: height)
        // On the stairs the floor changes halfway up.
        let floor = f < 0.5 ? leg.from.floor : leg.to.floor
        return State(position: Point3(xy.x, xy.y, z0 + (z1 - z0) * f), floor: floor, heading: leg.heading, away: leg.away)
    }

    /// The last leg starting at or before `t` (binary search; legs are in time order).
    private func legIndex(at t: Double) -> Int {
        var low = 0, high = legs.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if legs[mid].start <= t { low = mid } else { high = mid - 1 }
        }
        return low
    }
}

/// Builds a device's track from its path steps.
struct TrackBuilder {
    let world: World
    let device: DeviceSpec
    var rng: RandomStream
    var legs: [Track.Leg] = []
    var t = 0.0
    var here: Track.Spot?
    var heading = Point2(1, 0)

    init(world: World, device: DeviceSpec, rng: RandomStream) {
        self.world = world; self.device = device; self.rng = rng
    }

    /// The track through `duration` seconds; `nil` when the path never says where the device is.
    mutating func build(duration: Double) -> Track? {
        repeat {
            let before = t
            for step in device.path where t < duration { apply(step, until: duration) }
            if t <= before + 1e-6 { break }  // a loop that takes no time would never end
        } while device.loop && t < duration
        guard let here else { return nil }
        if t < duration || legs.isEmpty { stay(duration - t + 1, at: here, away: false) }
        // Stays and absences before the first position happen where the device first appears.
        let first = legs.first { !$0.from.xy.x.isNaN }?.from ?? here
        for i in legs.indices where legs[i].from.xy.x.isNaN {
            legs[i].from = first; legs[i].to = first
        }
        return Track(legs: fixedStarts(), height: device.height)
    }

    private mutating func apply(_ step: PathStep, until limit: Double) {
        switch step.action {
        case let .waypoint(p, floorID, dwell):
            let floor = floorID.flatMap(world.floorIndex) ?? here?.floor ?? world.floorIndex(containing: p) ?? 0
            let target = Track.Spot(xy: p, floor: floor)
            if here == nil { here = target } else { walk(to: target, until: limit) }
            if dwell > 0 { stay(dwell, at: target, away: false) }
        case let .randomWalk(roomID, duration):
            guard let (floor, room) = world.room(named: roomID) else { return }
            if here == nil { here = Track.Spot(xy: Polygon.centroid(world.site.floors[floor].rooms[room].points), floor: floor) }
            let end = min(t + duration, limit)
            while t < end {
                let p = world.randomPoint(floor, room: room, margin: 0.3, rng: &rng)
                walk(to: Track.Spot(xy: p, floor: floor), until: end)
                if t < end { stay(min(rng.uniform(0...4), end - t), at: Track.Spot(xy: p, floor: floor), away: false) }
            }
        case let .still(duration):
            stay(duration, at: here ?? Track.Spot(xy: Point2(.nan, .nan), floor: 0), away: false)
        case let .away(duration):
            stay(duration, at: here ?? Track.Spot(xy: Point2(.nan, .nan), floor: 0), away: true)
        }
    }

    /// Walks from `here` to `target`: up or down the stairs first, then through doors.
    private mutating func walk(to target: Track.Spot, until limit: Double) {
        guard var at = here else { here = target; return }
        if at.floor != target.floor {
            let climb = abs(world.z(target.floor, height: 0) - world.z(at.floor, height: 0))
            // Stairs: about a third of walking speed, vertically.
            let next = Track.Spot(xy: at.xy, floor: target.floor)
            move(from: at, to: next, duration: max(climb / (device.speed / 3), 0.5), until: limit)
            at = next
        }
        for p in world.route(target.floor, from: at.xy, to: target.xy) where t < limit {
            let next = Track.Spot(xy: p, floor: target.floor)
            move(from: at, to: next, duration: length(at.xy, p) / device.speed, until: limit)
            at = here ?? next
        }
    }

    /// One leg from `a` to `b`, cut short at `limit` (where a random walk's time runs out).
    private mutating func move(from a: Track.Spot, to b: Track.Spot, duration: Double, until limit: Double) {
        guard duration > 1e-9 else { here = b; return }
        let d = length(a.xy, b.xy)
        if d > 1e-9 { heading = Point2((b.xy.x - a.xy.x) / d, (b.xy.y - a.xy.y) / d) }
        var to = b, end = t + duration
        if end > limit {
            let f = (limit - t) / duration
            to = Track.Spot(xy: Point2(a.xy.x + (b.xy.x - a.xy.x) * f, a.xy.y + (b.xy.y - a.xy.y) * f), floor: f < 0.5 ? a.floor : b.floor)
            end = limit
        }
        legs.append(Track.Leg(start: t, end: end, from: a, to: to, heading: heading, away: false))
        t = end
        here = to
    }

    private mutating func stay(_ duration: Double, at spot: Track.Spot, away: Bool) {
        guard duration > 0 else { return }
        legs.append(Track.Leg(start: t, end: t + duration, from: spot, to: spot, heading: heading, away: away))
        t += duration
    }

    /// The first leg starts at 0 even if the path begins with a walk from the start point.
    private func fixedStarts() -> [Track.Leg] {
        var out = legs
        if !out.isEmpty { out[0].start = min(out[0].start, 0) }
        return out
    }
}
