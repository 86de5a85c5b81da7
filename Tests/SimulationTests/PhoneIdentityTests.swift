@testable import Simulation
import Testing
import Wire
import YAML

/// docs/protocol.md#device-ids names a resolved phone `irk:<key hex>`: the simulator spells phones the same way,
/// whether the scenario writes the key or takes the site's key by name.
private let jane = "irk:0123456789abcdef0123456789abcdef"

private func phoneScenario(_ device: String) -> String {
    """
    seed: 3
    duration: 20s
    devices:
      - \(device)
        path: [ { random_walk: east, for: 20s } ]
    """
}

@Test func aPhoneNamedAfterASiteKeyIsSpelledWithThatKey() throws {
    let sim = try simulation(scenario: phoneScenario("phone: { name: phone-jane, rotate: 10s }"))
    #expect(sim.scenario.devices[0].id == jane)
    #expect(sim.deviceKeys.map(\.id) == [jane])
    var out = MemoryOutput()
    _ = sim.run(into: &out)
    let ids = Set(try out.batches().flatMap(\.readings).map(\.id))
    #expect(ids == [jane])
}

/// Streams are named after the phone's name, so writing the site's key in the id changes no draw.
@Test func writingTheKeyOrTakingItByNameMakesTheSameBytes() throws {
    var byName = MemoryOutput(), byKey = MemoryOutput()
    _ = try simulation(scenario: phoneScenario("phone: { name: phone-jane, rotate: 10s }")).run(into: &byName)
    _ = try simulation(scenario: phoneScenario("id: \"\(jane)\"\n    phone: { name: phone-jane, rotate: 10s }")).run(into: &byKey)
    #expect(byName.files == byKey.files)
    #expect(!(byName.files[.readings] ?? []).isEmpty)
}

@Test func anIdThatNamesInsteadOfSpellingTheKeyIsRefusedWithAHint() throws {
    for device in ["id: \"irk:phone-jane\"", "id: \"irk:phone-jane\"\n    phone: { rotate: 10s }"] {
        let decoded = Scenario.decode(try YAML.parse(phoneScenario(device)))
        #expect(decoded.errors.count == 1)
        #expect(decoded.errors.first?.description.contains("phone: { name: NAME }") == true, "\(decoded.errors)")
    }
}

@Test func aKeyThatDisagreesWithTheSitesOrIsSharedIsAProblem() throws {
    let other = "ec0234a357c8ad05341010a60a397d9b"
    let disagrees = try scenario(phoneScenario("phone: { name: phone-jane, irk: \"\(other)\" }"))
    let (sim, problems) = Simulation.prepare(site: try site(referenceSite), scenario: disagrees)
    #expect(sim == nil)
    #expect(problems.map(\.message) == ["the site's IRK phone-jane is another key"])
    let shared = try scenario("""
        devices:
          - { phone: { name: phone-jane }, path: [ { at: [1, 1] } ] }
          - { id: "\(jane)", phone: { name: janes-tablet }, path: [ { at: [2, 1] } ] }
        """)
    let second = Simulation.prepare(site: try site(referenceSite), scenario: shared)
    #expect(second.simulation == nil)
    #expect(second.problems.map { "\($0.line) \($0.message)" } == ["3 has the key of irk:phone-jane: one key is one phone"])
}
