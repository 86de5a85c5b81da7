@testable import Edge
import Foundation
import Testing
import YAML

@Suite("Identity resolving keys in the edge config")
struct IRKConfigTests {
    private let jane = "0123456789abcdef0123456789abcdef"
    private let alex = "8F1A2B3C4D5E6F708192A3B4C5D6E7F8"

    /// A file in a fresh temporary directory with the given permissions.
    private func file(_ text: String, mode: Int) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("irk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("keys.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test func theConfigFileListsKeysAsTheSiteFileDoes() throws {
        let root = try YAML.parse("node: hall\nirks:\n  - { id: phone-jane, key: \"\(jane)\" }\n  - { id: phone-alex, key: \"\(alex)\" }\n")
        let c = try EdgeConfig.load(flags: [:], file: root, fileName: "edge.yaml")
        #expect(c.irks.map(\.name) == ["phone-jane", "phone-alex"])
        #expect(c.irks.map(\.deviceID) == ["irk:\(jane)", "irk:\(alex.lowercased())"])
        #expect(c.warnings.isEmpty)
    }

    @Test func aFlagKeyWorksButIsWarnedAbout() throws {
        let c = try EdgeConfig.load(flags: ["node": ["a"], "irks": ["jane:\(jane)", "again:\(jane)"]])
        #expect(c.irks.map(\.name) == ["jane"])  // one key, once
        #expect(c.warnings.count == 1 && c.warnings[0].contains("command line"))
    }

    @Test(arguments: [
        ("irks:\n  - { id: p, key: \"0123\" }\n", "edge.yaml:2: irks[0] (line 3): the key of p is not 32 hex digits"),
        ("irks:\n  - { key: \"0123456789abcdef0123456789abcdeg\" }\n", "edge.yaml:2: irks[0] (line 3): needs an id"),
        ("irks:\n  - { id: p }\n", "edge.yaml:2: irks[0] (line 3): p needs a key"),
        ("irks:\n  - { id: p, key: \"0123456789abcdef0123456789abcdef\", name: x }\n", "edge.yaml:2: irks[0] (line 3): unknown key 'name'"),
        ("irks: [\"p:0123\"]\n", "edge.yaml:2: irks[0] (line 2): expects NAME:HEX"),
    ])
    func badKeysNameTheLineButNeverTheKey(text: String, message: String) throws {
        let root = try YAML.parse("node: a\n" + text)
        let error = #expect(throws: EdgeConfigError.self) { try EdgeConfig.load(flags: [:], file: root, fileName: "edge.yaml") }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("0123") == false)
    }

    @Test func anIRKFileIsAListOrASiteFile() throws {
        let list = try file("- { id: phone-jane, key: \"\(jane)\" }\n", mode: 0o600)
        let site = try file("floors: []\nirks:\n  - { id: phone-alex, key: \"\(alex)\" }\n", mode: 0o640)
        let a = try EdgeConfig.load(flags: ["node": ["a"], "irks_file": [list]])
        #expect(a.irks.map(\.deviceID) == ["irk:\(jane)"] && a.warnings.isEmpty)
        let b = try EdgeConfig.load(flags: ["node": ["a"], "irks_file": [site]])
        #expect(b.irks.map(\.name) == ["phone-alex"] && b.warnings.isEmpty)
    }

    @Test func aFileOtherUsersCanReadIsWarnedAbout() throws {
        let path = try file("- { id: phone-jane, key: \"\(jane)\" }\n", mode: 0o644)
        let c = try EdgeConfig.load(flags: ["node": ["a"], "irks_file": [path]])
        #expect(c.irks.count == 1)
        #expect(c.warnings == ["\(path) holds identity resolving keys and is readable by every user; chmod o-r it"])
        let config = try file("node: a\nirks:\n  - { id: phone-jane, key: \"\(jane)\" }\n", mode: 0o604)
        #expect(try EdgeConfig.load(flags: [:], configFile: config).warnings.count == 1)
    }

    @Test func aMissingIRKFileIsAnError() {
        #expect(throws: EdgeConfigError.self) { try EdgeConfig.load(flags: ["node": ["a"], "irks_file": ["/nonexistent/keys.yaml"]]) }
    }
}
