import Testing
import Wire
import SiteModel
import YAML

/// Two nodes, the first beaconing; each case below rewrites one line.
private let base = [
    "floors: [ { id: ground, bounds: [[0, 0, 0], [10, 8, 3]] } ]",                                          // 1
    "nodes:",                                                                                                // 2
    "  - { name: a, point: [1, 1, 1], beacon: \"iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-1\" }",       // 3
    "  - { name: b, point: [9, 1, 1], id: b-esp32 }",                                                        // 4
    "devices:",                                                                                              // 5
    "  - { id: \"iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42\", name: Keys }",                         // 6
]

private func site(replacing line: Int, with text: String) -> SiteDecoding {
    var lines = base
    lines[line - 1] = text
    return Site.load(yaml: lines.joined(separator: "\n"))
}

@Test func aNodeBeaconIsDecoded() {
    let decoded = Site.load(yaml: base.joined(separator: "\n"))
    #expect(decoded.problems.isEmpty, "\(decoded.problems)")
    #expect(decoded.site.nodes.map(\.beacon) == ["iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-1", nil])
}

struct BadBeacon: Sendable, CustomTestStringConvertible {
    let line: Int, text: String, key: String, says: String
    var testDescription: String { says }
}

@Test(arguments: [
    BadBeacon(line: 3, text: "  - { name: a, point: [1, 1, 1], beacon: \"iBeacon:E5CA1ADE-F007-BA11-0000-000000000000-1-1\" }",
              key: "nodes[0].beacon", says: "would never match: readings spell this id 'iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-1'"),
    BadBeacon(line: 3, text: "  - { name: a, point: [1, 1, 1], beacon: kitchen }",
              key: "nodes[0].beacon", says: "'kitchen' is not a device id"),
    BadBeacon(line: 3, text: "  - { name: a, point: [1, 1, 1], beacon: \"mac:aa:bb:cc:dd:ee\" }",
              key: "nodes[0].beacon", says: "is not spelled as a mac id is"),
    BadBeacon(line: 3, text: "  - { name: a, point: [1, 1, 1], beacon: [1] }",
              key: "nodes[0].beacon", says: "expects a text value"),
    BadBeacon(line: 4, text: "  - { name: b, point: [9, 1, 1], beacon: \"iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-1\" }",
              key: "nodes[1].beacon", says: "duplicate node beacon id 'iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-1' (first at line 3)"),
    BadBeacon(line: 4, text: "  - { name: b, point: [9, 1, 1], beacon: \"iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42\" }",
              key: "nodes[1].beacon", says: "is also a device (devices[0].id, line 6)"),
])
func aBadNodeBeaconNamesItsLineAndKey(_ bad: BadBeacon) {
    let decoded = site(replacing: bad.line, with: bad.text)
    #expect(decoded.problems.count == 1, "\(decoded.problems)")
    let problem = decoded.problems.first
    #expect(problem?.line == bad.line)
    #expect(problem?.key == bad.key)
    #expect(problem?.severity == .error)
    #expect(problem?.message.contains(bad.says) == true, "\(problem?.message ?? "none")")
}

@Test(arguments: ["iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42", "altBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-0-65535",
                  "eddystone:0123456789abcdef0123-0123456789ab", "irk:0123456789abcdef0123456789abcdef", "mac:c2:3a:6b:01:02:03"])
func specIdsAreValid(_ id: String) {
    #expect(DeviceIDSyntax.problem(id) == nil)
}

@Test(arguments: ["iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-65536", "iBeacon:f7826da64fa24e988024bc5b71e0893e-1-42",
                  "eddystone:0123-4567", "irk:0123", "mac:C2:3A:6B:01:02:03", "phone:jane", "",
                  "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-01-42", "altBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-0-00"])
func otherSpellingsAreNot(_ id: String) {
    #expect(DeviceIDSyntax.problem(id) != nil)
}

/// Readings write a major or minor in decimal without leading zeros (BLE's DeviceIdentity,
/// the dialects): "-01-42" would never match, and the site file says why.
@Test func aLeadingZeroIsRefusedWithItsReason() {
    let problem = DeviceIDSyntax.problem("iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-042") ?? ""
    #expect(problem.contains("'042' with a leading zero") && problem.contains("as '42'"), "\(problem)")
    #expect(DeviceIDSyntax.problem("altBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-00-0")?.contains("as '0'") == true)
}
