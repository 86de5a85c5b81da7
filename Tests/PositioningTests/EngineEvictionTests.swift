import Testing
@testable import Positioning
import Wire

// The engine forgets devices that are not present and have been silent for `forgetAfter`,
// so a flood of made-up ids costs memory for that long only (docs/security.md).

private func hear(_ engine: Engine, _ id: String, at t: Double, rssi: Int = -60) {
    for node in engine.site.nodes {
        engine.ingest(node: node.name, reading: Reading(id: id, rssi: rssi, t: t, kind: .mac))
    }
}

struct EngineEvictionTests {
    @Test func aDeviceSilentPastForgetAfterIsForgottenAndStartsAfreshWhenHeardAgain() {
        let engine = Engine(site: twoRoomSite())
        engine.forgetAfter = 60
        var output: [EngineOutput] = []
        for t in stride(from: 1000.0, to: 1010, by: 0.5) {
            hear(engine, deviceID, at: t)
            engine.advance(to: t, into: &output)
        }
        #expect(events(output).contains { $0.type == .enter && $0.isRoom })
        // Away after away_after (30 s), still known; forgotten once silent for 60 s.
        engine.advance(to: 1045, into: &output)
        #expect(updates(output).last?.room == nil)
        #expect(engine.deviceCount == 1)
        var forgotten: [String] = []
        engine.takeForgotten(into: &forgotten)
        #expect(forgotten.isEmpty)
        engine.advance(to: 1071, into: &output)
        #expect(engine.deviceCount == 0)
        engine.takeForgotten(into: &forgotten)
        #expect(forgotten == [deviceID])
        engine.takeForgotten(into: &forgotten)
        #expect(forgotten == [deviceID], "handed over once")
        // Heard again: a new device in the old slot, placed and entering a room again.
        output.removeAll()
        let linksBefore = engine.links.count
        for t in stride(from: 1100.0, to: 1110, by: 0.5) {
            hear(engine, deviceID, at: t)
            engine.advance(to: t, into: &output)
        }
        #expect(engine.deviceCount == 1)
        #expect(engine.devices.count == 1)
        #expect(engine.links.count == linksBefore, "the forgotten device's links are reused")
        #expect(events(output).filter(\.isRoom).map(\.type) == [.enter])
        #expect(updates(output).last?.room != nil)
    }

    @Test func aPresentDeviceIsNeverForgotten() {
        let engine = Engine(site: twoRoomSite())
        engine.forgetAfter = 5
        var output: [EngineOutput] = []
        for t in stride(from: 1000.0, to: 1100, by: 1) {
            hear(engine, deviceID, at: t)
            engine.advance(to: t, into: &output)
        }
        var forgotten: [String] = []
        engine.takeForgotten(into: &forgotten)
        #expect(forgotten.isEmpty)
        #expect(engine.deviceCount == 1)
        // forgetAfter below away_after waits for away_after: away first, forgotten a sweep later.
        engine.advance(to: 1125, into: &output)
        #expect(engine.deviceCount == 1)
        engine.advance(to: 1132, into: &output)
        #expect(updates(output).last?.room == nil)
        #expect(engine.deviceCount == 1)
        engine.advance(to: 1134, into: &output)
        #expect(engine.deviceCount == 0)
    }

    @Test func aFloodOfFreshIdsKeepsTheEngineBounded() {
        let engine = Engine(site: twoRoomSite())
        engine.forgetAfter = 60
        var output: [EngineOutput] = []
        // 20 made-up addresses a second, each heard once, for half an hour.
        var n = 0
        for second in 0..<1800 {
            let t = 1000 + Double(second)
            for _ in 0..<20 {
                hear(engine, "mac:02:00:00:\(n / 65536 % 256):\(n / 256 % 256):\(n % 256)", at: t)
                n += 1
            }
            engine.advance(to: t, into: &output)
            output.removeAll(keepingCapacity: true)
        }
        // At most away_after + forgetAfter + the sweep's second of them are known at once.
        let bound = 20 * (60 + 2)
        #expect(engine.deviceCount <= bound)
        #expect(engine.devices.count <= bound + 20)
        #expect(engine.links.count <= (bound + 20) * engine.site.nodes.count)
        var forgotten: [String] = []
        engine.takeForgotten(into: &forgotten)
        #expect(forgotten.count + engine.deviceCount == n)
    }

