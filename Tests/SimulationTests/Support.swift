import BLE
@testable import Simulation
import Wire
import SiteModel
import YAML

/// The peers' reference case: a 6 × 4 m room split at x = 3 by a 4 dB wall with a door at
/// (3, 2), four nodes in the corners. Written here so the tests do not move with tools/sites.
let referenceSite = """
floors:
  - id: main
    bounds: [[0, 0, 0], [6, 4, 2.5]]
    rooms:
      - { id: west, points: [[0, 0], [3, 0], [3, 4], [0, 4]] }
      - { id: east, points: [[3, 0], [6, 0], [6, 4], [3, 4]] }
    walls:
      - { points: [[3, 0], [3, 4]], attenuation: 4 }
    doors:
      - { between: [west, east], at: [3, 2] }
nodes:
  - { name: sw, point: [0.1, 0.1, 1.2], floors: [main] }
  - { name: se, point: [5.9, 0.1, 1.2], floors: [main] }
  - { name: ne, point: [5.9, 3.9, 2.2], floors: [main] }
  - { name: nw, point: [0.1, 3.9, 2.2], floors: [main] }
irks:
  - { id: phone-jane, key: "0123456789abcdef0123456789abcdef" }
positioning: { absorption: 2.7 }
"""

/// Keys carried about, a phone whose key the site knows, a collar on the floor and a
/// stranger's phone nobody can resolve, with every effect on, for two simulated minutes.
let referenceScenario = """
seed: 7
duration: 2m
devices:
  - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
    path:
      - { at: [0.6, 0.6], dwell: 20s }
      - { at: [5.4, 3.4] }
      - { away: 20s }
      - { at: [5.4, 3.4], dwell: 10s }
  - phone: { name: phone-jane, rotate: 30s }
    interval_ms: 200
    path:
      - { random_walk: east, for: 1m }
      - { at: [1, 1] }
  - mac: "c2:3a:6b:01:02:03"
    interval: 1s
    body_loss: 0
    path: [ { at: [4, 1] } ]
  - phone: { name: stranger, rotate: 1m }
    interval_ms: 500
    path: [ { random_walk: west, for: 2m } ]
"""

func site(_ yaml: String) throws -> Site {
    let decoded = Site.load(yaml: yaml)
    guard decoded.errors.isEmpty else { throw TestFailure(decoded.errors.map(\.description).joined(separator: "\n")) }
    return decoded.site
}

func scenario(_ yaml: String) throws -> Scenario {
    let decoded = Scenario.decode(try YAML.parse(yaml))
    guard decoded.errors.isEmpty else { throw TestFailure(decoded.errors.map(\.description).joined(separator: "\n")) }
    return decoded.scenario
}

func simulation(site siteText: String = referenceSite, scenario scenarioText: String = referenceScenario,
                seed: UInt64? = nil) throws -> Simulation {
    var s = try scenario(scenarioText)
    if let seed { s.seed = seed }
    let prepared = Simulation.prepare(site: try site(siteText), scenario: s)
    guard let sim = prepared.simulation else { throw TestFailure(prepared.problems.map(\.description).joined(separator: "\n")) }
    return sim
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Every file in memory.
struct MemoryOutput: SimulationOutput {
    var files: [SimulationFile: [UInt8]] = [:]
    var chunks = 0
    mutating func write(_ bytes: [UInt8], to file: SimulationFile) {
        files[file, default: []] += bytes
        chunks += 1
    }

    func lines(_ file: SimulationFile) -> [[UInt8]] {
        (files[file] ?? []).split(separator: 0x0A).map(Array.init)
    }

    /// The batches of readings.jsonl, in file order.
    func batches() throws -> [Batch] {
        var bad = 0
        return try lines(.readings).map { try Batch.decode($0, badReadings: &bad) }
    }
}

func run(_ sim: Simulation) -> (MemoryOutput, SimulationSummary) {
    var out = MemoryOutput()
    let summary = sim.run(into: &out)
    return (out, summary)
}
