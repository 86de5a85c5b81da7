@testable import Edge
import MQTT
import Testing
import YAML

@Suite("Edge configuration from file and flags")
struct EdgeConfigTests {
    @Test func defaultsFollowTheSpec() throws {
        let c = try EdgeConfig.load(flags: ["node": ["kitchen"]])
        #expect(c.batchInterval == 0.25 && c.batchMax == 200 && c.bufferMax == 100_000)
        #expect(c.telemetryInterval == 30 && c.qos == .atMostOnce && c.prefix == "whereabouts")
        #expect(c.mqtt.broker == BrokerURL(host: "127.0.0.1", port: 1883))
        #expect(c.mqtt.reconnectDelay == 1...60)
    }

    @Test func flagsOverrideTheFile() throws {
        let file = try YAML.parse("""
            node: hall
            qos: 1
            batch_interval: 1s
            broker: mqtts://broker.lan
            tls: { ca: /etc/ca.crt }
            include: ["iBeacon:*", "mac:*"]
            """)
        let c = try EdgeConfig.load(flags: ["batch_interval": ["100ms"], "node": ["porch"]], file: file, fileName: "edge.yaml")
        #expect(c.node == "porch" && c.qos == .atLeastOnce && c.batchInterval == 0.1)
        #expect(c.mqtt.tls.caFile == "/etc/ca.crt")
        #expect(c.filter.include.map(\.pattern) == ["iBeacon:*", "mac:*"])
    }

    @Test(arguments: [
        ("node: a\nbatch_max: lots\n", "edge.yaml:2: batch_max"),
        ("node: a\nfrobnicate: 1\n", "edge.yaml:2: unknown key 'frobnicate'"),
        ("node: a\ntls: { ca: x, pin: y }\n", "edge.yaml:2: unknown key 'tls.pin'"),
        ("node: a\nbatch_interval: soon\n", "edge.yaml:2: batch_interval"),
        ("node: a\nbroker: http://x\n", "edge.yaml:2: broker"),
        ("node: a\nexclude: { a: 1 }\n", "edge.yaml:2: exclude"),
        ("node: a\npassword_file: /p\n", "username: required"),
        ("- node\n", "edge.yaml:1: the edge config must be a mapping"),
    ])
    func badFilesNameTheKeyAndLine(text: String, message: String) throws {
        let file = try YAML.parse(text)
        #expect {
            try EdgeConfig.load(flags: [:], file: file, fileName: "edge.yaml")
        } throws: { error in
            (error as? EdgeConfigError)?.message.hasPrefix(message) == true
        }
    }

    @Test func badFlagNamesTheFlag() {
        #expect(throws: EdgeConfigError("--qos: expects a whole number in 0...1, got '2'")) {
            try EdgeConfig.load(flags: ["node": ["a"], "qos": ["2"]])
        }
    }

    @Test(arguments: [("250ms", 0.25), ("1.5s", 1.5), ("2m", 120), ("1h", 3600), ("30", 30)])
    func durations(text: String, seconds: Double) {
        #expect(parseDuration(text) == seconds)
    }
}
