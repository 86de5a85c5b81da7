import BLE
@testable import Simulation
import Testing
import Wire
import SiteModel
import YAML

@Test func aScenarioDecodesToTheModel() throws {
    let s = try scenario("""
        seed: 42
        duration: 90s
        start: 1764500000
        effects: { shadowing_sd: 3, fading: off, floor_loss: 12, path_loss_exponent: 3.1 }
        nodes: [ { name: sw, rx_offset: -2, clock_offset: 0.2 } ]
        devices:
          - ibeacon: { uuid: F7826DA6-4FA2-4E98-8024-BC5B71E0893E, major: 1, minor: 42 }
            tx_power: -62
            interval_ms: 250
            jitter_ms: 5
            path:
              - { at: [1, 2], floor: main, dwell_s: 30 }
              - { random_walk: east, for: 1m }
              - { still: 10s }
              - { away_s: 20 }
          - { phone: { name: phone-jane, rotate: 5m }, path: [ { at: [1, 1] } ] }
          - { id: "irk:EC0234A357C8AD05341010A60A397D9B", path: [ { at: [1, 1] } ] }
          - { id: "mac:c2:3a:6b:01:02:03", path: [ { at: [1, 1] } ] }
        """)
    #expect(s.seed == 42 && s.duration == 90 && s.start == 1_764_500_000)
    #expect(s.effects.shadowingSD == 3 && s.effects.ricianK == nil && s.effects.floorLoss == 12 && s.effects.pathLossExponent == 3.1)
    #expect(s.nodes == [NodeSetting(name: "sw", rxOffset: -2, clockOffset: 0.2, line: 5)])
    let beacon = s.devices[0]
    #expect(beacon.id == "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42")
    #expect(beacon.txPower == -62 && beacon.interval == 0.25 && beacon.jitter == 0.005)
    #expect(beacon.path.map(\.action) == [.waypoint(Point2(1, 2), floor: "main", dwell: 30), .randomWalk(room: "east", duration: 60),
                                          .still(10), .away(20)])
    #expect(s.devices[1].kind == .phone(name: "phone-jane", irk: nil, rotation: 300))
    // SPEC §1: a phone's id spells its key, in lower case.
    let key = try #require(IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b"))
    #expect(s.devices[2].id == "irk:ec0234a357c8ad05341010a60a397d9b")
    #expect(s.devices[2].kind == .phone(name: key.hex, irk: key, rotation: 900))
    #expect(s.devices[3].kind == .mac(BluetoothAddress(rawValue: 0xC23A_6B01_0203)))
}

/// Every mistake is reported at once, each with the line and key where it was written.
@Test func badScenariosReportEveryProblemWithLineAndKey() throws {
    let decoded = Scenario.decode(try YAML.parse("""
        seed: -1
        duration: forever
        devices:
          - ibeacon: { uuid: not-a-uuid, major: 70000 }
            interval_ms: 5
            path:
              - { at: [1] }
              - { at: [1, 1], away: 5s }
          - { id: "bluetooth:thing", path: [ { at: [1, 1] } ] }
          - { mac: "c2:3a:6b:01:02:03", speed: 1, sped: 2, path: [ { still: soon } ] }
        """))
    let errors = decoded.errors.map { "\($0.line) \($0.key)" }
    #expect(errors == ["1 seed", "2 duration", "4 devices[0].ibeacon.uuid", "4 devices[0].ibeacon.major", "5 devices[0].interval_ms",
                       "7 devices[0].path[0].at", "8 devices[0].path[1]", "9 devices[1].id", "10 devices[2].path[0].still"],
            "\(decoded.errors)")
    #expect(decoded.warnings.map { "\($0.line) \($0.key)" } == ["10 devices[2].sped"])
}

/// What the scenario names must exist in the site.
@Test func aScenarioMustFitItsSite() throws {
    let s = try scenario("""
        nodes: [ { name: attic } ]
        devices:
          - mac: "c2:3a:6b:01:02:03"
            path:
              - { at: [1, 1], floor: cellar }
              - { random_walk: kitchen, for: 1m }
          - { mac: "c2:3a:6b:01:02:04", path: [ { still: 1m } ] }
        """)
    let (sim, problems) = Simulation.prepare(site: try site(referenceSite), scenario: s)
    #expect(sim == nil)
    #expect(problems.map { "\($0.line) \($0.key)" } == ["1 nodes[0].name", "5 devices[0].path[0].floor",
                                                        "6 devices[0].path[1].random_walk", "7 devices[1].path"])
}

private let twoFloors = """
floors:
  - id: ground
    bounds: [[0, 0, 0], [10, 8, 2.7]]
    rooms: [ { id: living, points: [[0, 0], [10, 0], [10, 8], [0, 8]] } ]
  - id: upstairs
    bounds: [[0, 0, 2.7], [10, 8, 5.4]]
    rooms: [ { id: bedroom, points: [[0, 0], [10, 0], [10, 8], [0, 8]] } ]
nodes:
  - { name: down, point: [5, 4, 1.0], floors: [ground] }
  - { name: up, point: [5, 4, 4.7], floors: [upstairs] }
"""

/// A device climbs the stairs: the truth changes floor and height, and the node on the other
/// floor hears it through the floor's attenuation.
@Test func floorsAttenuateAndStairsChangeTheFloor() throws {
    let sim = try simulation(site: twoFloors, scenario: """
        duration: 60s
        effects: { shadowing_sd: 0, fading: off, rx_offset_sd: 0, tx_error_sd: 0, body_loss: 0, floor_loss: 15 }
        devices:
          - mac: "c2:3a:6b:01:02:03"
            path:
              - { at: [5, 4], floor: ground, dwell: 20s }
              - { at: [5, 4], floor: upstairs, dwell: 30s }
        """)
    let state = sim.makeState()
    let down = Track.State(position: Point3(5, 4, 1.0), floor: 0, heading: Point2(1, 0), away: false)
    // 3.7 m below the upstairs node: path loss over 3.7 m and one floor.
    let expected = -59 - 27 * Elementary.log10(3.7) - 15
    #expect(abs(state.channel.meanRSSI(down, txPower: -59, bodyLoss: 0, node: 1) - expected) < 1e-9)
    let (out, _) = run(sim)
    let lines = out.lines(.truth).map { String(decoding: $0, as: UTF8.self) }
    #expect(lines.first?.contains("\"floor\":\"ground\",\"room\":\"living\"") == true)
    #expect(lines.last?.contains("\"z\":3.7,\"floor\":\"upstairs\",\"room\":\"bedroom\"") == true)
    let up = try out.batches().filter { $0.node == "up" }.flatMap(\.readings)
    let early = up.filter { $0.t < sim.scenario.start + 19 }.map(\.rssi), late = up.filter { $0.t > sim.scenario.start + 40 }.map(\.rssi)
    #expect(!early.isEmpty && !late.isEmpty)
    #expect(Set(early) == [Int(expected.rounded())])
    #expect(Set(late) == [Int((-59 - 27 * Elementary.log10(1.0)).rounded())])
}