    @Test func beyondMaxDevicesNewIdsAreRefusedUntilOneIsForgotten() {
        let engine = Engine(site: twoRoomSite())
        engine.maxDevices = 3
        engine.forgetAfter = 60
        var output: [EngineOutput] = []
        for i in 0..<3 { #expect(engine.ingest(node: "w1", reading: Reading(id: "mac:\(i)", rssi: -60, t: 1000, kind: .mac))) }
        #expect(!engine.ingest(node: "w1", reading: Reading(id: "mac:3", rssi: -60, t: 1000, kind: .mac)))
        #expect(engine.lastRejection == .capacity)
        #expect(engine.rejections.capacity == 1)
        // Known devices are still heard.
        #expect(engine.ingest(node: "w2", reading: Reading(id: "mac:0", rssi: -60, t: 1001, kind: .mac)))
        engine.advance(to: 1001, into: &output)
        // mac:1 and mac:2 go silent; mac:0 keeps talking.
        for t in stride(from: 1002.0, to: 1100, by: 1) {
            engine.ingest(node: "w2", reading: Reading(id: "mac:0", rssi: -60, t: t, kind: .mac))
            engine.advance(to: t, into: &output)
        }
        #expect(engine.deviceCount == 1)
        #expect(engine.ingest(node: "w1", reading: Reading(id: "mac:3", rssi: -60, t: 1100, kind: .mac)))
        #expect(engine.deviceCount == 2)
    }
}

struct EngineLinkReuseTests {
    @Test func aWalkingDeviceGivesBackTheLinksOfNodesItLeftBehind() {
        let engine = Engine(site: twoRoomSite())
        var output: [EngineOutput] = []
        // Heard by the west nodes for a while, then only by the east ones for two minutes.
        for t in stride(from: 1000.0, to: 1010, by: 0.5) {
            for node in ["w1", "w2", "w3"] { engine.ingest(node: node, reading: Reading(id: deviceID, rssi: -60, t: t, kind: .mac)) }
            engine.advance(to: t, into: &output)
        }
        for t in stride(from: 1010.0, to: 1130, by: 0.5) {
            for node in ["e1", "e2", "e3"] { engine.ingest(node: node, reading: Reading(id: deviceID, rssi: -60, t: t, kind: .mac)) }
            engine.advance(to: t, into: &output)
        }
        #expect(engine.links.count == 6)
        #expect(engine.linkCount(device: 0) == 3)
        // Six links were made (four kept with the device's hot fields, two after them); the
        // west ones went from the front, and the east ones stay in the order they were made.
        let east = ["e1", "e2", "e3"].map { engine.index(ofNode: $0).map(Int32.init) }
        #expect(engine.links(ofDevice: 0).map { Optional($0.node) } == east)
        // Another device heard by the west nodes takes the freed links.
        for node in ["w1", "w2", "w3"] { engine.ingest(node: node, reading: Reading(id: "mac:other", rssi: -60, t: 1130, kind: .mac)) }
        #expect(engine.links.count == 6)
    }
}

struct EngineSolveBudgetTests {
    @Test func devicesLeftDueByABudgetAreSolvedByTheNextAdvance() {
        let engine = Engine(site: twoRoomSite())
        var output: [EngineOutput] = []
        for i in 0..<10 {
            for node in ["w1", "w2", "e1"] { engine.ingest(node: node, reading: Reading(id: "mac:\(i)", rssi: -60, t: 1000, kind: .mac)) }
        }
        engine.advance(to: 1000, maxSolves: 4, into: &output)
        #expect(updates(output).count == 4)
        #expect(engine.hasDueDevices)
        engine.advance(to: 1000, maxSolves: 4, into: &output)
        engine.advance(to: 1000, maxSolves: 4, into: &output)
        #expect(Set(updates(output).map(\.id)).count == 10)
        #expect(!engine.hasDueDevices)
    }

    @Test func solvesKeepTheirPhaseThroughAPause() {
        // Two devices half an interval apart; a second of silence, then both heard again at
        // once: each is next due on its own phase, not together.
        let engine = Engine(site: twoRoomSite())
        var output: [EngineOutput] = []
        for t in stride(from: 1000.0, to: 1005, by: 0.25) {
            engine.ingest(node: "w1", reading: Reading(id: "a", rssi: -60, t: t, kind: .mac))
            engine.ingest(node: "w1", reading: Reading(id: "b", rssi: -60, t: t, kind: .mac))
            engine.advance(to: t, into: &output)
        }
        let phase = { (id: String) in engine.hot[engine.devices.firstIndex { $0.id == id }!].lastSolve.truncatingRemainder(dividingBy: 0.5) }
        let a = phase("a"), b = phase("b")
        for t in [1007.0, 1007.01] {
            engine.ingest(node: "w1", reading: Reading(id: "a", rssi: -60, t: t, kind: .mac))
            engine.ingest(node: "w1", reading: Reading(id: "b", rssi: -60, t: t, kind: .mac))
            engine.advance(to: t, into: &output)
        }
        #expect(abs(phase("a") - a) < 1e-9 && abs(phase("b") - b) < 1e-9)
    }
}
