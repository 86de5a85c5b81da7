import Wire

/// What one node heard of a device at its last solve: the smoothed RSSI less the reference power.
struct HeardLevel: Sendable {
    var node: Int32
    var level: Double
}

extension Engine {
    /// The hold stage (`HoldOptions`): whether device `d`'s last fix still stands at `t`, so
    /// that solving again (with the observations just gathered) would learn nothing: the device
    /// is still (its track has stayed within `hold.step` of one place for `hold.settle` seconds
    /// and is slower than `hold.speed`), in a room with no room or zone change under way, every
    /// node that hears it now heard it at the last solve and none of their smoothed levels moved
    /// by more than `hold.levelChange`, and the last solve is less than `hold.limit` old.
    ///
    /// Most tags lie still most of the time (equipment, a phone on a desk); a solve is most of
    /// the engine's work, and the same input gives the same fix. A device that starts to move
    /// changes its levels and is solved at its next due time, as before.
    func mayHold(device d: Int, at t: Double) -> Bool {
        // A method on the element, not a copy of it: `DeviceState` holds arrays, and a copy per
        // due device would retain and release each of them.
        devices[d].mayHold(hearing: observations, at: t, options: options.hold, room: options.room)
    }

    /// Keeps what the nodes heard at this solve, for `mayHold` to compare with later.
    func rememberHeard(device d: Int, at t: Double) {
        devices[d].heard.removeAll(keepingCapacity: true)
        for o in observations { devices[d].heard.append(HeardLevel(node: o.node, level: o.rssi - o.txRef)) }
        devices[d].lastFix = t
    }

    /// Moves the anchor on when the solve just made carried the track more than `hold.step`
    /// from it (or onto another floor): the device is not settled there yet.
    func settle(device d: Int, floorBefore: Int, at t: Double) {
        let p = devices[d].track.position.xy
        let a = devices[d].anchor
        let dx = p.x - a.x, dy = p.y - a.y
        guard floorBefore != devices[d].track.floor || !(dx * dx + dy * dy <= options.hold.step * options.hold.step) else { return }
        devices[d].anchor = p
        devices[d].anchorSince = t
    }

    /// The last fix again at `t`: the same position, room and zones, the nearest node from the
    /// observations just gathered. Marked held, so that a publisher may leave it out.
    func heldUpdate(device d: Int, at t: Double) -> DeviceUpdate {
        let position = devices[d].track.reported
        let floor = devices[d].track.floor
        var u = update(device: d, at: t, nearest: strongestObservation().map { range(of: $0, from: position, floor: floor) })
        u.isHeld = true
        return u
    }
}

extension DeviceState {
    /// `Engine.mayHold` for this device, given what its nodes hear now.
    func mayHold(hearing observations: [Observation], at t: Double, options: HoldOptions, room: RoomOptions) -> Bool {
        guard options.limit > 0, isPresent, t - lastFix < options.limit,
              t - anchorSince >= options.settle, track.speed <= options.speed,
              presence.isSettled(options: room), heard.count == observations.count else { return false }
        for o in observations {
            guard let before = heard.first(where: { $0.node == o.node }),
                  abs(o.rssi - o.txRef - before.level) <= options.levelChange else { return false }
        }
        return true
    }
}

extension Track {
    /// The tracked speed over the floor, m/s.
    var speed: Double { (x[2] * x[2] + x[3] * x[3]).squareRoot() }
}
