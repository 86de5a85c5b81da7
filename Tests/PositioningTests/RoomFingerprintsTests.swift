import Testing
import Positioning
import SiteModel
import Wire

/// Two rooms, two nodes: in `a` node 0 hears the tag at -60 and node 1 at -85 (half the time),
/// in `b` the other way round. Readings every 0.25 s, 60 s in each room.
func twoRoomRecording() -> (samples: [RoomTeaching.Sample], labels: RoomLabels) {
    var samples: [RoomTeaching.Sample] = []
    var t = 0.0
    var k = 0
    while t < 120 {
        let inA = t < 60
        let wobble = Double(k % 5) - 2
        samples.append(.init(t: t, node: inA ? 0 : 1, level: -60 + wobble))
        if k % 2 == 0 { samples.append(.init(t: t, node: inA ? 1 : 0, level: -85 + wobble)) }
        t += 0.25; k += 1
    }
    var site = Site()
    var floor = Floor(id: "f", name: "f", bounds: (Point3(0, 0, 0), Point3(0, 0, 0)))
    floor.hasPlan = false
    floor.rooms = [Room(id: "a", name: "a", points: []), Room(id: "b", name: "b", points: []), Room(id: "c", name: "c", points: [])]
    site.floors = [floor]
    let labels = try! RoomLabels(csv: "t_start,t_end,room\n0,60,a\n60,120,b\n", site: site)
    return (samples, labels)
}

@Test func teachInLearnsHowOftenAndHowLoudEachNodeHearsEachRoom() {
    let (samples, labels) = twoRoomRecording()
    let set = RoomTeaching.teach(samples, nodes: ["n0", "n1"], labels: labels, window: 3)
    #expect(set.rooms.map(\.room) == ["a", "b"])
    let a = set.rooms[0]
    // Windows ending at 3 … 60 lie in a: both ends labelled a.
    #expect(a.windows >= 55 && a.windows <= 58)
    #expect(a.nodes.map(\.node) == ["n0", "n1"])
    #expect(a.nodes[0].heard == 1 && abs(a.nodes[0].level + 60) < 0.5)
    #expect(abs(a.nodes[1].level + 85) < 0.5)
    #expect(set.rooms[1].nodes[1].heard == 1 && abs(set.rooms[1].nodes[1].level + 60) < 0.5)
}

@Test func aWindowAcrossARoomChangeTeachesNeitherRoom() {
    let (samples, labels) = twoRoomRecording()
    let set = RoomTeaching.teach(samples, nodes: ["n0", "n1"], labels: labels, window: 3)
    // 120 s of readings, windows ending every second from 3 s: those ending in 60 < end < 63 straddle.
    let taught = set.rooms.reduce(0) { $0 + $1.windows }
    #expect(taught <= 118 - 2)
}

private func scores(_ prints: RoomFingerprints, levels: [Double], live: [Bool] = [true, true]) -> [Double] {
    var out = [0.0, 0.0, 0.0]
    prints.addLogLikelihoods(levels: levels, live: live, rooms: [0, 1, 2], into: &out)
    return out
}

@Test func fingerprintsNameTheRoomTheLevelsWereTaughtIn() {
    let (samples, labels) = twoRoomRecording()
    let set = RoomTeaching.teach(samples, nodes: ["n0", "n1"], labels: labels, window: 3)
    let prints = RoomFingerprints(set, rooms: ["a", "b", "c"], nodes: ["n0", "n1"])
    let inA = scores(prints, levels: [-61, -84])
    #expect(inA[0] > inA[1] + 3)
    let inB = scores(prints, levels: [-86, -59])
    #expect(inB[1] > inB[0] + 3)
    // Untaught `c` scores with the pooled fingerprint less a penalty: below the room that fits.
    #expect(inA[2] < inA[0] && inB[2] < inB[1])
}

@Test func aNodeSilentSinceTeachInIsLeftOutNotCountedAgainstItsRoom() throws {
    // n0 hears the tag only in a; n1 in both rooms, louder in b.
    var samples: [RoomTeaching.Sample] = []
    var t = 0.0
    while t < 120 {
        if t < 60 { samples.append(.init(t: t, node: 0, level: -60)) }
        samples.append(.init(t: t, node: 1, level: t < 60 ? -75 : -60))
        t += 0.25
    }
    let (_, labels) = twoRoomRecording()
    let set = RoomTeaching.teach(samples, nodes: ["n0", "n1"], labels: labels, window: 3)
    let prints = RoomFingerprints(set, rooms: ["a", "b", "c"], nodes: ["n0", "n1"])
    // In a with n0 switched off: its silence, counted, argues for b, where n0 never hears.
    let counted = scores(prints, levels: [-.infinity, -75])
    let off = scores(prints, levels: [-.infinity, -75], live: [false, true])
    #expect(off[0] - off[1] > counted[0] - counted[1] + 1)
    #expect(off[0] > off[1] + 1)
}

@Test func aNodeAddedAfterTeachInAddsNothing() {
    let (samples, labels) = twoRoomRecording()
    let set = RoomTeaching.teach(samples, nodes: ["n0", "n1"], labels: labels, window: 3)
    let before = RoomFingerprints(set, rooms: ["a", "b", "c"], nodes: ["n0", "n1"])
    let after = RoomFingerprints(set, rooms: ["a", "b", "c"], nodes: ["n0", "n1", "new"])
    #expect(!after.known[2])
    var out = [0.0, 0.0, 0.0]
    after.addLogLikelihoods(levels: [-61, -84, -40], live: [true, true, true], rooms: [0, 1, 2], into: &out)
    #expect(out == scores(before, levels: [-61, -84]))
}
