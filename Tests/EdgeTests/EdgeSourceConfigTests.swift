import Foundation
@testable import Edge
import Testing
import YAML

/// Every option of `whereabouts-edge` but --config and --check-config is a key of the file,
/// the source among them (the unit file puts the adapter, or `monitor: true`, there).
@Suite("Edge source and switches from the config file")
struct EdgeSourceConfigTests {
    private func load(_ text: String, flags: [String: [String]] = [:]) throws -> EdgeConfig {
        try EdgeConfig.load(flags: flags, file: try YAML.parse("node: a\n" + text), fileName: "edge.yaml")
    }

    @Test func everySettingIsAKeyOfTheFile() throws {
        for setting in EdgeSetting.all {
            let root = try YAML.parse(setting.key.hasPrefix("tls.") ? "tls: { \(setting.key.dropFirst(4)): x }" : "\(setting.key): x")
            let flat = try EdgeConfig.flatten(root, fileName: "edge.yaml")
            #expect(flat[setting.key]?.texts == ["x"], "\(setting.key)")
        }
        #expect(EdgeSetting.all.map(\.key).contains("monitor") && EdgeSetting.all.map(\.key).contains("print"))
    }

    @Test(arguments: [
        ("adapter: hci1\nscan: active\n", SourceSetting.adapter("hci1", active: true)),
        ("monitor: true\n", .monitor),
        ("replay: cap.btsnoop\nspeed: 0\nretime: yes\n", .replay(path: "cap.btsnoop", speed: 0, retime: true)),
        ("replay: cap.btsnoop\n", .replay(path: "cap.btsnoop", speed: 1, retime: false)),
        ("stdin: true\nmonitor: false\n", .stdin),
    ])
    func theFileChoosesTheSource(text: String, source: SourceSetting) throws {
        #expect(try load(text).source == source)
    }

    @Test func aSourceFlagReplacesTheFilesSource() throws {
        let c = try load("adapter: hci0\nscan: active\n", flags: ["replay": ["x.btsnoop"], "speed": ["0"]])
        #expect(c.source == .replay(path: "x.btsnoop", speed: 0, retime: false))
        #expect(try load("").source == nil)
    }

    @Test func printIsASwitch() throws {
        #expect(try load("print: true\n").printReports)
        #expect(try !load("print: false\n").printReports)
        #expect(try load("print: false\n", flags: ["print": ["true"]]).printReports)
    }

    @Test(arguments: [
        ("adapter: hci0\nmonitor: true\n", "one source at a time: adapter, monitor, replay or stdin (got edge.yaml:2: adapter, edge.yaml:3: monitor)"),
        ("monitor: maybe\n", "edge.yaml:2: monitor: expects true or false, got 'maybe'"),
        ("scan: loud\n", "edge.yaml:2: scan: expects passive or active, got 'loud'"),
        ("replay: x\nspeed: -1\n", "edge.yaml:3: speed: expects a number in 0...1000000, got '-1'"),
    ])
    func badSourcesAreRefused(text: String, message: String) throws {
        #expect(throws: EdgeConfigError(message)) { try load(text) }
    }
}

/// deploy/edge.example.yaml as shipped: it loads, and its MQTT user is its node (the ACL
/// grants a user only whereabouts/nodes/%u/#) with the files make-passwords.sh and
/// make-certs.sh name after that user.
@Test func theShippedExampleUsesTheNodeAsItsUser() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let c = try EdgeConfig.load(flags: [:], configFile: root.appendingPathComponent("deploy/edge.example.yaml").path)
    #expect(c.mqtt.username == c.node)
    #expect(c.source == .adapter("hci0", active: false))
    guard case .file(let password)? = c.mqtt.password else { Issue.record("no password_file"); return }
    for (path, ext) in [(password, "password"), (c.mqtt.tls.certFile ?? "", "crt"), (c.mqtt.tls.keyFile ?? "", "key")] {
        #expect(URL(fileURLWithPath: path).lastPathComponent == "\(c.node).\(ext)")
    }
    let acl = try String(contentsOf: root.appendingPathComponent("deploy/mosquitto/acl"), encoding: .utf8)
    #expect(acl.contains("pattern write whereabouts/nodes/%u/#"))
}
