import Testing
import Wire

@Suite("Device id globs")
struct GlobTests {
    @Test(arguments: [
        ("iBeacon:*", "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42", true),
        ("iBeacon:*", "mac:aa:bb:cc:dd:ee:ff", false),
        ("mac:c2:3a:??:*", "mac:c2:3a:6b:01:02:03", true),
        ("mac:c2:3a:??:*", "mac:c2:3a:6:01:02:03", false),
        ("*-1-42", "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42", true),
        ("*-1-42", "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-420", false),
        ("*a*b*", "xxaxxbxx", true),
        ("", "", true),
        ("", "x", false),
    ])
    func matching(pattern: String, id: String, expected: Bool) {
        #expect(Glob(pattern).matches(id) == expected)
    }

    /// Matching is iterative with one backtrack point, so neither a long run of stars (which
    /// overflowed the stack of the recursive matcher the engine had) nor many stars against a
    /// long id from a payload (exponential there) can stall a service: both finish at once.
    @Test func pathologicalPatternsFinish() {
        #expect(!Glob(String(repeating: "*", count: 200_000) + "x").matches("mac:aa:bb:cc:dd:ee:ff"))
        #expect(Glob(String(repeating: "*", count: 200_000)).matches("mac:aa:bb:cc:dd:ee:ff"))
        #expect(!Glob("*-*-*-*-*-*-*-*x").matches(String(repeating: "-", count: 190)))
        #expect(Glob("*-*-*-*-*-*-*-*x").matches(String(repeating: "-", count: 190) + "x"))
    }
}
