import Wire

extension Simulation {
    /// Ground truth lines for every device at each 100 ms of true time in [s0, s1):
    /// `{"t","id","x","y","z","floor","room"}`, `room` the room polygon holding the point
    /// (`null` outside every room). While a device is away its position is `null` and its
    /// room `"away"`, as the aggregator's `room` topic would say.
    func writeTruth(from s0: Double, to s1: Double, state: inout RunState) {
        let period = Int64((Self.truthPeriod * 1000).rounded())
        let fromMs = Int64((s0 * 1000).rounded()), toMs = Int64((s1 * 1000).rounded())
        var k = (fromMs + period - 1) / period
        while k * period < toMs {
            let s = Double(k * period) / 1000
            // Nodes' beacons stand where the site says; truth is about the devices tracked.
            for d in state.devices.indices where state.devices[d].spec.beaconOf == nil {
                state.line.reset()
                encodeTruth(state.devices[d], at: s, into: &state.line)
                state.truthBytes += state.line.bytes
                state.truthBytes.append(0x0A)
                state.truthCount += 1
            }
            k += 1
        }
    }

    func encodeTruth(_ device: Advertiser, at s: Double, into w: inout JSONWriter) {
        let now = device.track.state(at: s, in: world)
        w.objectStart()
        w.key("t"); w.time(scenario.start + s)
        w.field("id", device.id)
        if now.away {
            for key in ["x", "y", "z", "floor"] { w.key(key); w.null() }
            w.field("room", "away")
        } else {
            w.field("x", now.position.x)
            w.field("y", now.position.y)
            w.field("z", now.position.z)
            w.field("floor", site.floors[now.floor].id)
            w.key("room")
            if let room = world.room(now.floor, now.position.xy) { w.value(site.floors[now.floor].rooms[room].id) } else { w.null() }
        }
        w.objectEnd()
    }
}
